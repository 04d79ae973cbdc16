import { token } from './token';
import type { Observable } from '#rxjs';
import type { RecordRefusedError } from '../errors';
import { recordBytes, type OutboundItem, type OutboundRecord, type OutboundRecordBatch } from '../record';

// Defined beside the flow batches they are made of; writers and their callers import them from here.
export type { OutboundItem, OutboundRecord } from '../record';

export function isRecordBatch(item: OutboundItem): item is OutboundRecordBatch {
  return (item as Partial<OutboundRecordBatch>).batch !== undefined;
}

/**
 * What a partition's items in one produce request must have in common: Kafka takes one record
 * batch per partition per request, which the writer makes of records, or of uncompressed
 * forwarded batches (joined), or of a single compressed forwarded batch.
 */
export type OutboundItemKind = 'records' | 'uncompressed' | 'compressed';

export function outboundItemKind(item: OutboundItem): OutboundItemKind {
  if (!isRecordBatch(item)) return 'records';
  return item.batch.compressed ? 'compressed' : 'uncompressed';
}

/** Upper bound of a record's framing in a v2 batch (length, attributes, deltas, varint sizes). */
const RECORD_OVERHEAD_BYTES = 64;

/** About the bytes an item takes in a produce request, uncompressed: a forwarded batch's own size. */
export function outboundItemBytes(item: OutboundItem): number {
  return isRecordBatch(item) ? item.batch.bytes.length : recordBytes(item) + RECORD_OVERHEAD_BYTES;
}

/** A record the target refused on its own, permanently (larger than its topic takes). */
export interface RefusedRecord {
  /** The item of the write. */
  readonly index: number;
  /** The record's place in a forwarded batch; 0 for a record item. */
  readonly offsetInBatch: number;
  /** The record, decoded from its forwarded batch where it came in one. */
  readonly record: OutboundRecord;
  readonly error: RecordRefusedError;
}

export interface WriteOptions {
  /**
   * Takes the records the target refuses on their own, permanently; the write goes on without
   * them (a forwarded batch holding one is narrowed to its records, so only that one is left
   * out) and their item's offset is -1. Without it, such a record fails the write with a
   * RecordRefusedError. Retriable failures are retried as always, never handed here.
   */
  readonly onRefused?: (refused: RefusedRecord) => void;
  /**
   * Called for each failure the writer retries on its own before the write settles (the rest of
   * a write some partitions of which were acknowledged, say), so the caller can report an outage
   * that such a write is living through.
   */
  readonly onRetry?: (error: unknown) => void;
}

export type Compression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/**
 * Writes records with acks=all. One `write` is one produce round (one request per broker), unless
 * the target refuses a partition's batch as larger than its topic takes (`max.message.bytes`):
 * then that partition's items go in several rounds, in order. Records of one partition keep their
 * order. Kafka takes one record batch per partition per produce request, so in one write a
 * partition gets either records, or one forwarded batch, or uncompressed forwarded batches
 * (joined into one).
 */
export interface RecordWriter {
  readonly cluster: string;
  /**
   * Emits once, after every record was acknowledged by all in-sync replicas, with the offset
   * each item got on its partition (same order as `items`; for a forwarded batch, the offset
   * of its first record); errors if any write failed.
   */
  write(items: readonly OutboundItem[], options?: WriteOptions): Observable<Float64Array>;
  close(): Promise<void>;
}

/*
 * DI tokens of a flow's writers, one per role: each role is a producer of its own (its client id
 * names the role in broker logs and quotas) with its own compression.
 */
/** Replicated records on the target. */
export const ReplicationWriter = token<RecordWriter>('ReplicationWriter');
/** The Connect offsets topic on the target. */
export const ProgressWriter = token<RecordWriter>('ProgressWriter');
/** The offset-syncs topic, on the cluster `offset_syncs.location` names. */
export const OffsetSyncsWriter = token<RecordWriter>('OffsetSyncsWriter');
/** The dead-letter topic on the target. */
export const DeadLetterWriter = token<RecordWriter>('DeadLetterWriter');
/** The checkpoints topic on the target. */
export const CheckpointsWriter = token<RecordWriter>('CheckpointsWriter');
/** The heartbeats topic on the target. */
export const HeartbeatsWriter = token<RecordWriter>('HeartbeatsWriter');
