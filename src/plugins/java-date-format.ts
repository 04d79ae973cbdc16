/**
 * Java's `SimpleDateFormat` patterns, in UTC, for the pattern letters Kafka Connect users write
 * in TimestampRouter's `timestamp.format`: `y` (year; `yy` is its last two digits), `M` (month:
 * `M`/`MM` a number, `MMM` `Jan`, `MMMM` `January`), `d`, `H`, `m`, `s` (day, hour 0-23, minute,
 * second) and `S` (milliseconds, a number 0-999). A run of n letters pads the number with zeros to
 * n digits. Text in single quotes is literal (`''` is a quote); other characters that are not
 * letters are literal too. Java's other letters (`E`, `a`, `h`, `z`, …) are refused, as are
 * letters Java does not know, at config time rather than at the first record.
 *
 * Dates before 1582-10-15 are in the proleptic Gregorian calendar (Java switches to the Julian one).
 */

type Part = { readonly literal: string } | { readonly letter: string; readonly count: number };

const SUPPORTED = 'yMdHmsS';
/** Letters SimpleDateFormat knows but this formatter does not. */
const JAVA_ONLY = 'GEFwWDkKhaYuzZXL';
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export class JavaDateFormat {
  private constructor(private readonly parts: readonly Part[]) {}

  /** Parses a pattern; throws an Error naming the problem when Java would refuse it or it uses a letter not supported here. */
  static parse(pattern: string): JavaDateFormat {
    const parts: Part[] = [];
    let literal = '';
    let i = 0;
    while (i < pattern.length) {
      const c = pattern[i]!;
      if (c === "'") {
        if (pattern[i + 1] === "'") {
          literal += "'";
          i += 2;
          continue;
        }
        const end = closingQuote(pattern, i + 1);
        if (end < 0) throw new Error(`unterminated quote at position ${i}`);
        literal += pattern.slice(i + 1, end).replaceAll("''", "'");
        i = end + 1;
      } else if (/[A-Za-z]/.test(c)) {
        if (!SUPPORTED.includes(c)) {
          throw new Error(
            JAVA_ONLY.includes(c)
              ? `pattern letter '${c}' is not supported (supported: y M d H m s S, and 'quoted text')`
              : `illegal pattern character '${c}' (Java's SimpleDateFormat refuses it too)`,
          );
        }
        let count = 1;
        while (pattern[i + count] === c) count++;
        if (literal !== '') parts.push({ literal });
        literal = '';
        parts.push({ letter: c, count });
        i += count;
      } else {
        literal += c;
        i++;
      }
    }
    if (literal !== '') parts.push({ literal });
    return new JavaDateFormat(parts);
  }

  /**
   * `SimpleDateFormat.parse` in UTC, lenient as Java's default: numbers may have fewer or more
   * digits than the pattern's letters (a number directly followed by another takes exactly as
   * many digits as it has letters) and overflow into the next unit (month 13 is January of the
   * next year). Undefined when the text does not match; text after the pattern is ignored.
   */
  parse(text: string): number | undefined {
    const fields: Record<string, number> = { y: 1970, M: 0, d: 1, H: 0, m: 0, s: 0, S: 0 };
    let at = 0;
    for (let index = 0; index < this.parts.length; index++) {
      const part = this.parts[index]!;
      if ('literal' in part) {
        if (!text.startsWith(part.literal, at)) return undefined;
        at += part.literal.length;
        continue;
      }
      if (part.letter === 'M' && part.count >= 3) {
        const month = MONTHS.findIndex((name) => text.slice(at).toLowerCase().startsWith(name.toLowerCase()));
        const short = MONTHS.findIndex((name) => text.slice(at).toLowerCase().startsWith(name.slice(0, 3).toLowerCase()));
        if (month >= 0) at += MONTHS[month]!.length;
        else if (short >= 0) at += 3;
        else return undefined;
        fields['M'] = month >= 0 ? month : short;
        continue;
      }
      const next = this.parts[index + 1];
      const abutting = next !== undefined && !('literal' in next);
      const sign = text[at] === '-' || text[at] === '+' ? text[at]! : '';
      const digits = /^\d+/.exec(text.slice(at + sign.length))?.[0];
      if (digits === undefined) return undefined;
      const taken = abutting ? digits.slice(0, part.count) : digits;
      if (abutting && taken.length < part.count) return undefined;
      at += sign.length + taken.length;
      let value = Number(`${sign}${taken}`);
      // A two-letter year of two digits lands within 80 years before and 20 after now.
      if (part.letter === 'y' && part.count <= 2 && taken.length === 2 && sign === '') {
        const now = new Date().getUTCFullYear();
        value += Math.floor((now - 80) / 100) * 100;
        if (value < now - 80) value += 100;
      }
      fields[part.letter] = part.letter === 'M' ? value - 1 : value;
    }
    const date = new Date(0);
    date.setUTCFullYear(fields['y']!, fields['M']!, fields['d']!);
    date.setUTCHours(fields['H']!, fields['m']!, fields['s']!, fields['S']!);
    return date.getTime();
  }

  /** The UTC date and time of `epochMs` in this pattern. */
  format(epochMs: number): string {
    const date = new Date(epochMs);
    let out = '';
    for (const part of this.parts) {
      if ('literal' in part) {
        out += part.literal;
        continue;
      }
      const { letter, count } = part;
      switch (letter) {
        case 'y': {
          const year = date.getUTCFullYear();
          out += count === 2 ? pad(year % 100, 2) : pad(year, count);
          break;
        }
        case 'M': {
          const month = date.getUTCMonth();
          out += count >= 4 ? MONTHS[month]! : count === 3 ? MONTHS[month]!.slice(0, 3) : pad(month + 1, count);
          break;
        }
        case 'd':
          out += pad(date.getUTCDate(), count);
          break;
        case 'H':
          out += pad(date.getUTCHours(), count);
          break;
        case 'm':
          out += pad(date.getUTCMinutes(), count);
          break;
        case 's':
          out += pad(date.getUTCSeconds(), count);
          break;
        default: // 'S'
          out += pad(date.getUTCMilliseconds(), count);
      }
    }
    return out;
  }
}

/** The index of the quote closing a quoted run that starts at `from`, skipping doubled quotes; -1 if none. */
function closingQuote(pattern: string, from: number): number {
  for (let i = from; i < pattern.length; i++) {
    if (pattern[i] !== "'") continue;
    if (pattern[i + 1] === "'") {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}

function pad(value: number, digits: number): string {
  return String(value).padStart(digits, '0');
}
