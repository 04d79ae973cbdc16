/**
 * Decoder of a Fetch response's record set (kafkajs's fetch/v4/decodeMessages, which its Fetch
 * v4-v11 responses share), installed in place of kafkajs's own so that a consumer can take
 * record batches whole instead of decoded record by record.
 *
 *   RecordBatch header (61 bytes), then the records:
 *      0 BaseOffset int64        27 BaseTimestamp int64
 *      8 BatchLength int32       35 MaxTimestamp int64
 *     12 LeaderEpoch int32       43 ProducerId int64
 *     16 Magic int8              51 ProducerEpoch int16
 *     17 CRC uint32              53 BaseSequence int32
 *     21 Attributes int16        57 RecordCount int32
 *     23 LastOffsetDelta int32
 *
 * Which consumer asked for whole batches travels with the fetch response: the connections of a
 * consumer whose client forwards (connection-behaviour.ts) mark each response they receive with
 * the policy before kafkajs decodes it (`forwardBatchesOf`), every other consumer gets decoded
 * records exactly as before. A forwarded batch is handed to kafkajs as one pseudo-message whose
 * offset is the batch's last offset and whose batch context carries
 * what decoded records carry (first offset, last offset delta, producer id, transaction flag), so
 * kafkajs's own bookkeeping works on it unchanged: the fetch position moves past the batch, and
 * the read_committed filter (filter-aborted-messages.ts) drops it whole when its transaction was
 * aborted (a transactional batch belongs to one producer and one transaction).
 *
 * A batch is decoded instead of forwarded when forwarding it would not reproduce its records:
 * control batches (transaction markers, never replicated), LogAppendTime batches (each record's
 * timestamp is the batch's append time, which the target would not keep), batches with offset
 * gaps left by compaction (the target assigns offsets by count, and rejects a count that does not
 * match the offset range), and batches with the delete-horizon flag of the log cleaner.
 *
 * Small compressed batches are not forwarded as they are: Kafka takes one batch per partition per
 * produce request, and uncompressed batches can be joined into one cheaply (record-batch-join.ts),
 * but compressed ones each need a produce round of their own. Whether a partition's compressed
 * batches of a fetch are small is decided for all of them at once, by their average size
 * (`compressedGoWhole`). When the target takes any codec, a small one is inflated instead: its records are decompressed into an uncompressed batch with
 * the same header (all but the CRC, which the writer computes anyway), records byte for byte,
 * which is then forwarded and joined like any other uncompressed one — what decoding and re-encoding it would write, without a JavaScript object per
 * record. It keeps its codec and its bytes as fetched (`RawRecordBatch.fetched`): the writer
 * compresses the joined batch with that codec again, or writes a batch that goes alone as it was
 * fetched, so the target keeps the source's compression (produce-request.ts). When the target
 * compresses with a codec of its own, they are decoded and re-encoded.
 */
import type { RawRecordBatch } from '../../core/record';
import type { DecodedRecord } from './record-decoder';
import { kafkajsFetchDecoding, kafkajsLookupCodec, type KafkajsResponseDecoder } from './kafkajs-internals';

import {
  ATTRIBUTES_OFFSET,
  BATCH_HEADER_BYTES,
  CODEC_MASK,
  CONTROL_FLAG,
  DELETE_HORIZON_FLAG,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_APPEND_TIME_FLAG,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_COUNT_OFFSET,
  TRANSACTIONAL_FLAG,
} from './record-batch-layout';

const NOT_FORWARDED = LOG_APPEND_TIME_FLAG | CONTROL_FLAG | DELETE_HORIZON_FLAG;

export interface ForwardPolicy {
  /** Forward only batches with this codec (attributes bits 0-2); absent: any codec. */
  readonly codec?: number;
  /** Compressed batches smaller than this are inflated (without `codec`) or decoded. */
  readonly minCompressedBytes: number;
  /** Batches larger than this are decoded. */
  readonly maxBytes: number;
}

/** A forwarded batch as kafkajs's consumer sees it: one message, at the batch's last offset. */
export interface FetchedRecordBatch {
  readonly offset: string;
  readonly key: null;
  readonly value: null;
  readonly isControlRecord: false;
  readonly batchContext: {
    readonly firstOffset: string;
    readonly lastOffsetDelta: number;
    readonly producerId: string;
    readonly inTransaction: boolean;
    readonly isControlBatch: false;
  };
  readonly recordBatch: RawRecordBatch;
}

/** Fetch responses (the whole payload kafkajs decodes) whose record batches go whole where the policy allows. */
const forwarding = new WeakMap<Buffer, ForwardPolicy>();

/** Makes the record batches of `response`, a Fetch response about to be decoded, go whole where `policy` allows. */
export function forwardBatchesOf(response: Buffer, policy: ForwardPolicy): void {
  forwarding.set(response, policy);
}

export function isFetchedRecordBatch(message: unknown): message is FetchedRecordBatch {
  return (message as Partial<FetchedRecordBatch>).recordBatch !== undefined;
}

/**
 * Whether the compressed batches of one partition's record set go whole: when they are at least
 * `minCompressedBytes` on average. Decided for the record set, not batch by batch, so that a
 * partition's batches of one fetch are either all forwarded (a produce round each) or all
 * inflated and joined (one round), never alternating between the two (a round for each change).
 */
function compressedGoWhole(batches: readonly Buffer[], policy: ForwardPolicy): boolean {
  let count = 0;
  let total = 0;
  for (const bytes of batches) {
    const attributes = bytes.readInt16BE(ATTRIBUTES_OFFSET);
    const codec = attributes & CODEC_MASK;
    if (codec === 0 || (attributes & NOT_FORWARDED) !== 0 || (policy.codec !== undefined && codec !== policy.codec)) continue;
    count++;
    total += bytes.length;
  }
  return total >= policy.minCompressedBytes * count;
}

function forwardable(bytes: Buffer, policy: ForwardPolicy, compressedWhole: boolean): FetchedRecordBatch | undefined {
  const attributes = bytes.readInt16BE(ATTRIBUTES_OFFSET);
  if ((attributes & NOT_FORWARDED) !== 0) return undefined;
  const codec = attributes & CODEC_MASK;
  if (policy.codec !== undefined && codec !== policy.codec) return undefined;
  const compressed = codec !== 0;
  if (compressed && !compressedWhole) return undefined;
  if (bytes.length > policy.maxBytes) return undefined;
  const recordCount = bytes.readInt32BE(RECORD_COUNT_OFFSET);
  if (recordCount <= 0 || recordCount !== bytes.readInt32BE(LAST_OFFSET_DELTA_OFFSET) + 1) return undefined;
  const baseOffset = Number(bytes.readBigInt64BE(0));
  return {
    offset: String(baseOffset + recordCount - 1),
    key: null,
    value: null,
    isControlRecord: false,
    batchContext: {
      firstOffset: String(baseOffset),
      lastOffsetDelta: recordCount - 1,
      producerId: bytes.readBigInt64BE(PRODUCER_ID_OFFSET).toString(),
      inTransaction: (attributes & TRANSACTIONAL_FLAG) !== 0,
      isControlBatch: false,
    },
    recordBatch: { baseOffset, recordCount, compressed, maxTimestamp: Number(bytes.readBigInt64BE(MAX_TIMESTAMP_OFFSET)), bytes },
  };
}

/**
 * A small compressed batch as the uncompressed batch it holds, forwardable like one; undefined
 * when it is not a small compressed batch the policy forwards uncompressed, or would not be
 * forwarded once inflated (too large, offset gaps, a flag that keeps it from being forwarded).
 */
async function inflated(bytes: Buffer, policy: ForwardPolicy, compressedWhole: boolean): Promise<FetchedRecordBatch | undefined> {
  const attributes = bytes.readInt16BE(ATTRIBUTES_OFFSET);
  const codec = attributes & CODEC_MASK;
  if (policy.codec !== undefined || codec === 0 || compressedWhole || (attributes & NOT_FORWARDED) !== 0) return undefined;
  const records = await kafkajsLookupCodec()(codec).decompress(bytes.subarray(BATCH_HEADER_BYTES));
  const batch = Buffer.allocUnsafe(BATCH_HEADER_BYTES + records.length);
  bytes.copy(batch, 0, 0, BATCH_HEADER_BYTES);
  records.copy(batch, BATCH_HEADER_BYTES);
  batch.writeInt32BE(batch.length - 12, 8);
  batch.writeInt16BE(attributes & ~CODEC_MASK, ATTRIBUTES_OFFSET);
  // No CRC: the writer computes it anew once it has rewritten the producer fields.
  const whole = forwardable(batch, policy, false);
  return whole === undefined ? undefined : { ...whole, recordBatch: { ...whole.recordBatch, fetched: { codec, bytes } } };
}

/** Decodes the records of one whole v2 batch (as fetched) the way kafkajs's consumer would. */
export async function decodeRecordBatch(bytes: Buffer): Promise<DecodedRecord[]> {
  const { Decoder, decodeRecordBatch: decode } = kafkajsFetchDecoding();
  return (await decode(new Decoder(bytes))).records as DecodedRecord[];
}

/** The forwarding policy a Fetch response's payload was marked with (`forwardBatchesOf`); undefined: decoded records. */
export function forwardPolicyOf(payload: Buffer): ForwardPolicy | undefined {
  return forwarding.get(payload);
}

/** kafkajs's decoder of a Fetch v4–v11 partition's record set (RECORDS: an INT32 size, then the bytes). */
export async function decodeMessages(decoder: KafkajsResponseDecoder): Promise<unknown[]> {
  const size = decoder.readInt32();
  if (size <= 0 || !decoder.canReadBytes(size)) return [];
  // kafkajs decodes a Fetch response with one cursor over its payload, passed down to here.
  return decodeRecordSet(decoder.readBytes(size), forwarding.get(decoder.buffer));
}

/**
 * The messages of one partition's record set as fetched: whole batches where `policy` allows,
 * decoded records otherwise (and always for the old message format). Shared by kafkajs's Fetch
 * responses (`decodeMessages`) and ours by topic id (fetch-by-topic-id.ts).
 */
export async function decodeRecordSet(buffer: Buffer, policy: ForwardPolicy | undefined): Promise<unknown[]> {
  const kafkajs = kafkajsFetchDecoding();
  if (buffer.length <= MAGIC_OFFSET || buffer.readInt8(MAGIC_OFFSET) !== 2) return kafkajs.decodeMessageSet(new kafkajs.Decoder(buffer), buffer.length);
  const batches: Buffer[] = [];
  let position = 0;
  while (position + BATCH_HEADER_BYTES <= buffer.length) {
    const end = position + 12 + buffer.readInt32BE(position + 8);
    // The broker fills a fetch up to its byte limit, so the last batch may be cut short.
    if (end > buffer.length) break;
    batches.push(buffer.subarray(position, end));
    position = end;
  }
  const compressedWhole = policy !== undefined && compressedGoWhole(batches, policy);
  // Per batch: forwarded whole (inflated first, when a compressed one of a partition whose batches are small), or its records.
  const decoded = async (bytes: Buffer): Promise<FetchedRecordBatch | unknown[]> =>
    (policy === undefined ? undefined : await inflated(bytes, policy, compressedWhole)) ??
    (await kafkajs.decodeRecordBatch(new kafkajs.Decoder(bytes))).records;
  const pieces: (FetchedRecordBatch | Promise<FetchedRecordBatch | unknown[]>)[] = [];
  for (const bytes of batches) pieces.push((policy === undefined ? undefined : forwardable(bytes, policy, compressedWhole)) ?? decoded(bytes));
  // The codecs decompress off the main thread: the batches of a partition are decompressed side
  // by side, not one after another (a Java producer's default batches are small, hundreds per
  // fetch, and a decompression waited for alone leaves this thread idle). Order is kept.
  const messages: unknown[] = [];
  for (const piece of await Promise.all(pieces)) {
    if (!Array.isArray(piece)) messages.push(piece);
    else for (const record of piece) messages.push(record);
  }
  return messages;
}
