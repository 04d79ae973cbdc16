import type { GroupOffset } from '../../core/ports/cluster-admin';
import { topicPartitionKey, type TopicPartition } from '../../core/record';
import type { CheckpointStore } from './checkpoint-store';
import type { OffsetSyncStore } from './offset-sync-store';

/**
 * Which source offsets the checkpointed groups hold in one offset-sync store (`OffsetSyncStore.hold`,
 * held-offsets.ts), kept up to date by the checkpoint flow: the offsets each group was listed or
 * last read at, and a restarted flow's loaded checkpoints until their groups are read. A group
 * that stopped thereby keeps the nearest offset sync that streamed past it.
 */
export class GroupHolds {
  /** Per group, the source offsets (by `topic-partition`) it holds. */
  private readonly held = new Map<string, Map<string, GroupOffset>>();

  constructor(private readonly syncs: OffsetSyncStore) {}

  /** `group` was read at `offsets` (the checkpointed topics' only): they replace what it held. */
  read(group: string, offsets: readonly GroupOffset[]): void {
    const previous = this.held.get(group) ?? new Map<string, GroupOffset>();
    const next = new Map<string, GroupOffset>();
    for (const o of offsets) {
      const key = topicPartitionKey(o);
      const before = previous.get(key);
      if (before?.offset !== o.offset) this.syncs.hold(o, o.offset);
      if (before !== undefined && before.offset !== o.offset) this.syncs.release(before, before.offset);
      previous.delete(key);
      next.set(key, o);
    }
    for (const gone of previous.values()) this.syncs.release(gone, gone.offset);
    this.held.set(group, next);
  }

  /**
   * A partition's first sync arrived (`OffsetSyncStore`'s `onNewPartition`): the offsets the
   * loaded checkpoints of its remote partition `remote` were taken at are held, for groups that
   * hold nothing there yet.
   */
  checkpointed(tp: TopicPartition, remote: TopicPartition, checkpoints: CheckpointStore): void {
    const key = topicPartitionKey(tp);
    const remoteKey = topicPartitionKey(remote);
    for (const group of checkpoints.groupIds()) {
      const cp = checkpoints.get(group)?.get(remoteKey);
      if (cp === undefined) continue;
      let held = this.held.get(group);
      if (held === undefined) this.held.set(group, (held = new Map()));
      if (held.has(key)) continue;
      this.syncs.hold(tp, cp.upstreamOffset);
      held.set(key, { topic: tp.topic, partition: tp.partition, offset: cp.upstreamOffset, metadata: cp.metadata });
    }
  }

  /** Groups not among `groups` (no longer checkpointed) give up what they held. */
  keepOnly(groups: readonly string[]): void {
    const kept = new Set(groups);
    for (const [group, held] of this.held) {
      if (kept.has(group)) continue;
      for (const o of held.values()) this.syncs.release(o, o.offset);
      this.held.delete(group);
    }
  }
}
