import type { FlowConfig } from '../../../config';
import type { ReplicationPolicy } from '../../../policy';
import type { ProgressStoreOptions } from '../../../flow/progress/progress-store';
import type { OffsetSyncEmitterOptions } from '../../../flow/progress/offset-sync-emitter';
import type { DeadLetterSinkOptions } from '../../../flow/replication/dead-letter-sink';
import type { MigrationWatchParts } from '../../../flow/migration-state';
import {
  flowGroupId,
  flowProgressTopic,
  migrationTopicName,
  offsetSyncsPlace,
  offsetSyncsReplicationFactor,
  preservedOffsetsGroup,
  progressReplicationFactor,
} from '../../flow-names';

/** How often a running flow looks for a `mirrorflow migrate finish` of its own. */
export const MIGRATION_POLL_MS = 5_000;

/** The progress store's topic: `progress.topic`, by default Connect's `mm2-offsets.<source>.internal`, keyed by the source alias. */
export function progressStoreSettings(flow: FlowConfig): Pick<ProgressStoreOptions, 'sourceAlias' | 'topic' | 'replicationFactor'> {
  return { sourceAlias: flow.source, topic: flowProgressTopic(flow), replicationFactor: progressReplicationFactor(flow) };
}

/** The offset syncs' topic, wherever `offset_syncs.location` puts it, named after the other cluster. */
export function offsetSyncEmitterSettings(flow: FlowConfig, policy: ReplicationPolicy): Pick<OffsetSyncEmitterOptions, 'topic' | 'replicationFactor'> {
  return { topic: policy.offsetSyncsTopic(offsetSyncsPlace(flow).otherAlias), replicationFactor: offsetSyncsReplicationFactor(flow) };
}

/** The dead-letter topic of `errors.tolerance: all`; undefined when the flow has none. */
export function deadLetterSettings(flow: FlowConfig): Pick<DeadLetterSinkOptions, 'flow' | 'topic' | 'replicationFactor'> | undefined {
  const { tolerance, deadletterqueue } = flow.errors;
  if (tolerance !== 'all' || deadletterqueue.topic_name === undefined) return undefined;
  return { flow: flow.name, topic: deadletterqueue.topic_name, replicationFactor: deadletterqueue.replication_factor };
}

/** The migration state the flow watches (`mirrorflow migrate`), on its target. */
export function migrationWatchSettings(pipelineName: string, flow: FlowConfig): Pick<MigrationWatchParts, 'topic' | 'flowGroup' | 'pollMs'> {
  return { topic: migrationTopicName(flow.source), flowGroup: flowGroupId(pipelineName, flow), pollMs: MIGRATION_POLL_MS };
}

/** `offsets: preserve`: the group on the target whose committed offsets are the flow's markers. */
export function preservationMarkerGroup(pipelineName: string, flow: FlowConfig): string {
  return preservedOffsetsGroup(flowGroupId(pipelineName, flow));
}
