import type { FlowConfig } from '../../config';
import { createReplicationPolicy, type ReplicationPolicy } from '../../policy';

/** The replication policy that names a flow's remote and internal topics, from its configuration. */
export function flowReplicationPolicy(flow: FlowConfig): ReplicationPolicy {
  const p = flow.replication_policy;
  return createReplicationPolicy(
    p.type === 'identity'
      ? { type: 'identity', separator: p.separator, sourceAlias: flow.source }
      : { type: 'default', separator: p.separator, internalTopicSeparatorEnabled: p.internal_topic_separator_enabled },
  );
}
