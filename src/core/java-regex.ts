// size: one translator, a character-by-character walk over Java's regex syntax; its cases read best together.
/**
 * Translates one Java regex (`java.util.regex.Pattern`, as MM2's filters use) to a JavaScript
 * regex source for the `u` flag with the same meaning, or says why it cannot.
 *
 * Translated: a leading `(?i)`, `(?s)`, `(?u)` or `(?-i)` (returned as flags, because in Java
 * they also govern the patterns joined after this one), `\Q…\E`, `\A \z \Z`, `$` and `.` (Java
 * stops them at \n \r \u0085 \u2028 \u2029), `\s \h \v \H \V`, POSIX `\p{Alpha}`-style classes,
 * `\p{IsLatin}`-style names, `\e \a \cX \0oct \x{h…}`, escaped punctuation, a literal `]` first
 * in a class, lone `]` and `}`.
 * Rejected with a reason (JS would read them differently or not at all): inline flags elsewhere,
 * possessive quantifiers, atomic groups, class unions and intersections, `\G \R \X \N \b{…}`, blocks
 * (`\p{InGreek}`), Java-only properties (`\p{javaLowerCase}`).
 * Known difference: with `(?i)` JS folds case for all of Unicode, Java only for ASCII.
 */
import { MirrorflowError } from './errors';

export class JavaRegexError extends MirrorflowError {
  override readonly name = 'JavaRegexError';
  override readonly code = 'JAVA_REGEX_INVALID';
}

/** Inline flags in effect; in a `|`-joined pattern list they carry over to later patterns. */
export interface JavaRegexFlags {
  readonly caseInsensitive: boolean;
  readonly dotAll: boolean;
}

export interface TranslatedJavaRegex {
  /** JS regex source, to compile with `u` (plus `i` when `flags.caseInsensitive`). */
  readonly source: string;
  /** The flags in effect after this pattern's leading inline flags. */
  readonly flags: JavaRegexFlags;
}

export const NO_JAVA_FLAGS: JavaRegexFlags = { caseInsensitive: false, dotAll: false };

const LINE_TERMINATORS = '\\n\\r\\u0085\\u2028\\u2029';
const JAVA_DOT = `[^${LINE_TERMINATORS}]`;
const JAVA_END = `(?=(?:\\r\\n|[${LINE_TERMINATORS}])?$)`;
// Java's \s is ASCII only; JS's also matches Unicode spaces.
const SPACE_SET = '\\t-\\r ';
const H_SPACE_SET = ' \\t\\u00a0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000';
const V_SPACE_SET = '\\n-\\r\\u0085\\u2028\\u2029';
// Java's POSIX classes are ASCII-only unless UNICODE_CHARACTER_CLASS is on.
const POSIX: Readonly<Record<string, string>> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\u0000-\\u007f',
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\u0000-\\u001f\\u007f',
  XDigit: '0-9a-fA-F',
  Space: SPACE_SET,
};
/** Characters that must be escaped to be literal in a `u` regex (outside a class; `-` too inside). */
const SYNTAX = new Set('^$\\.*+?()[]{}|/');
const CLASS_ESCAPES = new Set('dDsSwWhHvVpP');

export function translateJavaRegex(pattern: string, inherited: JavaRegexFlags = NO_JAVA_FLAGS): TranslatedJavaRegex {
  return new Translator(pattern, inherited).run();
}

class Translator {
  private i = 0;
  private out = '';
  private flags: JavaRegexFlags;

  constructor(
    private readonly p: string,
    inherited: JavaRegexFlags,
  ) {
    this.flags = inherited;
  }

  run(): TranslatedJavaRegex {
    this.leadingFlags();
    while (this.i < this.p.length) this.outside();
    return { source: this.out, flags: this.flags };
  }

  private leadingFlags(): void {
    const m = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)/.exec(this.p);
    if (!m || (m[1] === '' && m[2] === undefined)) return;
    let { caseInsensitive, dotAll } = this.flags;
    const apply = (letters: string, on: boolean) => {
      for (const f of letters) {
        if (f === 'i') caseInsensitive = on;
        else if (f === 's') dotAll = on;
        else if (f !== 'u') this.fail(`the inline flag (?${on ? '' : '-'}${f}) is not supported; only i, s and u are`, 0);
      }
    };
    apply(m[1]!, true);
    apply(m[2] ?? '', false);
    this.flags = { caseInsensitive, dotAll };
    this.i = m[0].length;
  }

  private outside(): void {
    const c = this.p[this.i]!;
    switch (c) {
      case '\\':
        this.escape(false);
        return;
      case '[':
        this.charClass();
        return;
      case '.':
        this.emit(this.flags.dotAll ? '[^]' : JAVA_DOT, 1);
        return;
      case '$':
        this.emit(JAVA_END, 1);
        return;
      case '(':
        this.group();
        return;
      case '*':
      case '+':
      case '?':
        this.emit(c, 1);
        this.quantifierSuffix();
        return;
      case '{': {
        const m = /^\{\d+(?:,\d*)?\}/.exec(this.p.slice(this.i));
        if (!m) this.fail('illegal repetition: "{" must start a quantifier like {2} or {1,3}; write \\{ for a literal brace');
        this.emit(m[0], m[0].length);
        this.quantifierSuffix();
        return;
      }
      case '|':
      case ')':
      case '^':
        this.emit(c, 1);
        return;
      case '}':
      case ']':
        // Literal in Java; an error in a JS `u` regex.
        this.emit(`\\${c}`, 1);
        return;
      default:
        this.emit(this.literalChar(), 0);
    }
  }

  private quantifierSuffix(): void {
    const next = this.p[this.i];
    if (next === '+') this.fail('possessive quantifiers (like a*+) are not supported');
    if (next === '?') this.emit('?', 1);
  }

  private group(): void {
    const rest = this.p.slice(this.i);
    if (!rest.startsWith('(?')) {
      this.emit('(', 1);
      return;
    }
    const m = /^\(\?(?::|=|!|<=|<!|<[a-zA-Z][a-zA-Z0-9]*>)/.exec(rest);
    if (m) {
      this.emit(m[0], m[0].length);
      return;
    }
    if (rest.startsWith('(?>')) this.fail('atomic groups (?>…) are not supported');
    this.fail('inline flags are only supported at the very start of a pattern, like (?i)topic.*');
  }

  private charClass(): void {
    const start = this.i;
    this.emit('[', 1);
    if (this.p[this.i] === '^') this.emit('^', 1);
    // Java reads a `]` right after `[` or `[^` as a literal.
    if (this.p[this.i] === ']') this.emit('\\]', 1);
    let lastWasSet = false;
    for (;;) {
      if (this.i >= this.p.length) this.fail('unclosed character class', start);
      const c = this.p[this.i]!;
      if (c === ']') {
        this.emit(']', 1);
        return;
      }
      if (c === '[') this.fail('nested character classes (unions like [a[b]]) are not supported');
      if (c === '&' && this.p[this.i + 1] === '&') this.fail('character class intersections (&&) are not supported');
      if (c === '\\') {
        lastWasSet = CLASS_ESCAPES.has(this.p[this.i + 1] ?? '');
        this.escape(true);
        continue;
      }
      if (c === '-') {
        // Java takes `-` next to a class escape ([\w-a]) as a literal; JS rejects the range.
        const nextIsSet = this.p[this.i + 1] === '\\' && CLASS_ESCAPES.has(this.p[this.i + 2] ?? '');
        this.emit(lastWasSet || nextIsSet ? '\\-' : '-', 1);
        lastWasSet = false;
        continue;
      }
      lastWasSet = false;
      this.emit(this.literalChar(true), 0);
    }
  }

  /** One literal code point at `i` (consumed), escaped if the `u` flag needs it. */
  private literalChar(inClass = false): string {
    const cp = this.p.codePointAt(this.i)!;
    const ch = String.fromCodePoint(cp);
    this.i += ch.length;
    return quote(ch, inClass);
  }

  private escape(inClass: boolean): void {
    const at = this.i;
    const c = this.p[this.i + 1];
    if (c === undefined) this.fail('the pattern ends with a lone backslash', at);
    this.i += 2;
    switch (c) {
      case 'Q': {
        const end = this.p.indexOf('\\E', this.i);
        const literal = end < 0 ? this.p.slice(this.i) : this.p.slice(this.i, end);
        this.i = end < 0 ? this.p.length : end + 2;
        for (const ch of literal) this.out += quote(ch, inClass);
        return;
      }
      case 't':
      case 'n':
      case 'r':
      case 'f':
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        this.out += `\\${c}`;
        return;
      case 'S':
        // Inside a class there is no cheap exact form; JS's \S differs only for Unicode spaces.
        this.out += inClass ? '\\S' : `[^${SPACE_SET}]`;
        return;
      case 's':
        this.out += inClass ? SPACE_SET : `[${SPACE_SET}]`;
        return;
      case 'h':
        this.out += inClass ? H_SPACE_SET : `[${H_SPACE_SET}]`;
        return;
      case 'v':
        this.out += inClass ? V_SPACE_SET : `[${V_SPACE_SET}]`;
        return;
      case 'H':
      case 'V':
        if (inClass) this.fail(`\\${c} inside a character class is not supported`, at);
        this.out += `[^${c === 'H' ? H_SPACE_SET : V_SPACE_SET}]`;
        return;
      case 'b':
      case 'B':
        if (inClass) this.fail(`\\${c} is not allowed in a character class`, at);
        if (this.p[this.i] === '{') this.fail('\\b{…} boundaries are not supported', at);
        this.out += `\\${c}`;
        return;
      case 'A':
        this.inClassFail(inClass, c, at);
        this.out += '^';
        return;
      case 'z':
        this.inClassFail(inClass, c, at);
        this.out += '$';
        return;
      case 'Z':
        this.inClassFail(inClass, c, at);
        this.out += JAVA_END;
        return;
      case 'a':
        this.out += '\\x07';
        return;
      case 'e':
        this.out += '\\x1b';
        return;
      case 'c': {
        const x = this.p.codePointAt(this.i);
        if (x === undefined) this.fail('\\c must be followed by a character', at);
        this.i += x > 0xffff ? 2 : 1;
        this.out += codePoint(x ^ 64);
        return;
      }
      case '0': {
        const m = /^(?:[0-3][0-7]{2}|[0-7]{1,2})/.exec(this.p.slice(this.i));
        if (!m) this.fail('\\0 must be followed by 1 to 3 octal digits', at);
        this.i += m[0].length;
        this.out += codePoint(parseInt(m[0], 8));
        return;
      }
      case 'x': {
        const m = /^(?:([0-9a-fA-F]{2})|\{([0-9a-fA-F]+)\})/.exec(this.p.slice(this.i));
        if (!m) this.fail('\\x must be followed by two hex digits or {hex}', at);
        const value = parseInt(m[1] ?? m[2]!, 16);
        if (value > 0x10ffff) this.fail('\\x{…} is beyond U+10FFFF', at);
        this.i += m[0].length;
        this.out += codePoint(value);
        return;
      }
      case 'u': {
        const m = /^[0-9a-fA-F]{4}/.exec(this.p.slice(this.i));
        if (!m) this.fail('\\u must be followed by four hex digits', at);
        this.i += 4;
        this.out += `\\u${m[0]}`;
        return;
      }
      case 'p':
      case 'P':
        this.property(c === 'P', inClass, at);
        return;
      case 'k': {
        const m = /^<[a-zA-Z][a-zA-Z0-9]*>/.exec(this.p.slice(this.i));
        if (!m || inClass) this.fail('\\k must name a group, like \\k<name>', at);
        this.i += m[0].length;
        this.out += `\\k${m[0]}`;
        return;
      }
      default:
        if (c >= '1' && c <= '9' && !inClass) {
          const m = /^\d*/.exec(this.p.slice(this.i))!;
          this.i += m[0].length;
          this.out += `\\${c}${m[0]}`;
          return;
        }
        if (/[a-zA-Z0-9]/.test(c)) this.fail(`\\${c} is not supported (Java: illegal or unsupported escape sequence)`, at);
        // Java lets a backslash make any other character literal.
        this.i -= 1;
        this.out += this.literalChar(inClass);
    }
  }

  private property(negated: boolean, inClass: boolean, at: number): void {
    const m = /^(?:\{([^}]*)\}|([a-zA-Z]))/.exec(this.p.slice(this.i));
    if (!m) this.fail('\\p must be followed by a name, like \\p{Alpha}', at);
    this.i += m[0].length;
    const name = m[1] ?? m[2]!;
    const posix = POSIX[name];
    if (posix !== undefined) {
      if (!negated) this.out += inClass ? posix : `[${posix}]`;
      else if (inClass) this.fail(`\\P{${name}} inside a character class is not supported`, at);
      else this.out += `[^${posix}]`;
      return;
    }
    if (/^In/.test(name)) this.fail(`Unicode blocks like \\p{${name}} are not supported`, at);
    const bare = name.replace(/^Is/, '');
    for (const candidate of [bare, `Script=${bare}`, `General_Category=${bare}`]) {
      const escape = `\\${negated ? 'P' : 'p'}{${candidate}}`;
      try {
        new RegExp(escape, 'u');
      } catch {
        continue;
      }
      this.out += escape;
      return;
    }
    this.fail(`the character property \\p{${name}} is not supported`, at);
  }

  private inClassFail(inClass: boolean, c: string, at: number): void {
    if (inClass) this.fail(`\\${c} is not allowed in a character class`, at);
  }

  private emit(s: string, consumed: number): void {
    this.out += s;
    this.i += consumed;
  }

  private fail(reason: string, at: number = this.i): never {
    throw new JavaRegexError(`${reason} (at index ${at})`);
  }
}

function quote(ch: string, inClass: boolean): string {
  if (SYNTAX.has(ch) || (inClass && ch === '-')) return `\\${ch}`;
  return ch;
}

function codePoint(n: number): string {
  return `\\u{${n.toString(16)}}`;
}
