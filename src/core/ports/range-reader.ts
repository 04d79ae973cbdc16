import { token } from './token';
import type { KafkaRecord } from '../record';

export interface RangeReadOptions {
  /** read_committed skips the records of aborted transactions, as a read_committed consumer does. */
  readonly isolationLevel: 'read_committed' | 'read_uncommitted';
  /** Bytes a fetch brings at most (one record batch larger than this still comes whole). */
  readonly maxBytes?: number;
}

/** One fetch's worth of a range read. */
export interface RangePage {
  /** The records in offset order (transaction markers and, read_committed, aborted records left out). */
  readonly records: readonly KafkaRecord[];
  /** Where the next page begins: past every offset this page covered, records or not. */
  readonly nextOffset: number;
  /**
   * Offsets the read jumped over because the log no longer held them: its start moved past the
   * position (retention, DeleteRecords) while reading. 0 almost always.
   */
  readonly skipped: number;
}

/** One fetch's worth of a digest read: each record's offset and digest (../record-digest.ts), the records themselves never kept. */
export interface DigestPage {
  readonly count: number;
  /** Offsets in order, `count` of them. */
  readonly offsets: Float64Array;
  /** Per record two 32-bit halves: record i at 2i and 2i + 1. */
  readonly digests: Uint32Array;
  readonly nextOffset: number;
  readonly skipped: number;
}

export interface DigestReadOptions extends RangeReadOptions {
  /** `count`: every digest 0, when only how many records there are is compared. */
  readonly mode: 'content' | 'count';
}

/**
 * Reads stretches of single partitions without a consumer group, a fetch at a time as the caller
 * pulls: nothing is read ahead of what the caller asked for, so a read holds at most one fetch in
 * memory. What `mirrorflow verify` and the flow's continuous verification compare.
 */
export interface RangeReader {
  readonly cluster: string;
  /**
   * The records of `topic`-`partition` from offset `from` up to `to` (exclusive), or up to the
   * log's end if that comes first. A `from` below the log's start begins at the start (the offsets
   * in between count as `skipped` on the first page).
   */
  read(topic: string, partition: number, from: number, to: number, options: RangeReadOptions): AsyncIterable<RangePage>;
  /**
   * As `read`, but each record as its offset and digest (`recordDigest` of ../record-digest.ts),
   * taken from the fetched bytes without decoding records into objects: what a comparison of
   * millions of records reads, in little memory.
   */
  readDigests(topic: string, partition: number, from: number, to: number, options: DigestReadOptions): AsyncIterable<DigestPage>;
  /** Per partition of `topic`, the first offset whose record's timestamp is at or after `timestamp` (the log's end when none is). */
  offsetsForTime(topic: string, timestamp: number): Promise<ReadonlyMap<number, number>>;
  close(): Promise<void>;
}

/** DI tokens of a flow's range readers, for its continuous verification. */
export const SourceRangeReader = token<RangeReader>('SourceRangeReader');
export const TargetRangeReader = token<RangeReader>('TargetRangeReader');
