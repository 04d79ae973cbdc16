/**
 * Kafka protocol `Struct` primitives, as MM2's Checkpoint, Heartbeat and OffsetSync use them
 * (`org.apache.kafka.common.protocol.types.Type`). Fields follow each other with no tags, no
 * struct length and no padding; all integers are big-endian two's complement.
 *
 *   INT16   2 bytes
 *   INT32   4 bytes
 *   INT64   8 bytes
 *   STRING  INT16 byte length N (0..32767), then N bytes of UTF-8; not nullable
 *
 * Readers read only the fields they are asked for and ignore trailing bytes, like Java's.
 */
import { RecordFormatError } from './record-format-error';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Java's `Short.MAX_VALUE`: the longest STRING Kafka's `Type.STRING` writes or reads. */
export const MAX_STRING_BYTES = 32767;

// Java encodes an unpaired surrogate as '?' (String.getBytes(UTF_8)); Node would write EF BF BD.
const LONE_SURROGATE_SOURCE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const LONE_SURROGATE = new RegExp(LONE_SURROGATE_SOURCE, 'g');
// Separate, non-global copy for test(): a global regex would carry lastIndex between calls.
const HAS_LONE_SURROGATE = new RegExp(LONE_SURROGATE_SOURCE);

/** UTF-8 bytes of `s` exactly as Java's `String.getBytes(StandardCharsets.UTF_8)` produces them. */
export function javaUtf8(s: string): Buffer {
  return Buffer.from(s.replace(LONE_SURROGATE, '?'), 'utf8');
}

/**
 * Kafka's `Utils.utf8Length`, which sizes the Struct buffer. It counts an unpaired surrogate as
 * 3 or 4 bytes while Java writes 1 ('?'), so Kafka's records then end in unwritten zero bytes.
 */
function kafkaUtf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x7f) n += 1;
    else if (c <= 0x7ff) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Writes Struct fields in order into a growing buffer. */
export class StructWriter {
  private buf: Buffer;
  private pos = 0;
  /** Zero bytes Kafka would leave at the end (see `kafkaUtf8Length`). */
  private padding = 0;

  constructor(initialSize = 64) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  int16(field: string, value: number): this {
    if (!Number.isInteger(value) || value < -0x8000 || value > 0x7fff) {
      throw writeError(field, `${value} is not an INT16`);
    }
    this.ensure(2);
    this.pos = this.buf.writeInt16BE(value, this.pos);
    return this;
  }

  int32(field: string, value: number): this {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
      throw writeError(field, `${value} is not an INT32`);
    }
    this.ensure(4);
    this.pos = this.buf.writeInt32BE(value, this.pos);
    return this;
  }

  /** A number must be a safe integer (anything else has already lost precision); a bigint must fit in 64 bits. */
  int64(field: string, value: number | bigint): this {
    let big: bigint;
    if (typeof value === 'bigint') {
      if (value < INT64_MIN || value > INT64_MAX) throw writeError(field, `${value} is not an INT64`);
      big = value;
    } else {
      if (!Number.isSafeInteger(value)) throw writeError(field, `${value} is not a safe integer; pass a bigint`);
      big = BigInt(value);
    }
    this.ensure(8);
    this.pos = this.buf.writeBigInt64BE(big, this.pos);
    return this;
  }

  string(field: string, value: string): this {
    const bytes = javaUtf8(value);
    if (HAS_LONE_SURROGATE.test(value)) this.padding += kafkaUtf8Length(value) - bytes.length;
    if (bytes.length > MAX_STRING_BYTES) {
      throw writeError(field, `string of ${bytes.length} UTF-8 bytes is longer than the maximum of ${MAX_STRING_BYTES}`);
    }
    this.ensure(2 + bytes.length);
    this.pos = this.buf.writeInt16BE(bytes.length, this.pos);
    this.pos += bytes.copy(this.buf, this.pos);
    return this;
  }

  /** The bytes written so far, in a new buffer (plus Kafka's zero padding, if any). */
  toBuffer(): Buffer {
    const out = Buffer.alloc(this.pos + this.padding);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }
}

/** Reads Struct fields in order. Every failure is a `RecordFormatError` naming the field. */
export class StructReader {
  private pos = 0;

  /** `what` names the record part in error messages, e.g. `checkpoint value`. */
  constructor(
    private readonly buf: Buffer,
    private readonly what: string,
  ) {}

  int16(field: string): number {
    this.need(field, 2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(field: string): number {
    this.need(field, 4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** An INT64 as a number; a value outside the safe-integer range is a format error. */
  int64(field: string): number {
    const v = this.int64BigInt(field);
    const n = Number(v);
    if (!Number.isSafeInteger(n)) {
      throw new RecordFormatError(`Malformed ${this.what}: field '${field}' holds ${v}, beyond the safe integer range`);
    }
    return n;
  }

  int64BigInt(field: string): bigint {
    this.need(field, 8);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  string(field: string): string {
    const length = this.int16(field);
    if (length < 0) {
      throw new RecordFormatError(`Malformed ${this.what}: field '${field}' has negative string length ${length}`);
    }
    this.need(field, length);
    const s = this.buf.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    return s;
  }

  /** Bytes not read yet (ignored by MM2's readers too). */
  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(field: string, n: number): void {
    const available = this.buf.length - this.pos;
    if (available < n) {
      throw new RecordFormatError(`Malformed ${this.what}: field '${field}' needs ${n} bytes, only ${available} available`);
    }
  }
}

function writeError(field: string, reason: string): RecordFormatError {
  return new RecordFormatError(`Cannot write field '${field}': ${reason}`);
}
