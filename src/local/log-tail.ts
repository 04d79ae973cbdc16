import { open } from 'node:fs/promises';

/** The last `maxLines` lines of a text file (reading at most its last 64 KiB); '' if missing. */
export async function readLogTail(file: string, maxLines = 40): Promise<string> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return '';
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    if (length < size) lines.shift(); // the first line is probably cut
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-maxLines).join('\n');
  } finally {
    await handle.close();
  }
}
