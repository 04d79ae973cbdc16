/**
 * The flow's offset syncs as a tool reads them once: the offset-syncs topic where the flow writes
 * it (flow-names.ts), read from the start to its end into an OffsetSyncStore with the whole
 * history (`initializationMustReadToEnd: false`: a tool's answer need not stay monotonic with
 * checkpoints, only be safe).
 *
 * The offsets the tool will translate are held (`OffsetSyncStore.hold`) before the read: MM2's
 * sparse history keeps syncs at exponentially growing distances from the latest one, so read
 * alone it may keep nothing near an old offset (a share group stopped at 30 translated to 1);
 * held, the nearest sync at or before each is kept as the history streams past, as a running
 * flow's group holds do, and the translation is the one the syncs allow at best.
 */
import { firstValueFrom, take, timeout } from '#rxjs';
import { MirrorflowError } from '../../core/errors';
import type { TopicPartition } from '../../core/record';
import { OffsetSyncStore } from '../../flow/checkpoints/offset-sync-store';
import { offsetSyncsPlace } from '../flow-names';
import type { FlowDirection, PipelineTools } from './pipeline-tools';

/** An upstream offset of a source partition that the tool translates. */
export interface HeldOffset extends TopicPartition {
  readonly offset: number;
}

/** What the read needs of the tools: PipelineTools, or the Kafka clients `verify` opens itself. */
export type OffsetSyncsClients = Pick<PipelineTools, 'checkReachable' | 'admin' | 'reader'>;

export interface FlowOffsetSyncs {
  /** The cluster the flow writes its offset syncs to, and the topic there. */
  readonly cluster: string;
  readonly topic: string;
  /** Read to its end with the offsets held; undefined when the cluster has no such topic (the flow wrote no offset sync yet). */
  readonly store: OffsetSyncStore | undefined;
}

/**
 * Reads the offset syncs of the flow of `direction` to their end, holding `hold`. Errors when the
 * cluster cannot be reached, or the read does not reach the end within `timeoutMs`.
 */
export async function loadOffsetSyncs(
  tools: OffsetSyncsClients,
  { flow, policy }: Pick<FlowDirection, 'flow' | 'policy'>,
  hold: readonly HeldOffset[],
  timeoutMs: number,
): Promise<FlowOffsetSyncs> {
  const { cluster, otherAlias } = offsetSyncsPlace(flow);
  const topic = policy.offsetSyncsTopic(otherAlias);
  await tools.checkReachable(cluster);
  const topics = await firstValueFrom(tools.admin(cluster).listTopics());
  if (!topics.some((t) => t.name === topic)) return { cluster, topic, store: undefined };
  const store = new OffsetSyncStore({ initializationMustReadToEnd: false });
  for (const o of hold) store.hold({ topic: o.topic, partition: o.partition }, o.offset);
  await firstValueFrom(
    store.follow(tools.reader(cluster), topic).pipe(
      take(1),
      timeout({
        first: timeoutMs,
        with: () => {
          throw new MirrorflowError(`Reading ${topic} on cluster "${cluster}" did not reach its end within ${timeoutMs} ms.`);
        },
      }),
    ),
  );
  return { cluster, topic, store };
}
