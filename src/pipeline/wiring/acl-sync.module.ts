import { ContainerModule } from 'inversify';
import type { FlowConfig } from '../../config';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { SourceAdmin, TargetAdmin, type ClusterAdmin } from '../../core/ports/cluster-admin';
import { DefaultTopicFilter, ReplicationPolicy, shouldReplicateTopic } from '../../policy';
import { FlowStatus } from '../../flow/status/flow-status';
import { AclSync, AclSyncParts } from '../../flow/topics/acl-sync';

/**
 * MM2's topic ACL sync (part of its MirrorSourceConnector), as a job of its own beside
 * replication. Loaded only for a replicating flow with `topic_sync.acls.enabled`.
 */
export function aclSyncModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const { acls } = flow.topic_sync;
    bind<AclSyncParts>(AclSyncParts)
      .toResolvedValue(
        (
          sourceAdmin: ClusterAdmin,
          targetAdmin: ClusterAdmin,
          policy: ReplicationPolicy,
          scheduler: Scheduler,
          logger: Logger,
          status: FlowStatus,
        ): AclSyncParts => {
          const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
          return {
            settings: { source: flow.source, target: flow.target, intervalMs: acls.interval_ms, prefixed: acls.prefixed },
            sourceAdmin,
            targetAdmin,
            remoteTopic: (topic) => policy.formatRemoteTopic(flow.source, topic),
            shouldReplicate: (topic) =>
              shouldReplicateTopic(topic, { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats }),
            scheduler,
            logger,
            status: status.acls,
            outages: status.outages,
          };
        },
        [SourceAdmin, TargetAdmin, ReplicationPolicy, Scheduler, Logger, FlowStatus],
      )
      .inSingletonScope();
    bind(AclSync).toSelf().inSingletonScope();
  });
}
