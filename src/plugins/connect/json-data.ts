/**
 * Connect's JsonConverter with `schemas.enable=false`, both ways, as a pure function of bytes:
 *
 * - reading (Jackson's tree, then `convertToConnect` without a schema): objects become HashMaps
 *   (JavaHashMap), integral numbers Long (int64, wrapped to 64 bits as `longValue()` does),
 *   other numbers Double (read exactly, then rounded: `-0.0` is `0.0`), and null or empty bytes
 *   are a null value. Only the first JSON value counts; what follows it is ignored, as Jackson's
 *   `readTree` ignores it.
 * - writing (`convertToJson`, then Jackson's generator): no whitespace, maps in their iteration
 *   order, Double and Float as Java prints them, NaN and infinities as quoted strings, byte
 *   arrays as base64, control characters and surrogates escaped as `\uXXXX` (upper-case hex) but
 *   for `\b \t \n \f \r`, and a null value as no bytes at all (a tombstone).
 */
import { ConnectDataError, ConnectFloat, ConnectInt, JavaHashMap, type ConnectMap, type ConnectValue } from './connect-value';
import { javaDoubleToString, javaFloatToString } from './java-number-format';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `JsonConverter.toConnectData` (schemaless). Throws ConnectDataError, naming the byte offset, for bytes that are not JSON. */
export function readJson(bytes: Buffer | null): ConnectValue {
  if (bytes === null || bytes.length === 0) return null;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ConnectDataError('Converting byte[] to Kafka Connect data failed: the bytes are not UTF-8');
  }
  const parser = new Parser(text);
  parser.skipWhitespace();
  if (parser.atEnd()) return null;
  return parser.value();
}

/** `JsonConverter.fromConnectData` (schemaless): null for a null value. */
export function writeJson(value: ConnectValue): Buffer | null {
  if (value === null) return null;
  return Buffer.from(jsonText(value), 'utf8');
}

/** The JSON text Jackson writes for a value (`null` for a null one, as inside a map or list). */
export function jsonText(value: ConnectValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return quote(value);
  if (Buffer.isBuffer(value)) return `"${value.toString('base64')}"`;
  if (value instanceof ConnectInt) return value.value.toString();
  if (value instanceof ConnectFloat) {
    const v = value.value;
    const text = value.type === 'float32' ? javaFloatToString(v) : javaDoubleToString(v);
    return Number.isFinite(v) ? text : `"${text}"`;
  }
  if (value instanceof JavaHashMap) {
    const parts: string[] = [];
    for (const [key, field] of value) parts.push(`${quote(key)}:${jsonText(field)}`);
    return `{${parts.join(',')}}`;
  }
  return `[${value.map((element) => jsonText(element)).join(',')}]`;
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };

function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += s[i];
  }
  return `${out}"`;
}

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.at >= this.text.length;
  }

  skipWhitespace(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at]!)) this.at++;
  }

  value(): ConnectValue {
    this.skipWhitespace();
    const c = this.text[this.at];
    switch (c) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(c === undefined ? 'unexpected end of input' : 'unexpected character');
    }
  }

  private fail(what: string): never {
    throw new ConnectDataError(`Converting byte[] to Kafka Connect data failed: not JSON (${what} at character ${this.at + 1})`);
  }

  private literal<T extends ConnectValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.at)) this.fail('unexpected word');
    this.at += word.length;
    return value;
  }

  private object(): ConnectMap {
    this.at++;
    // Jackson's ObjectNode keeps a repeated key at its first place with its last value.
    const fields = new Map<string, ConnectValue>();
    this.skipWhitespace();
    if (this.text[this.at] === '}') {
      this.at++;
      return JavaHashMap.create<ConnectValue>();
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.at] !== '"') this.fail('expected a field name');
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.at] !== ':') this.fail("expected ':'");
      this.at++;
      fields.set(key, this.value());
      this.skipWhitespace();
      const next = this.text[this.at++];
      if (next === '}') break;
      if (next !== ',') this.fail("expected ',' or '}'");
    }
    return JavaHashMap.of(fields);
  }

  private array(): ConnectValue[] {
    this.at++;
    const out: ConnectValue[] = [];
    this.skipWhitespace();
    if (this.text[this.at] === ']') {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipWhitespace();
      const next = this.text[this.at++];
      if (next === ']') return out;
      if (next !== ',') this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    this.at++;
    let out = '';
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) this.fail('unterminated string');
      if (c === '"') {
        this.at++;
        return out;
      }
      if (c < ' ') this.fail('control character in a string');
      if (c !== '\\') {
        out += c;
        this.at++;
        continue;
      }
      const e = this.text[this.at + 1];
      this.at += 2;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const hex = this.text.slice(this.at, this.at + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          this.at += 4;
          break;
        }
        default:
          this.at -= 2;
          this.fail('bad escape');
      }
    }
  }

  private number(): ConnectInt | ConnectFloat {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 1100));
    if (match === null) return this.fail('bad number');
    const next = this.text[this.at + match[0].length];
    if (next !== undefined && /[0-9.eE+-]/.test(next)) this.fail('bad number');
    this.at += match[0].length;
    if (match[2] === undefined && match[3] === undefined) return new ConnectInt('int64', BigInt.asIntN(64, BigInt(match[0])));
    const value = Number(match[0]);
    return new ConnectFloat('float64', value === 0 ? 0 : value);
  }
}
