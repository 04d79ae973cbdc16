import type { FlowConfig, PipelineConfig } from '../../../config';
import { flowReplicationPolicy } from '../flow-policy';
import { DefaultGroupFilter, type ReplicationPolicy } from '../../../policy';
import type { CheckpointFlowParts, CheckpointFlowSettings } from '../../../flow/checkpoints/checkpoint-flow';
import { offsetSyncsPlace, offsetSyncsReplicationFactor } from '../../flow-names';
import { preservationMarkerGroup } from './internal-topic-settings';
import { flowTopicFilter } from './topic-settings';

/** The checkpoint flow's settings: `checkpoints.*`, and the internal topics the policy names. */
export function checkpointFlowSettings(flow: FlowConfig, policy: ReplicationPolicy): CheckpointFlowSettings {
  const { checkpoints } = flow;
  return {
    source: flow.source,
    target: flow.target,
    intervalMs: checkpoints.interval_ms,
    refreshGroupsIntervalMs: checkpoints.refresh_groups_interval_ms,
    refreshGroups: checkpoints.refresh_groups_enabled,
    checkpointsTopic: policy.checkpointsTopic(flow.source),
    checkpointsReplicationFactor: checkpoints.replication_factor,
    offsetSyncsTopic: policy.offsetSyncsTopic(offsetSyncsPlace(flow).otherAlias),
    offsetSyncsReplicationFactor: offsetSyncsReplicationFactor(flow),
    syncGroupOffsets: { enabled: checkpoints.sync_group_offsets.enabled, intervalMs: checkpoints.sync_group_offsets.interval_ms },
  };
}

/**
 * Which groups are checkpointed (`checkpoints.groups`, `groups_exclude`), on which topics (MM2's
 * checkpoint task uses the topic filter alone), and, with `offsets: preserve`, the group whose
 * markers say which partitions keep their offsets.
 */
export function checkpointSelection(pipelineName: string, flow: FlowConfig): Pick<CheckpointFlowParts, 'groupFilter' | 'topicFilter' | 'preservationMarkers'> {
  return {
    groupFilter: new DefaultGroupFilter({ include: flow.checkpoints.groups, exclude: flow.checkpoints.groups_exclude }),
    topicFilter: flowTopicFilter(flow),
    ...(flow.offsets === 'preserve' ? { preservationMarkers: preservationMarkerGroup(pipelineName, flow) } : {}),
  };
}

/**
 * Active-active with topic names kept: the offset syncs of the pipeline's flow the other way
 * (target -> source), when it replicates, writes offset syncs and keeps topic names, so that
 * the source's topics hold copies of the target's records under their own names. Where they
 * are: the cluster and topic that flow writes them to.
 */
export function reverseOffsetSyncs(pipeline: PipelineConfig, flow: FlowConfig): { cluster: string; topic: string } | undefined {
  const reverse = pipeline.flows.find((f) => f.enabled && f.source === flow.target && f.target === flow.source);
  if (reverse === undefined || !reverse.offset_syncs.enabled || reverse.replication_policy.type !== 'identity') return undefined;
  const place = offsetSyncsPlace(reverse);
  return { cluster: place.cluster, topic: flowReplicationPolicy(reverse).offsetSyncsTopic(place.otherAlias) };
}
