import type { GroupOffset } from '../../core/ports/cluster-admin';
import type { TopicPartition } from '../../core/record';
import type { Translation } from './offset-sync-store';

/**
 * A group's translation lag: over the partitions of its committed source offsets that a
 * checkpoint translates (topic accepted by the filter, an offset sync at or before the offset),
 * the sum of `committed − sync upstream offset − 1` (0 when the offset is the sync's own).
 *
 * That is how many records a consumer of the group that fails over to the target at its
 * checkpoint reads again, at most: the checkpoint points just past the offset sync used, not at
 * the committed offset. It grows when offset syncs are sparse (`offset_syncs.lag_max`) or when
 * the group consumes records the flow has not replicated yet; 0 means a failover repeats nothing.
 * Partitions without a usable sync (none yet, or the offset is older than every sync kept) are
 * not checkpointed, so they are not counted.
 */
export function groupTranslationLag(
  upstream: readonly GroupOffset[],
  shouldCheckpointTopic: (topic: string) => boolean,
  translate: (tp: TopicPartition, upstreamOffset: number) => Translation | undefined,
): number | undefined {
  let lag: number | undefined;
  for (const o of upstream) {
    if (!shouldCheckpointTopic(o.topic)) continue;
    const sync = translate(o, o.offset)?.sync;
    if (sync === undefined) continue;
    lag = (lag ?? 0) + Math.max(0, o.offset - sync.upstreamOffset - 1);
  }
  return lag;
}
