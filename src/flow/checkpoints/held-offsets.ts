/** An offset sync as the offset-sync store keeps it (its `StoredSync`). */
export interface SyncPoint {
  readonly upstreamOffset: number;
  readonly downstreamOffset: number;
}

interface Held {
  /** Holders of this offset (groups at it). */
  count: number;
  /** The newest sync at or before the offset seen since it was held (or since the log restarted). */
  best: SyncPoint | undefined;
}

/**
 * Upstream offsets that consumer groups sit at, per source partition, each with the newest offset
 * sync at or before it that streamed past — beside the offset-sync store's sparse history.
 *
 * The sparse history keeps syncs at exponentially growing distances from the latest one, so a
 * group that stopped far behind the latest sync loses precision as replication catches up: 20
 * syncs past a group at 2,000 the nearest sync kept below it may be offset 0, and 2,000 translates
 * to 1 for good. A held offset remembers the best sync for it as the syncs go by, so its
 * translation only gets closer while the group stays put (MM2 gets there only when a checkpoint
 * pass happens to run while the nearby syncs are still kept).
 *
 * Within one lifetime of a partition's syncs, later syncs have larger upstream offsets; a sync
 * below the latest (a source log that restarted) forgets every best, which starts over with it.
 */
export class HeldOffsets {
  private readonly byPartition = new Map<string, Map<number, Held>>();

  /** Holds `offset` of partition `key` (once more if already held), starting from `best` (the sparse history's lookup). */
  hold(key: string, offset: number, best: SyncPoint | undefined): void {
    let held = this.byPartition.get(key);
    if (held === undefined) this.byPartition.set(key, (held = new Map()));
    const current = held.get(offset);
    if (current !== undefined) {
      current.count++;
      return;
    }
    held.set(offset, { count: 1, best: best !== undefined && best.upstreamOffset <= offset ? best : undefined });
  }

  /** Gives up one hold of `offset`; the offset is forgotten with its last holder. */
  release(key: string, offset: number): void {
    const held = this.byPartition.get(key);
    const current = held?.get(offset);
    if (held === undefined || current === undefined) return;
    if (--current.count > 0) return;
    held.delete(offset);
    if (held.size === 0) this.byPartition.delete(key);
  }

  /** A sync of partition `key` was applied; `restarted` when it went below the latest one before it. */
  offer(key: string, sync: SyncPoint, restarted: boolean): void {
    const held = this.byPartition.get(key);
    if (held === undefined) return;
    for (const [offset, h] of held) {
      if (restarted) h.best = undefined;
      if (sync.upstreamOffset <= offset && (h.best === undefined || sync.upstreamOffset >= h.best.upstreamOffset)) h.best = sync;
    }
  }

  /** The best sync for a held offset; undefined when it is not held or no sync at or below it came by. */
  best(key: string, offset: number): SyncPoint | undefined {
    return this.byPartition.get(key)?.get(offset)?.best;
  }

  /** Offsets held, over all partitions (for status and tests). */
  get size(): number {
    let n = 0;
    for (const held of this.byPartition.values()) n += held.size;
    return n;
  }
}
