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
  /**
   * The whole batch, from its BaseOffset field to its last byte. Its CRC is not to be trusted:
   * a small compressed batch arrives here inflated, and the writer computes every CRC anew
   * when it rewrites the producer fields.
   */
  readonly bytes: Buffer;
  /**
   * A small compressed batch arrives here inflated (`bytes` uncompressed, so that it can be joined
   * with others): its codec (attributes bits 0-2) and bytes as fetched. The writer compresses a
   * joined batch with that codec again, and writes a batch that goes alone as it was fetched, so
   * the target keeps the source's compression.
   */
  readonly fetched?: { readonly codec: number; readonly bytes: Buffer };
}

/*
 * What travels through a flow comes in two kinds, told apart by `kind`: decoded records
 * (`'records'`), or whole record batches forwarded as fetched (`'batches'`, flows without
 * transforms only). Code that must treat them differently switches on `kind`; the helpers below
 * answer the questions asked of either kind (record counts, first offset, newest timestamp,
 * offset-sync pairs), so the rest of the flow need not look.
 */

/** What every source batch says about the fetch it came from, whatever it carries. */
interface SourceBatchBase {
  readonly topic: string;
  readonly partition: number;
  /** Offset just after the last record the fetch covered (skipped control records included). */
  readonly nextOffset: number;
  /** The partition's high watermark when the batch was fetched (for lag). */
  readonly highWatermark: number;
  /** Approximate size of keys, values and headers, for flow control. */
  readonly bytes: number;
}

/** Records fetched together from one source partition, decoded. May be empty (a fetch that only moved the position). */
export interface DecodedSourceBatch extends SourceBatchBase {
  readonly kind: 'records';
  readonly records: readonly KafkaRecord[];
}

/** Whole record batches fetched together from one source partition, in order, undecoded. Never empty. */
export interface ForwardedSourceBatch extends SourceBatchBase {
  readonly kind: 'batches';
  readonly recordBatches: readonly RawRecordBatch[];
}

/** A run of one source partition's fetch: decoded records or whole record batches. */
export type SourceBatch = DecodedSourceBatch | ForwardedSourceBatch;

/** What every flow batch says about its source, whatever it carries. */
interface FlowBatchBase {
  readonly source: TopicPartition;
  /** How far the source was read: progress moves past dropped records once everything before them is acknowledged. */
  readonly nextOffset: number;
  readonly highWatermark: number;
  readonly bytes: number;
  /** Source records read for this batch (before drops), for metrics. */
  readonly sourceRecords: number;
}

/**
 * A decoded source batch after filtering, renaming and transforming. `records` may be shorter
 * than the source batch (drops) and may be empty.
 */
export interface DecodedFlowBatch extends FlowBatchBase {
  readonly kind: 'records';
  readonly records: readonly MirrorRecord[];
  /** Records that failed (errors.tolerance all): acknowledged on the dead-letter topic before the batch's progress counts. */
  readonly deadLetters?: readonly RecordFailure[];
  /**
   * With errors.tolerance none, the record that stopped the flow: the batch ends just before it
   * (`nextOffset` is its offset), and the flow fails once the batch is committed.
   */
  readonly failure?: RecordFailedError;
  /** `provenance.enabled`: records not written for what their provenance header says (counted, not dropped by transforms). */
  readonly provenance?: ProvenanceSkips;
}

/** Records of a batch a flow with provenance headers left out, and those it could not check. */
export interface ProvenanceSkips {
  /** Already on the target: their header's path holds it. */
  readonly loops: number;
  /** Delivered into the target first by another flow of the pipeline (a diamond). */
  readonly duplicates: number;
  /** Older than the diamond window: written without knowing whether another flow had delivered them. */
  readonly unchecked: number;
}

/** A forwarded source batch, its record batches addressed to the target. Transforms never see it. */
export interface ForwardedFlowBatch extends FlowBatchBase {
  readonly kind: 'batches';
  readonly recordBatches: readonly OutboundRecordBatch[];
}

/** A source batch on its way to the target. */
export type FlowBatch = DecodedFlowBatch | ForwardedFlowBatch;

/**
 * A record that failed in the flow and goes to the dead-letter topic: the record as fetched from
 * the source (key, value, headers, timestamp untouched by transforms) and why it failed.
 */
export interface RecordFailure {
  readonly record: MirrorRecord;
  readonly error: RecordFailedError;
}

/**
 * A record to write to an explicit topic and partition: a replicated record without its source
 * position (internal records have none), so a MirrorRecord is written as it is.
 */
export type OutboundRecord = Omit<MirrorRecord, 'source'>;

/** What one write carries: records, or whole record batches forwarded from the source. */
export type OutboundItem = OutboundRecord | OutboundRecordBatch;

/** A forwarded record batch on its way to a target topic and partition. */
export interface OutboundRecordBatch {
  readonly topic: string;
  readonly partition: number;
  readonly batch: RawRecordBatch;
}

/** Compile-time proof that a switch over a batch's `kind` handled every kind. */
function unknownKind(batch: never): never {
  throw new Error(`Unknown batch kind ${String((batch as { kind: unknown }).kind)}`);
}

/** Records of a run of whole record batches. */
function countRecords(recordBatches: readonly RawRecordBatch[]): number {
  let n = 0;
  for (const b of recordBatches) n += b.recordCount;
  return n;
}

/** Records a source batch carries, decoded or not. */
export function sourceBatchRecordCount(batch: SourceBatch): number {
  switch (batch.kind) {
    case 'records':
      return batch.records.length;
    case 'batches':
      return countRecords(batch.recordBatches);
    default:
      return unknownKind(batch);
  }
}

/** The offset of a source batch's first record; `nextOffset` for a batch without records. */
export function sourceBatchFirstOffset(batch: SourceBatch): number {
  switch (batch.kind) {
    case 'records':
      return batch.records[0]?.offset ?? batch.nextOffset;
    case 'batches':
      return batch.recordBatches[0]?.baseOffset ?? batch.nextOffset;
    default:
      return unknownKind(batch);
  }
}

/** Records a flow batch carries, decoded or not. */
export function flowBatchRecordCount(batch: FlowBatch): number {
  switch (batch.kind) {
    case 'records':
      return batch.records.length;
    case 'batches': {
      let n = 0;
      for (const b of batch.recordBatches) n += b.batch.recordCount;
      return n;
    }
    default:
      return unknownKind(batch);
  }
}

/** Items a flow batch adds to a write: one per record, or one per forwarded record batch. */
export function flowBatchItemCount(batch: FlowBatch): number {
  switch (batch.kind) {
    case 'records':
      return batch.records.length;
    case 'batches':
      return batch.recordBatches.length;
    default:
      return unknownKind(batch);
  }
}

/** Appends a flow batch's write items to `items`, in order: its records, or its forwarded record batches. */
export function pushFlowBatchItems(batch: FlowBatch, items: OutboundItem[]): void {
  switch (batch.kind) {
    case 'records':
      for (const r of batch.records) items.push(r);
      return;
    case 'batches':
      for (const b of batch.recordBatches) items.push(b);
      return;
    default:
      unknownKind(batch);
  }
}

/** Forwarded record batches a flow batch carries (0 for decoded records), for the batchesForwarded counter. */
export function flowBatchForwardedCount(batch: FlowBatch): number {
  return batch.kind === 'batches' ? batch.recordBatches.length : 0;
}

/** The records of a flow batch that go to the dead-letter topic; only decoded records are transformed, so only they fail. */
export function flowBatchDeadLetters(batch: FlowBatch): readonly RecordFailure[] | undefined {
  return batch.kind === 'records' ? batch.deadLetters : undefined;
}

/** The record that stops the flow after this batch (errors.tolerance none); only decoded records can fail. */
export function flowBatchFailure(batch: FlowBatch): RecordFailedError | undefined {
  return batch.kind === 'records' ? batch.failure : undefined;
}

/** The newest record timestamp of a flow batch (for replication latency); -Infinity without records. */
export function flowBatchNewestTimestamp(batch: FlowBatch): number {
  let newest = Number.NEGATIVE_INFINITY;
  switch (batch.kind) {
    case 'records':
      for (let i = 0; i < batch.records.length; i++) if (batch.records[i]!.timestamp > newest) newest = batch.records[i]!.timestamp;
      return newest;
    case 'batches':
      for (const { batch: whole } of batch.recordBatches) if (whole.maxTimestamp > newest) newest = whole.maxTimestamp;
      return newest;
    default:
      return unknownKind(batch);
  }
}

/**
 * Hands `sync` the source partition and the (source offset, target offset) pair of every record
 * of a written flow batch whose items got `offsets[from …]` (a forwarded batch's offset is its
 * first record's), and returns the index just after them. Items at offset -1 (refused by the
 * target, dead-lettered) give no pair.
 */
export function forEachOffsetPair(
  batch: FlowBatch,
  offsets: Float64Array,
  from: number,
  sync: (source: TopicPartition, sourceOffset: number, targetOffset: number) => void,
): number {
  let i = from;
  switch (batch.kind) {
    case 'records':
      for (const record of batch.records) {
        const target = offsets[i++]!;
        if (target >= 0) sync(batch.source, record.source.offset, target);
      }
      return i;
    case 'batches':
      for (const { batch: whole } of batch.recordBatches) {
        const target = offsets[i++]!;
        if (target >= 0) for (let k = 0; k < whole.recordCount; k++) sync(batch.source, whole.baseOffset + k, target + k);
      }
      return i;
    default:
      return unknownKind(batch);
  }
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
