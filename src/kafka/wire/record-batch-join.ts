/**
 * Joins uncompressed fetched record batches of one partition into the one batch a produce
 * request takes per partition (Kafka takes one), as this producer would have sent their records:
 * keys, values, headers and timestamps byte for byte, only the offset and timestamp deltas
 * written anew. The join is written straight into a produce request (`planJoinedBatch`), or, for
 * batches that were compressed at the source, compressed again with their codec
 * (`compressJoinedBatch`). The batch layout is in record-batch-encoder.ts.
 */
import type { KafkajsCodec } from './kafkajs-internals';
import { BodyWriter } from './gathered-writes';
import { ATTRIBUTES_OFFSET, BATCH_HEADER_BYTES, CODEC_MASK, TRANSACTIONAL_FLAG } from './record-batch-layout';
import { varintSize, varlongSize, writeUnsignedVarint, zigzag32, zigzag64, type BatchOptions } from './record-batch-encoder';

const HEADER_BYTES = BATCH_HEADER_BYTES;
const CRC_START = ATTRIBUTES_OFFSET;

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
  /** Bytes of it a writer copies into its own buffer (all but the records' long runs it refers to, when it gathers). */
  ownBytes(gather: boolean): number;
  /** Writes the batch with `writer`. */
  writeTo(writer: BodyWriter): void;
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
  /** Bytes of the records' key-value-headers runs long enough to be referred to by a writer that gathers. */
  let longRuns = 0;
  forEachJoinedRecord(fetched, baseTimestamp, (_batch, restStart, recordEnd, timestampDelta, index) => {
    const body = 1 + varlongSize(timestampDelta) + varintSize(index) + (recordEnd - restStart);
    size += varintSize(body) + body;
    if (BodyWriter.refers(true, recordEnd - restStart)) longRuns += recordEnd - restStart;
    count++;
  });
  const writeTo = (writer: BodyWriter): void => {
    const start = writer.offset;
    writeJoinedHeader(writer.own, start, { length: size - 12, codecBits: 0, count, baseTimestamp, maxTimestamp }, options);
    writer.offset += HEADER_BYTES;
    const covered = writer.markAt(start + CRC_START);
    writeJoinedRecords(fetched, baseTimestamp, writer);
    writer.own.writeUInt32BE(writer.crc32cSince(covered, options.crc32c) >>> 0, start + 17);
  };
  return { size, ownBytes: (gather) => (gather ? size - longRuns : size), writeTo };
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

/**
 * Writes the records of `fetched` as the joined batch holds them with `writer`: each record's
 * framing anew into the writer's own buffer, its key, value and headers placed (copied, or
 * referred to where the writer gathers).
 */
function writeJoinedRecords(fetched: readonly Buffer[], baseTimestamp: number, writer: BodyWriter): void {
  const own = writer.own;
  forEachJoinedRecord(fetched, baseTimestamp, (batch, restStart, recordEnd, timestampDelta, index, attributes) => {
    const body = 1 + varlongSize(timestampDelta) + varintSize(index) + (recordEnd - restStart);
    let offset = writeUnsignedVarint(own, writer.offset, zigzag32(body));
    own[offset++] = attributes;
    offset = writeUnsignedVarint(own, offset, zigzag64(timestampDelta));
    writer.offset = writeUnsignedVarint(own, offset, zigzag32(index));
    writer.place(batch, restStart, recordEnd);
  });
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
export async function compressJoinedBatch(
  fetched: readonly Buffer[],
  codecBits: number,
  codec: KafkajsCodec,
  options: BatchOptions,
): Promise<CompressedJoinedBatch> {
  const { baseTimestamp, maxTimestamp, count } = joinedTimestamps(fetched);
  let bound = 0;
  for (const batch of fetched) bound += batch.length - HEADER_BYTES;
  bound += count * JOINED_RECORD_GROWTH;
  const records = takeScratch(bound);
  let body: Buffer;
  try {
    const writer = new BodyWriter(records, false);
    writeJoinedRecords(fetched, baseTimestamp, writer);
    if (writer.offset > bound) throw new RangeError('The records of a fetched record batch run past its end.');
    body = await codec.compress({ buffer: records.subarray(0, writer.offset) });
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
  const writer = new BodyWriter(Buffer.allocUnsafe(plan.size), false);
  plan.writeTo(writer);
  return writer.finish().head;
}
