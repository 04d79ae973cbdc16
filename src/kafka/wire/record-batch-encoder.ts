/**
 * Encodes the records of one partition into a v2 record batch, in a single buffer.
 *
 *   RecordBatch =>
 *     BaseOffset           int64  (0; the broker assigns offsets)
 *     BatchLength          int32  (bytes after this field)
 *     PartitionLeaderEpoch int32  (-1)
 *     Magic                int8   (2)
 *     CRC                  uint32 (CRC-32C of everything from Attributes to the end)
 *     Attributes           int16  (bits 0-2 compression, bit 4 transactional; CreateTime)
 *     LastOffsetDelta      int32
 *     BaseTimestamp        int64  (smallest record timestamp)
 *     MaxTimestamp         int64
 *     ProducerId           int64  (-1 unless idempotent)
 *     ProducerEpoch        int16
 *     BaseSequence         int32
 *     RecordCount          int32
 *     Records              (compressed as one block when compression is set)
 *
 * Each record is laid out as in record-decoder.ts. Why not kafkajs's encoder: it allocates one
 * encoder per record, sorts timestamps as strings, replaces a timestamp of 0 with "now", folds
 * headers into an object (losing their order) and cannot write a null header value. Replication
 * needs every one of those right.
 */
import type { RecordHeader } from '../../core/record';
import type { KafkajsCodec } from './kafkajs-internals';
import { ATTRIBUTES_OFFSET, BATCH_HEADER_BYTES, CODEC_MASK, TRANSACTIONAL_FLAG } from './record-batch-layout';
import { BodyWriter } from './gathered-writes';

export interface OutgoingMessage {
  readonly key?: Buffer | string | null;
  readonly value: Buffer | string | null;
  /** Ordered header list (mirrorflow), or kafkajs's object form (other callers). */
  readonly headers?: readonly RecordHeader[] | Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;
  readonly timestamp?: string | number;
}

export interface BatchOptions {
  readonly compression: number;
  readonly codec?: KafkajsCodec;
  /** CRC-32C of `buffer`, continuing from `initial` (the CRC of what comes before it) when given. */
  readonly crc32c: (buffer: Buffer, initial?: number) => number;
  readonly producerId?: number;
  readonly producerEpoch?: number;
  readonly firstSequence?: number;
  readonly transactional?: boolean;
  readonly now?: number;
}

const HEADER_BYTES = BATCH_HEADER_BYTES;
const CRC_START = ATTRIBUTES_OFFSET;

interface NormalisedHeader {
  readonly key: Buffer;
  readonly value: Buffer | null;
}

function toBytes(value: Buffer | string | null | undefined): Buffer | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

/** Header keys repeat across records; encoding each one once saves an allocation per header. */
const headerKeyCache = new Map<string, Buffer>();
const HEADER_KEY_CACHE_LIMIT = 10_000;

function headerKeyBytes(key: string): Buffer {
  let bytes = headerKeyCache.get(key);
  if (bytes === undefined) {
    bytes = Buffer.from(key, 'utf8');
    if (headerKeyCache.size >= HEADER_KEY_CACHE_LIMIT) headerKeyCache.clear();
    headerKeyCache.set(key, bytes);
  }
  return bytes;
}

const NO_HEADERS: NormalisedHeader[] = [];

function normaliseHeaders(headers: OutgoingMessage['headers']): NormalisedHeader[] {
  if (headers === undefined) return NO_HEADERS;
  if (Array.isArray(headers)) {
    const list = headers as readonly RecordHeader[];
    if (list.length === 0) return NO_HEADERS;
    const out = new Array<NormalisedHeader>(list.length);
    for (let i = 0; i < list.length; i++) out[i] = { key: headerKeyBytes(list[i]!.key), value: list[i]!.value };
    return out;
  }
  const out: NormalisedHeader[] = [];
  for (const [key, raw] of Object.entries(headers as Record<string, Buffer | string | (Buffer | string)[] | undefined>)) {
    if (raw === undefined) continue;
    const keyBytes = Buffer.from(key, 'utf8');
    for (const value of Array.isArray(raw) ? raw : [raw]) out.push({ key: keyBytes, value: toBytes(value) });
  }
  return out;
}

export function zigzag32(n: number): number {
  return ((n << 1) ^ (n >> 31)) >>> 0;
}

export function zigzag64(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

export function unsignedVarintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

export const varintSize = (n: number): number => unsignedVarintSize(zigzag32(n));
export const varlongSize = (n: number): number => unsignedVarintSize(zigzag64(n));
const bytesSize = (b: Buffer | null): number => (b === null ? 1 : varintSize(b.length) + b.length);

export function writeUnsignedVarint(buffer: Buffer, offset: number, n: number): number {
  while (n >= 128) {
    buffer[offset++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  buffer[offset++] = n;
  return offset;
}

function writeBytes(buffer: Buffer, offset: number, b: Buffer | null): number {
  if (b === null) return writeUnsignedVarint(buffer, offset, 1); // zigzag(-1)
  offset = writeUnsignedVarint(buffer, offset, zigzag32(b.length));
  b.copy(buffer, offset);
  return offset + b.length;
}

interface Prepared {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: NormalisedHeader[];
  readonly timestamp: number;
  bodySize: number;
}

interface PreparedRecords {
  readonly prepared: Prepared[];
  readonly size: number;
  readonly baseTimestamp: number;
  readonly maxTimestamp: number;
}

/** Normalises the records and sizes them, so they can be written into one exact buffer. */
function prepareRecords(messages: readonly OutgoingMessage[], now: number): PreparedRecords {
  const prepared: Prepared[] = new Array<Prepared>(messages.length);
  let baseTimestamp = Number.POSITIVE_INFINITY;
  let maxTimestamp = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const ts = m.timestamp === undefined || m.timestamp === null || m.timestamp === '' ? now : Number(m.timestamp);
    const timestamp = ts < 0 ? now : ts; // -1 means "no timestamp": the producer stamps it, as Java's does
    if (timestamp < baseTimestamp) baseTimestamp = timestamp;
    if (timestamp > maxTimestamp) maxTimestamp = timestamp;
    prepared[i] = { key: toBytes(m.key), value: toBytes(m.value), headers: normaliseHeaders(m.headers), timestamp, bodySize: 0 };
  }
  if (messages.length === 0) baseTimestamp = maxTimestamp = now;
  let total = 0;
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i]!;
    let size = 1 + varlongSize(p.timestamp - baseTimestamp) + varintSize(i) + bytesSize(p.key) + bytesSize(p.value) + varintSize(p.headers.length);
    for (const h of p.headers) size += bytesSize(h.key) + bytesSize(h.value);
    p.bodySize = size;
    total += varintSize(size) + size;
  }
  return { prepared, size: total, baseTimestamp, maxTimestamp };
}

/** Writes prepared records into `target` from `offset`. */
function writeRecords({ prepared, baseTimestamp }: PreparedRecords, target: Buffer, offset: number): void {
  const records = target;
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i]!;
    offset = writeUnsignedVarint(records, offset, zigzag32(p.bodySize));
    records[offset++] = 0; // attributes
    offset = writeUnsignedVarint(records, offset, zigzag64(p.timestamp - baseTimestamp));
    offset = writeUnsignedVarint(records, offset, zigzag32(i));
    offset = writeBytes(records, offset, p.key);
    offset = writeBytes(records, offset, p.value);
    offset = writeUnsignedVarint(records, offset, zigzag32(p.headers.length));
    for (const h of p.headers) {
      offset = writeBytes(records, offset, h.key);
      offset = writeBytes(records, offset, h.value);
    }
  }
}

export async function encodeRecordBatch(messages: readonly OutgoingMessage[], options: BatchOptions): Promise<Buffer> {
  const now = options.now ?? Date.now();
  const records = prepareRecords(messages, now);
  const { baseTimestamp, maxTimestamp } = records;
  const codecBits = options.compression & CODEC_MASK;
  let batch: Buffer;
  if (codecBits === 0) {
    // Uncompressed: records go straight into the batch, no intermediate copy.
    batch = Buffer.allocUnsafe(HEADER_BYTES + records.size);
    writeRecords(records, batch, HEADER_BYTES);
  } else {
    if (!options.codec) throw new Error(`No codec registered for compression type ${codecBits}.`);
    const raw = Buffer.allocUnsafe(records.size);
    writeRecords(records, raw, 0);
    const body = await options.codec.compress({ buffer: raw });
    batch = Buffer.allocUnsafe(HEADER_BYTES + body.length);
    body.copy(batch, HEADER_BYTES);
  }
  batch.writeBigInt64BE(0n, 0);
  batch.writeInt32BE(batch.length - 12, 8);
  batch.writeInt32BE(-1, 12);
  batch.writeInt8(2, 16);
  batch.writeInt16BE(codecBits | (options.transactional ? TRANSACTIONAL_FLAG : 0), 21);
  batch.writeInt32BE(messages.length - 1, 23);
  batch.writeBigInt64BE(BigInt(baseTimestamp), 27);
  batch.writeBigInt64BE(BigInt(maxTimestamp), 35);
  batch.writeBigInt64BE(BigInt(options.producerId ?? -1), 43);
  batch.writeInt16BE(options.producerEpoch ?? -1, 51);
  batch.writeInt32BE(options.firstSequence ?? -1, 53);
  batch.writeInt32BE(messages.length, 57);
  batch.writeUInt32BE(options.crc32c(batch.subarray(CRC_START)) >>> 0, 17);
  return batch;
}

/**
 * Writes a fetched v2 record batch with `writer` the way a producer would send it: records,
 * compression and timestamps stay byte for byte (placed by the writer: copied, or referred to
 * where it gathers); the fields a producer owns are written anew into its copy of the header
 * (base offset 0, no leader epoch, this producer's id, epoch and sequence, transactional only if
 * this producer is) and the CRC is computed again.
 */
export function writeForwardedBatch(fetched: Buffer, writer: BodyWriter, options: BatchOptions): void {
  const target = writer.own;
  const offset = writer.offset;
  writer.place(fetched, 0, HEADER_BYTES);
  const attributes = fetched.readInt16BE(21) & ~TRANSACTIONAL_FLAG;
  target.writeBigInt64BE(0n, offset);
  target.writeInt32BE(-1, offset + 12);
  target.writeInt16BE(attributes | (options.transactional ? TRANSACTIONAL_FLAG : 0), offset + 21);
  target.writeBigInt64BE(BigInt(options.producerId ?? -1), offset + 43);
  target.writeInt16BE(options.producerEpoch ?? -1, offset + 51);
  target.writeInt32BE(options.firstSequence ?? -1, offset + 53);
  const covered = writer.markAt(offset + CRC_START);
  writer.place(fetched, HEADER_BYTES, fetched.length);
  target.writeUInt32BE(writer.crc32cSince(covered, options.crc32c) >>> 0, offset + 17);
}

/** Bytes `writeForwardedBatch` copies of `fetched` into its writer's own buffer. */
export function forwardedBatchOwnBytes(fetched: Buffer, gather: boolean): number {
  return BodyWriter.refers(gather, fetched.length - HEADER_BYTES) ? HEADER_BYTES : fetched.length;
}
