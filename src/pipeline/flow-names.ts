import type { FlowConfig } from '../config';

/** Connect's name for the offsets topic of a herder whose source is `alias` (mm2-offsets.<alias>.internal). */
export const progressTopicName = (sourceAlias: string): string => `mm2-offsets.${sourceAlias}.internal`;

/** The topic on a flow's target holding its progress: `progress.topic`, else Connect's `mm2-offsets.<source>.internal`. */
export const flowProgressTopic = (flow: FlowConfig): string => flow.progress.topic ?? progressTopicName(flow.source);
/** The progress topic's replication factor: its own, else the flow's. */
export const progressReplicationFactor = (flow: FlowConfig): number => flow.progress.replication_factor ?? flow.topic_sync.replication_factor;
/** The offset-syncs topic's replication factor: its own, else the flow's. */
export const offsetSyncsReplicationFactor = (flow: FlowConfig): number => flow.offset_syncs.replication_factor ?? flow.topic_sync.replication_factor;

/** Each flow's consumer group on its source: shares partitions between processes of one pipeline. */
export const flowGroupId = (pipeline: string, flow: FlowConfig): string => `mirrorflow.${pipeline}.${flow.source}-${flow.target}`;
/** The group on the target whose committed offsets record which partitions of a flow keep their source offsets (`offsets: preserve`). */
export const preservedOffsetsGroup = (flowGroup: string): string => `${flowGroup}.preserved-offsets`;

/** The topic on a flow's target that holds the state of its migration (`mirrorflow migrate`); MM2 takes it for internal, as its own `mm2-…internal` topics. */
export const migrationTopicName = (sourceAlias: string): string => `mm2-migration.${sourceAlias}.internal`;

/** Which cluster holds a flow's offset syncs, and the alias their topic is named after. */
export function offsetSyncsPlace(flow: FlowConfig): { cluster: string; otherAlias: string } {
  const onSource = flow.offset_syncs.location === 'source';
  // The name carries the alias of the other cluster (MirrorSourceConfig.offsetSyncsTopic).
  return { cluster: onSource ? flow.source : flow.target, otherAlias: onSource ? flow.target : flow.source };
}

/**
 * Replication factor of the topic that seats a flow's election (the heartbeats topic). With
 * heartbeats off the topic only seats the election and its configured factor is not one the user
 * chose for it — an mm2.properties gets MM2's default 3 there, and MM2 would not create the topic
 * at all — so the broker's default is taken, which fits a cluster of any size.
 */
export const electionTopicReplicationFactor = (flow: FlowConfig): number => (flow.heartbeats.enabled ? flow.heartbeats.replication_factor : -1);
