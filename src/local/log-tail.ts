import { open } from 'node:fs/promises';

/**
 * The last `maxBytes` of a text file after byte `from`, starting at a line boundary; '' if the
 * file is missing. A file now shorter than `from` was rolled over and is read as a whole.
 */
export async function readLogEnd(file: string, maxBytes = 256 * 1024, from = 0): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    const start = from <= size ? from : 0;
    const length = Math.min(size - start, maxBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const text = buffer.toString('utf8');
    // The first line is probably cut when we did not read from a line start.
    return length < size - start ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    await handle.close();
  }
}

/** The last `count` non-empty-ended lines of `text`. */
export function lastLines(text: string, count: number): string[] {
  const lines = text.split('\n');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-count);
}

/**
 * What to show when a broker fails: its first ERROR lines (the cause; the end of the log is
 * mostly shutdown chatter) and its last lines.
 */
export function logExcerpt(text: string, options: { errors?: number; tail?: number } = {}): string {
  const lines = text.split('\n');
  const errors: string[] = [];
  for (let i = 0; i < lines.length && errors.length < (options.errors ?? 5) * 2; i++) {
    if (!/\b(ERROR|FATAL)\b/.test(lines[i]!)) continue;
    errors.push(lines[i]!);
    // The exception message ("...: Address already in use") is on the line after, not in the ERROR line.
    const next = lines[i + 1];
    if (next !== undefined && next !== '' && !next.startsWith('[') && !/^\s+at /.test(next)) errors.push(next);
  }
  const tail = lastLines(text, options.tail ?? 20);
  const parts: string[] = [];
  if (errors.length > 0) parts.push('first errors:', ...errors);
  if (tail.length > 0) parts.push('last lines:', ...tail);
  return parts.join('\n');
}
