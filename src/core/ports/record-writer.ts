import type { Observable } from 'rxjs';
import type { RecordHeader } from '../record';

/** A record to write to an explicit topic and partition. */
export interface OutboundRecord {
  readonly topic: string;
  readonly partition: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

export type Compression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/**
 * Writes records with acks=all. One `write` is one produce round (one request per broker);
 * records of one partition keep their order.
 */
export interface RecordWriter {
  readonly cluster: string;
  /**
   * Emits once, after every record was acknowledged by all in-sync replicas, with the offset
   * each record got on its partition (same order as `records`); errors if any write failed.
   */
  write(records: readonly OutboundRecord[]): Observable<Float64Array>;
  close(): Promise<void>;
}
