/**
 * Paths inside a pipeline document: `['flows', 0, 'batching', 'max_records']`, shown to users as
 * `flows[0].batching.max_records`, and typed by them in `--set flows.0.batching.max_records=…`.
 */

export type PathSegment = string | number;
export type ConfigPath = readonly PathSegment[];

const plainKey = /^[A-Za-z0-9_-]+$/;

/** `flows[0].batching.max_records`; keys that would read ambiguously are quoted: `clusters["a.b"]`. */
export function formatPath(path: ConfigPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (plainKey.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/**
 * Reads `a.b[0].c`, `a.b.0.c` and `a["x.y"]`. Bracketed numbers become numbers; a dotted
 * number stays a string, because only the schema knows whether `clusters.1` is an alias or an
 * index. Returns undefined for text that is not a path (empty segments, unclosed brackets).
 */
export function parsePath(text: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  let i = 0;
  let expectKey = true;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '[') {
      const close = text.indexOf(']', i);
      if (close < 0) return undefined;
      const inner = text.slice(i + 1, close);
      if (/^\d+$/.test(inner)) segments.push(Number(inner));
      else {
        const quoted = readQuoted(inner);
        if (quoted === undefined) return undefined;
        segments.push(quoted);
      }
      i = close + 1;
      expectKey = false;
    } else if (c === '.') {
      if (expectKey) return undefined;
      i += 1;
      expectKey = true;
    } else {
      if (!expectKey) return undefined;
      let end = i;
      while (end < text.length && text[end] !== '.' && text[end] !== '[') end += 1;
      segments.push(text.slice(i, end));
      i = end;
      expectKey = false;
    }
  }
  if (expectKey) return undefined;
  return segments;
}

function readQuoted(inner: string): string | undefined {
  if (!inner.startsWith('"')) return undefined;
  try {
    const value: unknown = JSON.parse(inner);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** True when `prefix` is `path` or one of its ancestors. Segments compare as text (`0` = `"0"`). */
export function isPathPrefix(prefix: ConfigPath, path: ConfigPath): boolean {
  if (prefix.length > path.length) return false;
  return prefix.every((segment, i) => String(segment) === String(path[i]));
}

/** Reads a value out of plain data; undefined when any step is missing. */
export function valueAtPath(data: unknown, path: ConfigPath): unknown {
  let current: unknown = data;
  for (const segment of path) {
    if (Array.isArray(current)) {
      const index = typeof segment === 'number' ? segment : Number(segment);
      current = Number.isInteger(index) ? current[index] : undefined;
    } else if (isPlainObject(current)) {
      const key = String(segment);
      current = Object.hasOwn(current, key) ? current[key] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

export function hasPath(data: unknown, path: ConfigPath): boolean {
  return valueAtPath(data, path) !== undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
