/**
 * When to write an offset sync: MM2's `OffsetSyncWriter` and its `PartitionState`, as a pure
 * class. The flow calls `update` once per replicated record after the target acknowledged it,
 * in offset order per partition; it sends `takePending()` to the offset-syncs topic and calls
 * `promoteDelayed()` after each progress flush (MM2 does so in `commit()` after Connect's offset
 * flush), so a quiet partition still gets its latest position synced about one flush later.
 *
 * A record triggers a sync when its partition has had none yet, when it skipped upstream offsets
 * (gaps, rewinds), when the target offset went backwards (topic truncated or recreated), or when
 * the target has moved `offsetLagMax` or more past the last sync. Otherwise it becomes the
 * partition's "delayed" sync. At most one pending and one delayed sync exist per partition; a
 * newer one replaces the older in place, so pending syncs keep Java `LinkedHashMap` order.
 */
import type { TopicPartition } from '../../core/record';
import type { OffsetSync } from '../../formats';

/** `offset.lag.max` default. */
export const DEFAULT_OFFSET_LAG_MAX = 100;

/** MM2's `OffsetSyncWriter.PartitionState`: the sync decision for one partition. */
export class PartitionSyncState {
  previousUpstreamOffset = -1;
  previousDownstreamOffset = -1;
  lastSyncDownstreamOffset = -1;
  /** Stays true until `reset()`, as in MM2. */
  shouldSyncOffsets = false;

  constructor(readonly offsetLagMax: number) {}

  update(upstreamOffset: number, downstreamOffset: number): boolean {
    const noPreviousSyncThisLifetime = this.lastSyncDownstreamOffset === -1;
    const translatedOffsetTooStale = downstreamOffset - (this.lastSyncDownstreamOffset + 1) >= this.offsetLagMax;
    const skippedUpstreamRecord = upstreamOffset - this.previousUpstreamOffset !== 1;
    const truncatedDownstreamTopic = downstreamOffset < this.previousDownstreamOffset;
    if (noPreviousSyncThisLifetime || translatedOffsetTooStale || skippedUpstreamRecord || truncatedDownstreamTopic) {
      this.lastSyncDownstreamOffset = downstreamOffset;
      this.shouldSyncOffsets = true;
    }
    this.previousUpstreamOffset = upstreamOffset;
    this.previousDownstreamOffset = downstreamOffset;
    return this.shouldSyncOffsets;
  }

  reset(): void {
    this.shouldSyncOffsets = false;
  }
}

/** A partition's state plus its queued syncs, kept as numbers so `update` allocates nothing. */
class PartitionEntry extends PartitionSyncState {
  pendingUpstream = 0;
  pendingDownstream = 0;
  delayedUpstream = 0;
  delayedDownstream = 0;

  constructor(
    readonly topicPartition: TopicPartition,
    offsetLagMax: number,
  ) {
    super(offsetLagMax);
  }
}

export interface OffsetSyncWriterOptions {
  /** `offset.lag.max`: how far the target may move past the last sync before a new one. */
  readonly offsetLagMax?: number;
}

export class OffsetSyncWriter {
  readonly offsetLagMax: number;
  // topic → partition → entry: looked up without building a key string per record.
  private readonly partitions = new Map<string, Map<number, PartitionEntry>>();
  // Sets iterate in insertion order and keep an element's place when it is added again, which is
  // exactly how MM2's LinkedHashMaps behave under put().
  private readonly pending = new Set<PartitionEntry>();
  private readonly delayed = new Set<PartitionEntry>();

  constructor(options: OffsetSyncWriterOptions = {}) {
    const lag = options.offsetLagMax ?? DEFAULT_OFFSET_LAG_MAX;
    if (!Number.isSafeInteger(lag)) throw new RangeError(`offsetLagMax must be an integer, got ${lag}`);
    this.offsetLagMax = lag;
  }

  /**
   * Records that source `upstreamOffset` of `tp` was written to the target at `downstreamOffset`.
   * Returns true when that made a pending sync (MM2's `maybeQueueOffsetSyncs`).
   */
  update(tp: TopicPartition, upstreamOffset: number, downstreamOffset: number): boolean {
    const entry = this.partitions.get(tp.topic)?.get(tp.partition) ?? this.addPartition(tp);
    if (entry.update(upstreamOffset, downstreamOffset)) {
      entry.pendingUpstream = upstreamOffset;
      entry.pendingDownstream = downstreamOffset;
      this.delayed.delete(entry);
      this.pending.add(entry);
      entry.reset();
      return true;
    }
    entry.delayedUpstream = upstreamOffset;
    entry.delayedDownstream = downstreamOffset;
    this.delayed.add(entry);
    return false;
  }

  /** Makes every delayed sync pending (MM2's `promoteDelayedOffsetSyncs`, run after an offset flush). */
  promoteDelayed(): void {
    for (const entry of this.delayed) {
      entry.pendingUpstream = entry.delayedUpstream;
      entry.pendingDownstream = entry.delayedDownstream;
      this.pending.add(entry);
    }
    this.delayed.clear();
  }

  /**
   * Removes and returns up to `limit` pending syncs, oldest partition first. `limit` plays the
   * part of MM2's semaphore of outstanding sends (10): pass the free send slots.
   */
  takePending(limit: number = Number.POSITIVE_INFINITY): OffsetSync[] {
    if (!(limit >= 0)) throw new RangeError(`limit must not be negative, got ${limit}`);
    const syncs: OffsetSync[] = [];
    for (const entry of this.pending) {
      if (syncs.length >= limit) break;
      syncs.push(sync(entry, entry.pendingUpstream, entry.pendingDownstream));
      // Deleting the element being visited is safe during Set iteration.
      this.pending.delete(entry);
    }
    return syncs;
  }

  /** The queued syncs in send order, without taking them (for status pages and tests). */
  snapshot(): { readonly pending: OffsetSync[]; readonly delayed: OffsetSync[] } {
    const pending = [...this.pending].map((e) => sync(e, e.pendingUpstream, e.pendingDownstream));
    const delayed = [...this.delayed].map((e) => sync(e, e.delayedUpstream, e.delayedDownstream));
    return { pending, delayed };
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  get delayedCount(): number {
    return this.delayed.size;
  }

  /**
   * Forgets a partition (e.g. revoked from this process), including its queued syncs; take the
   * pending ones first if they should still be sent. If it comes back, its first record syncs.
   */
  removePartition(tp: TopicPartition): void {
    const byPartition = this.partitions.get(tp.topic);
    const entry = byPartition?.get(tp.partition);
    if (entry === undefined) return;
    byPartition!.delete(tp.partition);
    if (byPartition!.size === 0) this.partitions.delete(tp.topic);
    this.pending.delete(entry);
    this.delayed.delete(entry);
  }

  private addPartition(tp: TopicPartition): PartitionEntry {
    // Own copy: the caller's object may be mutable or carry more than a topic-partition.
    const entry = new PartitionEntry(Object.freeze({ topic: tp.topic, partition: tp.partition }), this.offsetLagMax);
    let byPartition = this.partitions.get(tp.topic);
    if (byPartition === undefined) {
      byPartition = new Map();
      this.partitions.set(tp.topic, byPartition);
    }
    byPartition.set(tp.partition, entry);
    return entry;
  }
}

function sync(entry: PartitionEntry, upstreamOffset: number, downstreamOffset: number): OffsetSync {
  return { topicPartition: entry.topicPartition, upstreamOffset, downstreamOffset };
}
