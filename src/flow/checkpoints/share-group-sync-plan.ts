/**
 * What a share group sync decides for one group, without asking any cluster: its source start
 * offsets translated to the target's names and offsets, and what to do with the target group of
 * the same name (share-group-offset-sync.ts does it).
 */
import type { GroupState, ShareGroupStartOffset } from '../../core/ports/cluster-admin';
import { topicPartitionKey } from '../../core/record';
import type { CheckpointTranslation } from './checkpoint-translation';

/** One share group's start offsets on the source, translated: the target's names and offsets. */
export interface TranslatedShareGroup {
  /** Its start offsets on replicated topics (partitions with none left out). */
  readonly partitions: number;
  /** Of those, the ones that translate, as target topic-partitions with the translated start offset. */
  readonly translated: readonly ShareGroupStartOffset[];
}

/**
 * A share group's source start offsets (`upstream`) through the pass's translation: only topics
 * the flow checkpoints, only partitions with an offset sync at or below the start offset.
 */
export function translateShareGroup(upstream: readonly ShareGroupStartOffset[], t: CheckpointTranslation): TranslatedShareGroup {
  let partitions = 0;
  const translated: ShareGroupStartOffset[] = [];
  for (const o of upstream) {
    if (!t.shouldCheckpointTopic(o.topic)) continue;
    partitions++;
    const downstream = t.translate(o, o.startOffset);
    if (downstream === undefined || downstream < 0) continue;
    const remote = t.rename(o);
    translated.push({ topic: remote.topic, partition: remote.partition, startOffset: downstream });
  }
  return { partitions, translated };
}

/** What to do with one target share group. */
export type ShareGroupSyncPlan =
  | { readonly kind: 'skip-active'; readonly state: GroupState; readonly members: number }
  | { readonly kind: 'up-to-date' }
  | { readonly kind: 'alter'; readonly reason: 'new-group' | 'idle-group'; readonly offsets: readonly ShareGroupStartOffset[] };

/**
 * The decision for one target share group: `translated` are the start offsets it should have at
 * least, `state` and `members` what the target says of it, `target` its start offsets there.
 */
export function planShareGroupSync(
  translated: readonly ShareGroupStartOffset[],
  target: { readonly state: GroupState; readonly members: number },
  targetOffsets: readonly ShareGroupStartOffset[],
): ShareGroupSyncPlan {
  if (target.members > 0 || (target.state !== 'empty' && target.state !== 'dead')) return { kind: 'skip-active', state: target.state, members: target.members };
  const current = new Map(targetOffsets.map((o) => [topicPartitionKey(o), o.startOffset]));
  const offsets = translated.filter((o) => {
    const existing = current.get(topicPartitionKey(o));
    return existing === undefined || existing < o.startOffset;
  });
  if (offsets.length === 0) return { kind: 'up-to-date' };
  return { kind: 'alter', reason: target.state === 'dead' ? 'new-group' : 'idle-group', offsets };
}
