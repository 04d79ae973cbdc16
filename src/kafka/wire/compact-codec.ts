import type { EncodedRequest } from './request-frame';

/**
 * The field types of Kafka's flexible versions (KIP-482), for the requests kafkajs does not speak
 * (metadata-v12.ts, share-group-offsets.ts, fetch-by-topic-id.ts), and such a request in kafkajs's
 * protocol shape (`flexibleRequest`):
 *
 *   COMPACT_STRING / COMPACT_NULLABLE_STRING  unsigned varint of byte length + 1 (0 = null), UTF-8
 *   COMPACT_ARRAY / COMPACT_NULLABLE_ARRAY    unsigned varint of count + 1 (0 = null), the items
 *   TAG_BUFFER                                unsigned varint count of (tag UVARINT | size UVARINT | bytes)
 *   UUID                                      16 bytes
 *
 * Integers are big-endian; INT64 offsets are read as JS numbers, exact up to 2^53.
 */

/** An unsigned varint's bytes (values up to 2^32 - 1). */
export function uvarint(value: number): number[] {
  const bytes: number[] = [];
  let v = value >>> 0;
  while (v >= 0x80) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return bytes;
}

/** Builds a request body, flexible (compact fields) or classic (`int16`-length strings); every write appends. */
export class CompactWriter {
  private readonly parts: Buffer[] = [];

  int8(value: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(value);
    return this.push(b);
  }

  int16(value: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(value);
    return this.push(b);
  }

  int32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(value);
    return this.push(b);
  }

  int64(value: number): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(BigInt(value));
    return this.push(b);
  }

  uvarint(value: number): this {
    return this.push(Buffer.from(uvarint(value)));
  }

  /** A classic STRING: INT16 byte length, then UTF-8; null as length −1. */
  string(value: string | null): this {
    if (value === null) return this.int16(-1);
    const bytes = Buffer.from(value, 'utf8');
    if (bytes.length > 0x7fff) throw new RangeError(`a string of ${bytes.length} bytes is longer than Kafka's 32767`);
    return this.int16(bytes.length).push(bytes);
  }

  compactString(value: string): this {
    const bytes = Buffer.from(value, 'utf8');
    return this.uvarint(bytes.length + 1).push(bytes);
  }

  /** A compact array of `items`, each written by `write`; null writes a null array. */
  compactArray<T>(items: readonly T[] | null, write: (item: T) => void): this {
    if (items === null) return this.uvarint(0);
    this.uvarint(items.length + 1);
    for (const item of items) write(item);
    return this;
  }

  /** No tagged fields. */
  noTaggedFields(): this {
    return this.uvarint(0);
  }

  build(): Buffer {
    return Buffer.concat(this.parts);
  }

  private push(bytes: Buffer): this {
    this.parts.push(bytes);
    return this;
  }
}

/** Reads a flexible response body; a read past its end throws a RangeError naming `what`. */
export class CompactReader {
  private offset = 0;

  constructor(
    private readonly buffer: Buffer,
    /** What is read, for errors: `Metadata v12 response`. */
    private readonly what: string,
  ) {}

  int8(): number {
    return this.buffer.readInt8(this.take(1));
  }

  int16(): number {
    return this.buffer.readInt16BE(this.take(2));
  }

  int32(): number {
    return this.buffer.readInt32BE(this.take(4));
  }

  /** An INT64 as a number (offsets, exact up to 2^53; -1 stays -1). */
  int64(): number {
    return Number(this.buffer.readBigInt64BE(this.take(8)));
  }

  /** An INT64 as its decimal text, exact at any size (kafkajs's form of offsets). */
  int64Text(): string {
    return this.buffer.readBigInt64BE(this.take(8)).toString();
  }

  /** The next `length` bytes, as a view of the buffer read (not a copy). */
  bytes(length: number): Buffer {
    const start = this.take(length);
    return this.buffer.subarray(start, start + length);
  }

  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.buffer.readUInt8(this.take(1));
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new RangeError(`${this.what}: varint longer than 5 bytes`);
  }

  compactString(): string | null {
    const length = this.uvarint() - 1;
    if (length < 0) return null;
    const start = this.take(length);
    return this.buffer.toString('utf8', start, start + length);
  }

  /** Items of a compact array (a null array reads as empty). */
  compactArray<T>(read: () => T): T[] {
    const count = this.uvarint() - 1;
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(read());
    return items;
  }

  /** Skips a compact array of INT32 (a null array counts as empty) and returns how many it held, allocating nothing. */
  skipCompactInt32Array(): number {
    const count = Math.max(0, this.uvarint() - 1);
    this.take(4 * count);
    return count;
  }

  /** Kafka's textual form of a UUID: URL-safe base64 without padding. */
  uuid(): string {
    const start = this.take(16);
    return this.buffer.toString('base64url', start, start + 16);
  }

  skipTaggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.take(this.uvarint());
    }
  }

  private take(length: number): number {
    const at = this.offset;
    if (at + length > this.buffer.length) throw new RangeError(`${this.what} ends at byte ${this.buffer.length}; ${length} more needed at ${at}`);
    this.offset += length;
    return at;
  }
}

/**
 * A request of a flexible version and its response, in kafkajs's protocol shape for a kafkajs
 * broker's `send`. `body` writes the request body, behind `headroom` free bytes when it can (and
 * says so, as request-frame.ts reads `EncodedRequest`); `parse` defaults to the decoded response.
 */
export function flexibleRequest<T, P = T>(
  definition: { readonly apiKey: number; readonly apiVersion: number; readonly apiName: string },
  body: (headroom: number) => EncodedRequest,
  decode: (payload: Buffer) => T | Promise<T>,
  parse: (response: T) => Promise<P> = async (response) => response as unknown as P,
) {
  return {
    request: {
      ...definition,
      /** Read by request-frame.ts: flexible versions take request header v2. */
      flexible: true,
      encode: async (headroom = 0): Promise<EncodedRequest> => body(headroom),
    },
    response: {
      decode: async (payload: Buffer): Promise<T> => decode(payload),
      parse,
    },
  };
}
