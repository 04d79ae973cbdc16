/**
 * Java `.properties` syntax (java.util.Properties#load), which MM2's FileConfigProvider reads and
 * mm2.properties is written in: `key=value`, `key: value` or `key value`; `#`/`!` comment lines;
 * a line ending in an odd number of backslashes continues on the next one (its leading blanks
 * dropped); `\t \n \r \f \uXXXX` escapes; any other escaped character stands for itself.
 */

export function parseJavaProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const line of logicalLines(text)) {
    const { key, value } = splitEntry(line);
    result.set(unescape(key), unescape(value));
  }
  return result;
}

const blank = /[ \t\f]/;

/** Joins continued lines; drops blank and comment lines. Escapes stay in place for `splitEntry`. */
function logicalLines(text: string): string[] {
  const natural = text.split(/\r\n|\r|\n/);
  const lines: string[] = [];
  let current: string | undefined;
  for (const raw of natural) {
    const trimmedStart = raw.replace(/^[ \t\f]+/, '');
    if (current === undefined) {
      // A comment line never continues, even when it ends in a backslash.
      if (trimmedStart === '' || trimmedStart.startsWith('#') || trimmedStart.startsWith('!')) continue;
    }
    const continues = trailingBackslashes(trimmedStart) % 2 === 1;
    const part = continues ? trimmedStart.slice(0, -1) : trimmedStart;
    current = (current ?? '') + part;
    if (!continues) {
      lines.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) lines.push(current);
  return lines;
}

function trailingBackslashes(line: string): number {
  let count = 0;
  for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) count += 1;
  return count;
}

/** The key ends at the first unescaped `=`, `:` or blank; one `=`/`:` and the blanks around it separate. */
function splitEntry(line: string): { key: string; value: string } {
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
  const key = line.slice(0, i);
  let j = i;
  while (j < line.length && blank.test(line[j]!)) j += 1;
  if (j < line.length && (line[j] === '=' || line[j] === ':')) {
    j += 1;
    while (j < line.length && blank.test(line[j]!)) j += 1;
  }
  return { key, value: line.slice(j) };
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
