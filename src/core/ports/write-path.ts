import type { MonoTypeOperatorFunction, Observable } from '#rxjs';
import type { FlowBatch, OutboundItem, SourceBatch, TopicPartition } from '../record';
import type { PartitionOffsets } from './cluster-admin';
import type { SlotCount } from './record-source';

/**
 * Batches whose records the target acknowledged. `offsets[i]` is where the i-th item (across
 * batches, in order: each batch's records, or its forwarded record batches) landed; for a
 * forwarded record batch, where its first record landed. -1: the target refused the record,
 * or its slot was lost (exactly-once).
 */
export interface WrittenBatches {
  readonly batches: readonly FlowBatch[];
  readonly offsets: Float64Array;
}

/** A new assignment of the flow's source group, as the write path sees it. */
export interface Assignment {
  readonly partitions: readonly TopicPartition[];
  /** Whether this member still belongs to the assignment's generation (false: another may own its partitions now). */
  readonly stillMember: () => Promise<boolean>;
  /** Every partition of the topics the source consumer subscribes to, as they are when asked. */
  readonly subscribed: () => readonly TopicPartition[];
}

/** A partition this process has not fetched from in this run, about to start. */
export interface PartitionStart {
  readonly tp: TopicPartition;
  /** Its remote topic. */
  readonly remote: string;
  /** Its stored progress (the next offset to copy), when there is some. */
  readonly progress: number | undefined;
  /** Its source log's offsets (one answer per topic serves the partitions assigned together). */
  readonly sourceLog: () => Promise<PartitionOffsets | undefined>;
  /** Where the flow's `start` puts a partition without progress (`start: latest` is stored first). */
  readonly bySetting: () => Promise<number>;
}

/**
 * How a replication flow's records reach the target and how what the target acknowledged becomes
 * progress: at-least-once (records, then progress on its own), exactly-once (records and progress
 * in one transaction per slot) or preserved offsets (at-least-once, with each partition kept at
 * its source's offsets while that holds). The flow calls these at its steps, in this order, and
 * never asks which write path it has; each is one strategy of src/flow/replication.
 */
export interface WritePath {
  /** Exactly-once: the slots the source's group hands out whole; undefined for the others. */
  readonly slots: SlotCount | undefined;
  /** True when `write` takes a whole write and makes its produce rounds itself (in one transaction). */
  readonly writesWhole: boolean;

  /**
   * A new assignment, told when it comes; what it returns runs once the flow is ready, before the
   * assignment's progress is read: exactly-once claims its slots' producers (fencing their
   * earlier holders) and fences the ids nobody holds under a changed slot count. Preserved
   * offsets reads its markers again at the next start.
   */
  assigning(assignment: Assignment): Observable<never>;
  /** The assignment's progress was read (exactly-once stores a changed slot count). */
  assigned(partitions: readonly TopicPartition[]): Observable<never>;
  /** The member gave every partition up (exactly-once: the slots go with them). */
  revoked(): void;
  /** Where a partition starts: its progress, or the flow's `start`; preserved offsets decides from its markers and the target. */
  startAt(start: PartitionStart): Promise<number>;
  /**
   * Stores where a `start: latest` partition begins (`lastOffset`: the offset before its first
   * record, MM2's -1 for an empty one) before it is read. `flush` is the flow's progress flush,
   * one for the partitions assigned together.
   */
  storeStart(tp: TopicPartition, lastOffset: number, flush: () => Promise<void>): Promise<void>;

  /** A fetched batch, before it is mirrored (preserved offsets: a source offset without a record ends preservation). */
  fetched(batch: SourceBatch, remote: string): void;
  /** One write of `items`, the records of `batches`; emits where each item landed. */
  write(items: readonly OutboundItem[], batches: readonly FlowBatch[]): Observable<Float64Array>;
  /** An acknowledged write, once the failures of its batches' transforms are on the dead-letter topic too. */
  deadLetter(written: WrittenBatches): Observable<WrittenBatches>;
  /** False for an acknowledged batch that commits nothing (exactly-once: its slot was lost first). */
  commits(batch: FlowBatch): boolean;
  /**
   * An acknowledged batch of its partition's current log, before its progress is marked; its
   * items' target offsets start at `offsets[from]` (preserved offsets compares them with the source's).
   */
  acknowledged(batch: FlowBatch, offsets: Float64Array, from: number): void;
  /**
   * Stores what is marked: progress (not exactly-once, which stores it in the transactions) and,
   * first, anything progress must not pass (preserved offsets: its markers). `each` is applied to
   * every store (retries through an outage, or none); `stillMember` fences a member the group
   * moved on from.
   */
  flush(stillMember: (() => Promise<boolean>) | undefined, each: MonoTypeOperatorFunction<void>): Observable<void>;
}
