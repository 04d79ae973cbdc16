/**
 * The record types that travel through a flow.
 *
 * Offsets are JS numbers: Kafka offsets are int64, but a partition would need to take a million
 * records a second for 285 years to pass Number.MAX_SAFE_INTEGER. Adapters reject larger ones.
 * Keys and values use `null` where Kafka means null: a null value is a tombstone, and null and an
 * empty buffer are different things on the wire.
 */
import type { RecordFailedError } from './errors';

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** One record header. Kafka allows repeated keys; order is part of the record. */
export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

/** A record as fetched from the source cluster. */
export interface KafkaRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Epoch milliseconds: CreateTime, or the broker's LogAppendTime for such topics. */
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/** Where a mirrored record came from. Never changed by transforms. */
export interface SourcePosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/**
 * A record on its way to the target: the source record plus the target topic and partition.
 * Transforms return a new object (or `undefined` to drop it); they never mutate one.
 */
export interface MirrorRecord {
  readonly source: SourcePosition;
  readonly topic: string;
  readonly partition: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/**
 * A v2 record batch exactly as the source broker returned it, forwarded to the target without
 * decoding its records: same records, same compression, same timestamps. Only batches whose
 * records sit at consecutive offsets are forwarded (the target assigns offsets by count), so
 * record `i` of the batch is at `baseOffset + i` on the source and at the target's base offset
 * plus `i` there.
 */
export interface RawRecordBatch {
  readonly baseOffset: number;
  readonly recordCount: number;
  /** Whether the records are compressed (then the batch can only be forwarded whole, on its own). */
  readonly compressed: boolean;
  /** Largest record timestamp (CreateTime), for replication latency. */
  readonly maxTimestamp: number;
  /** The whole batch, from its BaseOffset field to its last byte. */
  readonly bytes: Buffer;
}

/** Records fetched together from one source partition. */
export interface SourceBatch {
  readonly topic: string;
  readonly partition: number;
  /** The records, decoded. Empty when the batch travels as `recordBatches`. */
  readonly records: readonly KafkaRecord[];
  /**
   * Set when the source forwards record batches as fetched (flows without transforms): the
   * batch's records, in order, undecoded. `records` is then empty.
   */
  readonly recordBatches?: readonly RawRecordBatch[];
  /** Offset just after the last record the fetch covered (skipped control records included). */
  readonly nextOffset: number;
  /** The partition's high watermark when the batch was fetched (for lag). */
  readonly highWatermark: number;
  /** Approximate size of keys, values and headers, for flow control. */
  readonly bytes: number;
}

/**
 * A source batch after filtering, renaming and transforming. `records` may be shorter than the
 * source batch (drops) and may be empty; `nextOffset` still marks how far the source was read,
 * so progress moves past dropped records once everything before them is acknowledged.
 */
export interface FlowBatch {
  readonly source: TopicPartition;
  readonly records: readonly MirrorRecord[];
  /** The source's undecoded record batches, addressed to the target (then `records` is empty). */
  readonly recordBatches?: readonly OutboundRecordBatch[];
  readonly nextOffset: number;
  readonly highWatermark: number;
  readonly bytes: number;
  /** Source records read for this batch (before drops), for metrics. */
  readonly sourceRecords: number;
  /** Records that failed (errors.tolerance all): acknowledged on the dead-letter topic before the batch's progress counts. */
  readonly deadLetters?: readonly RecordFailure[];
  /**
   * With errors.tolerance none, the record that stopped the flow: the batch ends just before it
   * (`nextOffset` is its offset), and the flow fails once the batch is committed.
   */
  readonly failure?: RecordFailedError;
}

/**
 * A record that failed in the flow and goes to the dead-letter topic: the record as fetched from
 * the source (key, value, headers, timestamp untouched by transforms) and why it failed.
 */
export interface RecordFailure {
  readonly record: MirrorRecord;
  readonly error: RecordFailedError;
}

/** A forwarded record batch on its way to a target topic and partition. */
export interface OutboundRecordBatch {
  readonly topic: string;
  readonly partition: number;
  readonly batch: RawRecordBatch;
}

/** Records a flow batch carries, decoded or not. */
export function flowBatchRecordCount(batch: FlowBatch): number {
  if (batch.recordBatches === undefined) return batch.records.length;
  let n = 0;
  for (const b of batch.recordBatches) n += b.batch.recordCount;
  return n;
}

export function topicPartitionKey(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}

/** Byte size of one record's payload, as counted for batching and flow control. */
export function recordBytes(r: { key: Buffer | null; value: Buffer | null; headers: readonly RecordHeader[] }): number {
  let n = (r.key?.length ?? 0) + (r.value?.length ?? 0);
  for (const h of r.headers) n += h.key.length + (h.value?.length ?? 0);
  return n;
}
