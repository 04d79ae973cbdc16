import type { FlowConfig } from '../../../config';
import { DefaultConfigPropertyFilter, DefaultTopicFilter, newTopicConfigs, shouldReplicateTopic, type ReplicationPolicy } from '../../../policy';
import { topicAfterTransforms } from '../../../plugins';
import type { TopicSyncOptions } from '../../../flow/topics/topic-sync';
import type { TopicConfigSyncOptions } from '../../../flow/topics/topic-config-sync';
import type { AclSyncParts } from '../../../flow/topics/acl-sync';

/** The flow's topic filter: `topics` and `topics_exclude`. */
export function flowTopicFilter(flow: FlowConfig): DefaultTopicFilter {
  return new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
}

/** MM2's `shouldReplicateTopic` for the flow: its filter, heartbeats, internal topics, cycles. */
export function shouldReplicate(flow: FlowConfig, policy: ReplicationPolicy): (topic: string) => boolean {
  const filter = flowTopicFilter(flow);
  return (topic) => shouldReplicateTopic(topic, { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats });
}

/** Where a source topic lands: the policy's remote name, then through the flow's `rename_topic` steps. */
export function renamedRemoteTopic(flow: FlowConfig, policy: ReplicationPolicy): (topic: string) => string {
  const renamed = topicAfterTransforms(flow.transforms, flow);
  return (topic) => renamed(policy.formatRemoteTopic(flow.source, topic));
}

/** The flow's config property filter: `configs_exclude` and `use_defaults_from` (MM2's DefaultConfigPropertyFilter). */
export function flowConfigFilter(flow: FlowConfig): DefaultConfigPropertyFilter {
  return new DefaultConfigPropertyFilter({ exclude: flow.topic_sync.configs_exclude, useDefaultsFrom: flow.topic_sync.use_defaults_from });
}

/** Topic sync's settings: which topics, under which names, with which configs and replication factor. */
export function topicSyncSettings(
  flow: FlowConfig,
  policy: ReplicationPolicy,
): Omit<TopicSyncOptions, 'sourceAdmin' | 'targetAdmin' | 'logger' | 'onCreated' | 'scheduler'> {
  const configFilter = flowConfigFilter(flow);
  return {
    remoteTopic: renamedRemoteTopic(flow, policy),
    shouldReplicate: shouldReplicate(flow, policy),
    targetConfig: (entries) => newTopicConfigs(configFilter, entries),
    syncConfigs: flow.topic_sync.sync_configs,
    replicationFactor: flow.topic_sync.replication_factor,
  };
}

/** Config sync's settings: the topics topic sync made, compared every `configs_interval_ms`. */
export function topicConfigSyncSettings(
  flow: FlowConfig,
  policy: ReplicationPolicy,
): Pick<TopicConfigSyncOptions, 'source' | 'target' | 'remoteTopic' | 'shouldReplicate' | 'filter' | 'intervalMs'> {
  return {
    source: flow.source,
    target: flow.target,
    remoteTopic: renamedRemoteTopic(flow, policy),
    shouldReplicate: shouldReplicate(flow, policy),
    filter: flowConfigFilter(flow),
    intervalMs: flow.topic_sync.configs_interval_ms,
  };
}

/** ACL sync's settings: the policy's remote names (MM2 renames ACLs without the flow's transforms). */
export function aclSyncSettings(flow: FlowConfig, policy: ReplicationPolicy): Pick<AclSyncParts, 'settings' | 'remoteTopic' | 'shouldReplicate'> {
  const { acls } = flow.topic_sync;
  return {
    settings: { source: flow.source, target: flow.target, intervalMs: acls.interval_ms, prefixed: acls.prefixed },
    remoteTopic: (topic) => policy.formatRemoteTopic(flow.source, topic),
    shouldReplicate: shouldReplicate(flow, policy),
  };
}
