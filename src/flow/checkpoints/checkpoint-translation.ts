import type { GroupOffset } from '../../core/ports/cluster-admin';
import type { TopicPartition } from '../../core/record';
import type { Checkpoint } from '../../formats';
import type { ReplicationPolicy, TopicFilter } from '../../policy';
import type { OffsetSyncStore } from './offset-sync-store';
import { preservedOffset, type PreservedPartitions } from './preserved-partitions';

/**
 * MM2's `renameTopicPartition`: a source topic-partition as the target knows it. A topic that
 * came from the target goes back to its original name (`target2.topic3` → `topic3`); any other
 * gets the source's prefix (`topic3` → `source1.topic3`, `source6.topic7` → `source1.source6.topic7`).
 */
export function renameTopicPartition(tp: TopicPartition, policy: ReplicationPolicy, sourceAlias: string, targetAlias: string): TopicPartition {
  if (policy.topicSource(tp.topic) === targetAlias) return { topic: policy.originalTopic(tp.topic), partition: tp.partition };
  return { topic: policy.formatRemoteTopic(sourceAlias, tp.topic), partition: tp.partition };
}

/** How a pass turns a group's committed source offsets into the target's. */
export interface CheckpointTranslation {
  readonly shouldCheckpointTopic: (topic: string) => boolean;
  /** The offset-sync store's `translateDownstream` (source topic-partition). */
  readonly translate: (tp: TopicPartition, upstreamOffset: number) => number | undefined;
  readonly rename: (tp: TopicPartition) => TopicPartition;
}

/**
 * A group's committed source offsets as checkpoints: only topics the topic filter accepts, only
 * partitions with offset syncs, not when the offset is older than every sync kept (-1). Which
 * of them are written is the emission's rule (checkpoint-emission.ts).
 */
export function translateOffsets(group: string, upstream: readonly GroupOffset[], t: CheckpointTranslation): Checkpoint[] {
  const out: Checkpoint[] = [];
  for (const o of upstream) {
    if (!t.shouldCheckpointTopic(o.topic)) continue;
    const downstream = t.translate(o, o.offset);
    if (downstream === undefined || downstream < 0) continue;
    out.push({ consumerGroupId: group, topicPartition: t.rename(o), upstreamOffset: o.offset, downstreamOffset: downstream, metadata: o.metadata });
  }
  return out;
}

/** What a flow's translation is made of. */
export interface CheckpointTranslationOf {
  readonly source: string;
  readonly target: string;
  readonly policy: ReplicationPolicy;
  /** MM2's `shouldCheckpointTopic`: the flow's topic filter alone. */
  readonly topicFilter: TopicFilter;
}

/**
 * One pass's translation: through the offset syncs (`syncs`), except on a partition that keeps
 * its source's offsets (`preserved`), where a group offset is the same on the target. Remote
 * names are worked out once per topic per pass.
 *
 * With `reverse`, the offset syncs of the flow the other way (target -> source) with topic names
 * kept (active-active): the source's topic then also holds copies of the target's own records,
 * which a consumer of the source read in the order they arrived there, and which the forward
 * syncs know nothing of. The translated offset is then no later than the first of the target's
 * records whose copy may not have been read yet (`upstreamBefore`), so a consumer that fails over
 * reads some of the target's records again rather than skip any.
 */
export function checkpointTranslation(
  { source, target, policy, topicFilter }: CheckpointTranslationOf,
  syncs: OffsetSyncStore,
  preserved: PreservedPartitions,
  reverse?: OffsetSyncStore,
): CheckpointTranslation {
  const renamed = new Map<string, string>();
  const rename = (tp: TopicPartition): TopicPartition => {
    let topic = renamed.get(tp.topic);
    if (topic === undefined) {
      topic = renameTopicPartition(tp, policy, source, target).topic;
      renamed.set(tp.topic, topic);
    }
    return { topic, partition: tp.partition };
  };
  return {
    shouldCheckpointTopic: (topic) => topicFilter.shouldReplicateTopic(topic),
    translate: (tp, offset) => {
      const kept = preserved.size === 0 ? undefined : preservedOffset(preserved, rename(tp), offset);
      if (kept !== undefined) return kept;
      const forward = syncs.translateDownstream(tp, offset);
      // The target's records in this partition: the reverse flow's source partition has the same name.
      const bound = forward === undefined || forward < 0 || reverse === undefined ? undefined : reverse.upstreamBefore(rename(tp), offset);
      return bound === undefined ? forward : Math.min(forward!, bound);
    },
    rename,
  };
}
