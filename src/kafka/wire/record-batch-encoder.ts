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

function zigzag32(n: number): number {
  return ((n << 1) ^ (n >> 31)) >>> 0;
}

function zigzag64(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1;
}

function unsignedVarintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

const varintSize = (n: number): number => unsignedVarintSize(zigzag32(n));
const varlongSize = (n: number): number => unsignedVarintSize(zigzag64(n));
const bytesSize = (b: Buffer | null): number => (b === null ? 1 : varintSize(b.length) + b.length);

function writeUnsignedVarint(buffer: Buffer, offset: number, n: number): number {
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
 * Copies a fetched v2 record batch into `target` at `offset` the way a producer would send it:
 * records, compression and timestamps stay byte for byte; the fields a producer owns are written
 * anew (base offset 0, no leader epoch, this producer's id, epoch and sequence, transactional
 * only if this producer is) and the CRC is computed again. Returns where the copy ends.
 */
export function writeForwardedBatch(fetched: Buffer, target: Buffer, offset: number, options: BatchOptions): number {
  const end = offset + fetched.copy(target, offset);
  const attributes = fetched.readInt16BE(21) & ~TRANSACTIONAL_FLAG;
  target.writeBigInt64BE(0n, offset);
  target.writeInt32BE(-1, offset + 12);
  target.writeInt16BE(attributes | (options.transactional ? TRANSACTIONAL_FLAG : 0), offset + 21);
  target.writeBigInt64BE(BigInt(options.producerId ?? -1), offset + 43);
  target.writeInt16BE(options.producerEpoch ?? -1, offset + 51);
  target.writeInt32BE(options.firstSequence ?? -1, offset + 53);
  target.writeUInt32BE(options.crc32c(target.subarray(offset + CRC_START, end)) >>> 0, offset + 17);
  return end;
}

/** Reads an unsigned varint at `at`; returns the value and where it ends. */
function readUnsignedVarint(buffer: Buffer, at: number): { value: number; end: number } {
  let value = 0;
  let scale = 1;
  let byte: number;
  do {
    if (at >= buffer.length) throw new RangeError('Truncated varint in a record batch.');
    byte = buffer[at++]!;
    value += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte >= 0x80);
  return { value, end: at };
}

const unzigzag = (n: number): number => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);

/**
 * Walks the records of uncompressed fetched batches as they will sit in the joined batch:
 * `visit(batch, recordStart, restStart, recordEnd, timestampDelta, index)` per record, where
 * `restStart..recordEnd` is the key, value and headers (copied unchanged) and the deltas are
 * against the joined batch's base timestamp and first offset.
 */
function forEachJoinedRecord(
  fetched: readonly Buffer[],
  baseTimestamp: number,
  visit: (batch: Buffer, restStart: number, recordEnd: number, timestampDelta: number, index: number, attributes: number) => void,
): void {
  let index = 0;
  for (const batch of fetched) {
    const batchBase = Number(batch.readBigInt64BE(27));
    const count = batch.readInt32BE(57);
    let at = HEADER_BYTES;
    for (let i = 0; i < count; i++) {
      const length = readUnsignedVarint(batch, at);
      const recordEnd = length.end + unzigzag(length.value);
      const attributes = batch[length.end]!;
      const timestamp = readUnsignedVarint(batch, length.end + 1);
      const offsetDelta = readUnsignedVarint(batch, timestamp.end);
      visit(batch, offsetDelta.end, recordEnd, batchBase + unzigzag(timestamp.value) - baseTimestamp, index++, attributes);
      at = recordEnd;
    }
  }
}

/** A joined batch, sized before it is written, so it can be written straight into a request. */
export interface JoinedBatch {
  /** Bytes of the whole batch, header included. */
  readonly size: number;
  /** Writes the batch into `target` at `offset`; returns where it ends. */
  writeTo(target: Buffer, offset: number): number;
}

/**
 * Joins uncompressed fetched batches of one partition, in order, into one batch as this producer
 * would send it (Kafka takes one batch per partition per produce request). Each record keeps its
 * key, value, headers and timestamp byte for byte; only its offset and timestamp deltas are
 * written anew against the joined batch, which is why compressed batches cannot be joined this
 * way. Sizing walks the records once and writing once more, so the produce request can place
 * the batch in its own buffer without a copy of its own.
 */
export function planJoinedBatch(fetched: readonly Buffer[], options: BatchOptions): JoinedBatch {
  const { baseTimestamp, maxTimestamp } = joinedTimestamps(fetched);
  let size = HEADER_BYTES;
  let count = 0;
  forEachJoinedRecord(fetched, baseTimestamp, (_batch, restStart, recordEnd, timestampDelta, index) => {
    const body = 1 + varlongSize(timestampDelta) + varintSize(index) + (recordEnd - restStart);
    size += varintSize(body) + body;
    count++;
  });
  const writeTo = (joined: Buffer, start: number): number => {
    writeJoinedRecords(fetched, baseTimestamp, joined, start + HEADER_BYTES);
    writeJoinedHeader(joined, start, { length: size - 12, codecBits: 0, count, baseTimestamp, maxTimestamp }, options);
    joined.writeUInt32BE(options.crc32c(joined.subarray(start + CRC_START, start + size)) >>> 0, start + 17);
    return start + size;
  };
  return { size, writeTo };
}

/** Smallest base timestamp and largest max timestamp of uncompressed fetched batches, and their record count. */
function joinedTimestamps(fetched: readonly Buffer[]): { baseTimestamp: number; maxTimestamp: number; count: number } {
  let baseTimestamp = Number.POSITIVE_INFINITY;
  let maxTimestamp = Number.NEGATIVE_INFINITY;
  let count = 0;
  for (const batch of fetched) {
    if ((batch.readInt16BE(21) & CODEC_MASK) !== 0) throw new Error('Only uncompressed record batches can be joined.');
    baseTimestamp = Math.min(baseTimestamp, Number(batch.readBigInt64BE(27)));
    maxTimestamp = Math.max(maxTimestamp, Number(batch.readBigInt64BE(35)));
    count += batch.readInt32BE(57);
  }
  return { baseTimestamp, maxTimestamp, count };
}

/** Writes the records of `fetched` as the joined batch holds them into `joined` from `offset`; returns where they end. */
function writeJoinedRecords(fetched: readonly Buffer[], baseTimestamp: number, joined: Buffer, offset: number): number {
  forEachJoinedRecord(fetched, baseTimestamp, (batch, restStart, recordEnd, timestampDelta, index, attributes) => {
    const body = 1 + varlongSize(timestampDelta) + varintSize(index) + (recordEnd - restStart);
    offset = writeUnsignedVarint(joined, offset, zigzag32(body));
    joined[offset++] = attributes;
    offset = writeUnsignedVarint(joined, offset, zigzag64(timestampDelta));
    offset = writeUnsignedVarint(joined, offset, zigzag32(index));
    offset += batch.copy(joined, offset, restStart, recordEnd);
  });
  return offset;
}

/** The header of a joined batch, all but its CRC, at `start` of `joined`. */
function writeJoinedHeader(
  joined: Buffer,
  start: number,
  batch: { readonly length: number; readonly codecBits: number; readonly count: number; readonly baseTimestamp: number; readonly maxTimestamp: number },
  options: BatchOptions,
): void {
  joined.writeBigInt64BE(0n, start);
  joined.writeInt32BE(batch.length, start + 8);
  joined.writeInt32BE(-1, start + 12);
  joined.writeInt8(2, start + 16);
  joined.writeInt16BE((batch.codecBits & CODEC_MASK) | (options.transactional ? TRANSACTIONAL_FLAG : 0), start + 21);
  joined.writeInt32BE(batch.count - 1, start + 23);
  joined.writeBigInt64BE(BigInt(batch.baseTimestamp), start + 27);
  joined.writeBigInt64BE(BigInt(batch.maxTimestamp), start + 35);
  joined.writeBigInt64BE(BigInt(options.producerId ?? -1), start + 43);
  joined.writeInt16BE(options.producerEpoch ?? -1, start + 51);
  joined.writeInt32BE(options.firstSequence ?? -1, start + 53);
  joined.writeInt32BE(batch.count, start + 57);
}

/**
 * Most bytes a record's framing can grow by when it is joined: its length (up to 5 bytes as a
 * varint), timestamp delta (up to 10) and offset delta (up to 5) are written anew, each at least
 * one byte before.
 */
const JOINED_RECORD_GROWTH = 4 + 9 + 4;

/**
 * Buffers the records of joined batches are written into before they are compressed, reused:
 * a joined batch is up to a produce request's size, and allocating one per partition and write
 * was most of the garbage the collector met on this path. Few are ever taken at once (one per
 * produce request being encoded), and at most `SCRATCH_KEPT` are kept.
 */
const scratch: Buffer[] = [];
const SCRATCH_KEPT = 4;
const SCRATCH_MIN_BYTES = 1 << 20;

function takeScratch(bytes: number): Buffer {
  for (let i = 0; i < scratch.length; i++) {
    if (scratch[i]!.length >= bytes) return scratch.splice(i, 1)[0]!;
  }
  return Buffer.allocUnsafe(Math.max(bytes, SCRATCH_MIN_BYTES));
}

function giveScratch(buffer: Buffer): void {
  if (scratch.length < SCRATCH_KEPT) scratch.push(buffer);
}

/** A joined batch compressed: its header (CRC included) and its compressed records, written one after the other. */
export interface CompressedJoinedBatch {
  readonly header: Buffer;
  readonly body: Buffer;
}

/**
 * The batch `planJoinedBatch` would make of `fetched`, with its records compressed as one block
 * by `codec` (attributes bits `codecBits`): what a producer compressing with that codec would
 * have sent. The records stay byte for byte. They are written once, into a reused buffer that
 * the codec reads (no sizing pass: the buffer has room for the most they can grow by), and the
 * compressed block is handed back beside its header, so the produce request copies it once.
 */
export async function compressJoinedBatch(fetched: readonly Buffer[], codecBits: number, codec: KafkajsCodec, options: BatchOptions): Promise<CompressedJoinedBatch> {
  const { baseTimestamp, maxTimestamp, count } = joinedTimestamps(fetched);
  let bound = 0;
  for (const batch of fetched) bound += batch.length - HEADER_BYTES;
  bound += count * JOINED_RECORD_GROWTH;
  const records = takeScratch(bound);
  let body: Buffer;
  try {
    const end = writeJoinedRecords(fetched, baseTimestamp, records, 0);
    if (end > bound) throw new RangeError('The records of a fetched record batch run past its end.');
    body = await codec.compress({ buffer: records.subarray(0, end) });
  } finally {
    // The codec has read the records once its promise settles, whichever way.
    giveScratch(records);
  }
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  writeJoinedHeader(header, 0, { length: HEADER_BYTES - 12 + body.length, codecBits, count, baseTimestamp, maxTimestamp }, options);
  header.writeUInt32BE(crc32cOf(options, header.subarray(CRC_START), body) >>> 0, 17);
  return { header, body };
}

/** CRC-32C of `first` then `second`, as if they were one buffer. */
function crc32cOf(options: BatchOptions, first: Buffer, second: Buffer): number {
  return options.crc32c(second, options.crc32c(first));
}

/** `planJoinedBatch`'s batch in a buffer of its own. */
export function joinForwardedBatches(fetched: readonly Buffer[], options: BatchOptions): Buffer {
  const plan = planJoinedBatch(fetched, options);
  const joined = Buffer.allocUnsafe(plan.size);
  plan.writeTo(joined, 0);
  return joined;
}
