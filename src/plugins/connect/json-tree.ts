/**
 * JSON text as Jackson's tree holds it, which both JsonConverter modes read from: objects keep
 * their fields in the order written (a repeated key keeps its first place and its last value),
 * numbers keep their text (integral or not decides Long or BigDecimal, as JsonConverter's
 * `USE_BIG_DECIMAL_FOR_FLOATS` mapper reads them). Only the first JSON value counts; what
 * follows it is ignored, as Jackson's `readTree` ignores it. Errors name the character, never
 * quote the text.
 */
import { ConnectDataError } from './connect-value';

export type JsonNode =
  | { readonly kind: 'null' }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly text: string; readonly integral: boolean }
  | { readonly kind: 'array'; readonly items: readonly JsonNode[] }
  | { readonly kind: 'object'; readonly fields: ReadonlyMap<string, JsonNode> };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The first JSON value of the bytes; undefined when they hold only whitespace. */
export function parseJsonBytes(bytes: Buffer): JsonNode | undefined {
  const parser = new Parser(decodeUtf8(bytes));
  parser.skipWhitespace();
  if (parser.atEnd()) return undefined;
  return parser.value();
}

/** What `parseJsonBytesKnowing` read: the tree, and the exact text of the field it was asked about. */
export interface ParsedWithField<T> {
  readonly node: JsonNode | undefined;
  /** The text `field`'s value is written with in a top-level object (its last occurrence, as the tree keeps). */
  readonly fieldText: string | undefined;
  /** What `known` gave for that text; the field's value was then not parsed and is a null node in the tree. */
  readonly known: T | undefined;
}

/**
 * `parseJsonBytes`, where the value of one field of a top-level object may be known already by
 * its exact text (an object value only): `known(text)` says what it stands for, and that value is
 * skipped rather than parsed again. The text known was a JSON value when it was first parsed, so
 * the same text is one again, and ends where the parser would end it.
 */
export function parseJsonBytesKnowing<T>(bytes: Buffer, field: string, known: (text: string) => T | undefined): ParsedWithField<T> {
  const text = decodeUtf8(bytes);
  const parser = new Parser(text);
  parser.skipWhitespace();
  if (parser.atEnd()) return { node: undefined, fieldText: undefined, known: undefined };
  if (text[parser.position] !== '{') return { node: parser.value(), fieldText: undefined, known: undefined };
  let fieldText: string | undefined;
  let knownValue: T | undefined;
  const node = parser.object((key) => {
    if (key !== field) return parser.value();
    parser.skipWhitespace();
    const start = parser.position;
    const end = text[start] === '{' ? objectEnd(text, start) : undefined;
    fieldText = end === undefined ? undefined : text.slice(start, end);
    knownValue = fieldText === undefined ? undefined : known(fieldText);
    if (knownValue !== undefined) {
      parser.position = end!;
      return NULL_NODE;
    }
    const value = parser.value();
    fieldText = text.slice(start, parser.position);
    return value;
  });
  return { node, fieldText, known: knownValue };
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ConnectDataError('Converting byte[] to Kafka Connect data failed: the bytes are not UTF-8');
  }
}

/** Where the object opened at `start` ends (after its `}`), by brackets outside strings; undefined if the text ends first. */
function objectEnd(text: string, start: number): number | undefined {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return undefined;
}

/** Jackson's `getNodeType()` name, as Connect's messages give it. */
export function nodeType(node: JsonNode | undefined): string {
  if (node === undefined) return 'MISSING';
  return { null: 'NULL', boolean: 'BOOLEAN', string: 'STRING', number: 'NUMBER', array: 'ARRAY', object: 'OBJECT' }[node.kind];
}

const NULL_NODE: JsonNode = { kind: 'null' };

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  get position(): number {
    return this.at;
  }

  set position(at: number) {
    this.at = at;
  }

  atEnd(): boolean {
    return this.at >= this.text.length;
  }

  skipWhitespace(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at]!)) this.at++;
  }

  value(): JsonNode {
    this.skipWhitespace();
    const c = this.text[this.at];
    switch (c) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"':
        return { kind: 'string', value: this.string() };
      case 't':
        return this.literal('true', { kind: 'boolean', value: true });
      case 'f':
        return this.literal('false', { kind: 'boolean', value: false });
      case 'n':
        return this.literal('null', NULL_NODE);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
        return this.fail(c === undefined ? 'unexpected end of input' : 'unexpected character');
    }
  }

  private fail(what: string): never {
    throw new ConnectDataError(`Converting byte[] to Kafka Connect data failed: not JSON (${what} at character ${this.at + 1})`);
  }

  private literal(word: string, node: JsonNode): JsonNode {
    if (!this.text.startsWith(word, this.at)) this.fail('unexpected word');
    this.at += word.length;
    return node;
  }

  /** An object at the current `{`; `fieldValue` reads the value of each field after its `:`. */
  object(fieldValue: (key: string) => JsonNode = () => this.value()): JsonNode {
    this.at++;
    const fields = new Map<string, JsonNode>();
    this.skipWhitespace();
    if (this.text[this.at] === '}') {
      this.at++;
      return { kind: 'object', fields };
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.at] !== '"') this.fail('expected a field name');
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.at] !== ':') this.fail("expected ':'");
      this.at++;
      fields.set(key, fieldValue(key));
      this.skipWhitespace();
      const next = this.text[this.at++];
      if (next === '}') break;
      if (next !== ',') this.fail("expected ',' or '}'");
    }
    return { kind: 'object', fields };
  }

  private array(): JsonNode {
    this.at++;
    const items: JsonNode[] = [];
    this.skipWhitespace();
    if (this.text[this.at] === ']') {
      this.at++;
      return { kind: 'array', items };
    }
    for (;;) {
      items.push(this.value());
      this.skipWhitespace();
      const next = this.text[this.at++];
      if (next === ']') return { kind: 'array', items };
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

  private number(): JsonNode {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 1100));
    if (match === null) return this.fail('bad number');
    const next = this.text[this.at + match[0].length];
    if (next !== undefined && /[0-9.eE+-]/.test(next)) this.fail('bad number');
    this.at += match[0].length;
    return { kind: 'number', text: match[0], integral: match[2] === undefined && match[3] === undefined };
  }
}

/** A number node's `longValue()` / `intValue()`: integral numbers keep their low bits; others are truncated toward zero first (BigDecimal's). */
export function integralBits(node: { readonly text: string; readonly integral: boolean }, bits: 32 | 64): bigint {
  return BigInt.asIntN(bits, node.integral ? BigInt(node.text) : truncateDecimal(node.text));
}

/** BigDecimal's `toBigInteger()` of a decimal literal. */
function truncateDecimal(text: string): bigint {
  const { unscaled, scale } = decimalOf(text);
  if (scale <= 0) return unscaled * 10n ** BigInt(-scale);
  return unscaled / 10n ** BigInt(scale);
}

/** `new BigDecimal(text)`: the unscaled value and the scale (`12.50` is 1250 and 2; `1.5e3` is 15 and -2). */
export function decimalOf(text: string): { unscaled: bigint; scale: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const fraction = match[3] ?? '';
  return { unscaled: BigInt(`${match[1]}${match[2]}${fraction}`), scale: fraction.length - Number(match[4] ?? 0) };
}
