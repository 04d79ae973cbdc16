import { DefaultReplicationPolicy } from './default-replication-policy';
import { IdentityReplicationPolicy } from './identity-replication-policy';
import type { ReplicationPolicy } from './replication-policy';

/** A built-in replication policy as a pipeline file describes it. */
export type ReplicationPolicySpec =
  | { readonly type: 'default'; readonly separator?: string; readonly internalTopicSeparatorEnabled?: boolean }
  | {
      readonly type: 'identity';
      readonly separator?: string;
      readonly internalTopicSeparatorEnabled?: boolean;
      /** The flow's source alias (MM2 passes `source.cluster.alias` to the policy). */
      readonly sourceAlias: string;
    };

export function createReplicationPolicy(spec: ReplicationPolicySpec): ReplicationPolicy {
  switch (spec.type) {
    case 'default':
      return new DefaultReplicationPolicy(spec);
    case 'identity':
      return new IdentityReplicationPolicy(spec);
  }
}
