import type { RecordHeader } from './record';

/** What a record is compared by: its content, never its topic, partition or offset. */
export interface RecordContent {
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/**
 * Writes a record's digest at `out[2 * at]` and `out[2 * at + 1]`; false when the record has no
 * copy to compare (the flow's transforms drop it).
 */
export type DigestInto = (record: RecordContent, out: Uint32Array, at: number) => boolean;

/**
 * 64 bits over a record's timestamp, key, value and headers in order (each length-prefixed, null
 * apart from empty, header keys as UTF-8): two MurmurHash3 (x86, 32-bit) streams with different
 * seeds over the same 32-bit words. Records are matched by it within a window of at most a few
 * million records, where two different records share 64 bits with a probability below 10^-6.
 * Not a cryptographic hash: it tells copies apart from damage, not from forgeries.
 *
 * The same digest is taken of a decoded record (`recordDigest`) and of a record read straight
 * from a fetched record batch (`RawDigest`, by src/kafka's range reader, which allocates nothing
 * per record): both feed the words below in the same order.
 */
export const recordDigest: DigestInto = (record, out, at) => {
  const d = RawDigest.begin(record.timestamp);
  d.bytes(record.key, 0, record.key === null ? -1 : record.key.length);
  d.bytes(record.value, 0, record.value === null ? -1 : record.value.length);
  d.word(record.headers.length);
  for (const header of record.headers) {
    d.utf8(header.key);
    d.bytes(header.value, 0, header.value === null ? -1 : header.value.length);
  }
  d.end(out, at);
  return true;
};

/** Every record the same: what is compared when only counts can be (records the flow changes in ways no one can redo). */
export const countOnly: DigestInto = (_record, out, at) => {
  out[2 * at] = 0;
  out[2 * at + 1] = 0;
  return true;
};

const SEED_1 = 0x9747b28c;
const SEED_2 = 0x3c6ef372;
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** One digest being taken, reused from record to record (single-threaded, never interleaved). */
export class RawDigest {
  private static readonly current = new RawDigest();
  private h1 = 0;
  private h2 = 0;
  private words = 0;

  /** Starts a record's digest with its timestamp. */
  static begin(timestamp: number): RawDigest {
    const d = RawDigest.current;
    d.h1 = SEED_1;
    d.h2 = SEED_2;
    d.words = 0;
    d.word(timestamp >>> 0);
    d.word(Math.floor(timestamp / 4294967296) >>> 0);
    return d;
  }

  word(value: number): void {
    let k = Math.imul(value, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    let a = this.h1 ^ k;
    a = (a << 13) | (a >>> 19);
    this.h1 = (Math.imul(a, 5) + 0xe6546b64) | 0;
    let b = this.h2 ^ k;
    b = (b << 13) | (b >>> 19);
    this.h2 = (Math.imul(b, 5) + 0xe6546b64) | 0;
    this.words++;
  }

  /** `length` bytes of `buffer` from `start`, length-prefixed; a length of -1 is null. */
  bytes(buffer: Uint8Array | null, start: number, length: number): void {
    if (buffer === null || length < 0) {
      this.word(0xffffffff);
      return;
    }
    this.word(length);
    const end = start + length;
    const whole = start + (length & ~3);
    for (let i = start; i < whole; i += 4) this.word(buffer[i]! | (buffer[i + 1]! << 8) | (buffer[i + 2]! << 16) | (buffer[i + 3]! << 24));
    if (whole < end) {
      let tail = 0;
      for (let i = end - 1; i >= whole; i--) tail = (tail << 8) | buffer[i]!;
      this.word(tail);
    }
  }

  /** A string as its UTF-8 bytes, length-prefixed: the same words as `bytes` of its encoding, without encoding it. */
  utf8(s: string): void {
    let length = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) length += 1;
      else if (c < 0x800) length += 2;
      else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        length += 4;
        i++;
      } else length += 3;
    }
    this.word(length);
    let acc = 0;
    let n = 0;
    const put = (byte: number): void => {
      acc |= byte << (8 * n);
      if (++n === 4) {
        this.word(acc);
        acc = 0;
        n = 0;
      }
    };
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) put(c);
      else if (c < 0x800) {
        put(0xc0 | (c >> 6));
        put(0x80 | (c & 0x3f));
      } else {
        if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
          c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
          put(0xf0 | (c >> 18));
          put(0x80 | ((c >> 12) & 0x3f));
        } else {
          // A lone surrogate is encoded as Buffer.from encodes it: U+FFFD.
          if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
          put(0xe0 | (c >> 12));
        }
        put(0x80 | ((c >> 6) & 0x3f));
        put(0x80 | (c & 0x3f));
      }
    }
    if (n > 0) this.word(acc >>> 0);
  }

  /** Ends the digest into `out[2 * at]`, `out[2 * at + 1]`. */
  end(out: Uint32Array, at: number): void {
    out[2 * at] = fmix(this.h1 ^ this.words);
    out[2 * at + 1] = fmix(this.h2 ^ this.words);
  }
}

function fmix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
