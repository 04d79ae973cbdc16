/**
 * The record types that travel through a flow.
 *
 * Offsets are JS numbers: Kafka offsets are int64, but a partition would need to take a million
 * records a second for 285 years to pass Number.MAX_SAFE_INTEGER. Adapters reject larger ones.
 * Keys and values use `null` where Kafka means null: a null value is a tombstone, and null and an
 * empty buffer are different things on the wire.
 */

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

/** Records fetched together from one source partition. */
export interface SourceBatch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly KafkaRecord[];
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
  readonly nextOffset: number;
  readonly highWatermark: number;
  readonly bytes: number;
  /** Source records read for this batch (before drops), for metrics. */
  readonly sourceRecords: number;
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
