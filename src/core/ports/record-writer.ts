import type { Observable } from 'rxjs';
import { recordBytes, type OutboundRecordBatch, type RecordHeader } from '../record';

/** A record to write to an explicit topic and partition. */
export interface OutboundRecord {
  readonly topic: string;
  readonly partition: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

/** What one write carries: records, or whole record batches forwarded from the source. */
export type OutboundItem = OutboundRecord | OutboundRecordBatch;

export function isRecordBatch(item: OutboundItem): item is OutboundRecordBatch {
  return (item as Partial<OutboundRecordBatch>).batch !== undefined;
}

/** Upper bound of a record's framing in a v2 batch (length, attributes, deltas, varint sizes). */
const RECORD_OVERHEAD_BYTES = 64;

/** About the bytes an item takes in a produce request, uncompressed: a forwarded batch's own size. */
export function outboundItemBytes(item: OutboundItem): number {
  return isRecordBatch(item) ? item.batch.bytes.length : recordBytes(item) + RECORD_OVERHEAD_BYTES;
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
export interface WriteOptions {
  /**
   * Called for each failure the writer retries on its own before the write settles (the rest of
   * a write some partitions of which were acknowledged, say), so the caller can report an outage
   * that such a write is living through.
   */
  readonly onRetry?: (error: unknown) => void;
}

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
