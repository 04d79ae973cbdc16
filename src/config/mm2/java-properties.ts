/**
 * Java `.properties` syntax (java.util.Properties#load), which MM2's FileConfigProvider reads and
 * mm2.properties is written in: `key=value`, `key: value` or `key value`; `#`/`!` comment lines;
 * a line ending in an odd number of backslashes continues on the next one (its leading blanks
 * dropped); `\t \n \r \f \uXXXX` escapes; any other escaped character stands for itself.
 *
 * `readPropertyEntries` keeps every entry in file order with the line and column of its key and
 * value, so that a problem in an mm2.properties file can point at the text to fix.
 */

/** One `key=value` entry as written; a key written twice gives two entries. */
export interface PropertyEntry {
  readonly key: string;
  readonly value: string;
  /** 1-based position of the key's first character. */
  readonly line: number;
  readonly column: number;
  /** 1-based position of the value's first character (just after the separator when it is empty). */
  readonly valueLine: number;
  readonly valueColumn: number;
}

export function parseJavaProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const entry of readPropertyEntries(text)) result.set(entry.key, entry.value);
  return result;
}

export function readPropertyEntries(text: string): PropertyEntry[] {
  return logicalLines(text).map((line) => {
    const { keyEnd, valueStart } = splitEntry(line.text);
    const keyAt = line.position(0);
    const valueAt = line.position(valueStart);
    return {
      key: unescape(line.text.slice(0, keyEnd)),
      value: unescape(line.text.slice(valueStart)),
      line: keyAt.line,
      column: keyAt.column,
      valueLine: valueAt.line,
      valueColumn: valueAt.column,
    };
  });
}

const blank = /[ \t\f]/;

interface LogicalLine {
  readonly text: string;
  /** Where the character at `index` of `text` was written. */
  position(index: number): { line: number; column: number };
}

/** A piece of a logical line: its characters from `start` on were written at `line`, from `column`. */
interface Piece {
  readonly start: number;
  readonly line: number;
  readonly column: number;
}

/** Joins continued lines; drops blank and comment lines. Escapes stay in place for `splitEntry`. */
function logicalLines(text: string): LogicalLine[] {
  const natural = text.split(/\r\n|\r|\n/);
  const lines: LogicalLine[] = [];
  let current: { text: string; pieces: Piece[] } | undefined;
  natural.forEach((raw, index) => {
    const leading = raw.length - raw.replace(/^[ \t\f]+/, '').length;
    const trimmedStart = raw.slice(leading);
    if (current === undefined) {
      // A comment line never continues, even when it ends in a backslash.
      if (trimmedStart === '' || trimmedStart.startsWith('#') || trimmedStart.startsWith('!')) return;
    }
    const continues = trailingBackslashes(trimmedStart) % 2 === 1;
    const part = continues ? trimmedStart.slice(0, -1) : trimmedStart;
    current ??= { text: '', pieces: [] };
    current.pieces.push({ start: current.text.length, line: index + 1, column: leading + 1 });
    current.text += part;
    if (!continues) {
      lines.push(toLogicalLine(current.text, current.pieces));
      current = undefined;
    }
  });
  if (current !== undefined) lines.push(toLogicalLine(current.text, current.pieces));
  return lines;
}

function toLogicalLine(text: string, pieces: readonly Piece[]): LogicalLine {
  return {
    text,
    position: (index) => {
      let piece = pieces[0]!;
      for (const candidate of pieces) if (candidate.start <= index) piece = candidate;
      return { line: piece.line, column: piece.column + index - piece.start };
    },
  };
}

function trailingBackslashes(line: string): number {
  let count = 0;
  for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) count += 1;
  return count;
}

/** The key ends at the first unescaped `=`, `:` or blank; one `=`/`:` and the blanks around it separate. */
function splitEntry(line: string): { keyEnd: number; valueStart: number } {
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '=' || c === ':' || blank.test(c)) break;
    i += 1;
  }
  const keyEnd = Math.min(i, line.length);
  let j = keyEnd;
  while (j < line.length && blank.test(line[j]!)) j += 1;
  if (j < line.length && (line[j] === '=' || line[j] === ':')) {
    j += 1;
    while (j < line.length && blank.test(line[j]!)) j += 1;
  }
  return { keyEnd, valueStart: j };
}

function unescape(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\' || i === text.length - 1) {
      out += c;
      continue;
    }
    const next = text[++i]!;
    if (next === 'u' && /^[0-9A-Fa-f]{4}$/.test(text.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
      i += 4;
    } else {
      out += ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[next] ?? next;
    }
  }
  return out;
}
