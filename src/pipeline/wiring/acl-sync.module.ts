import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { SourceAdmin, TargetAdmin } from '../../core/ports/cluster-admin';
import { ReplicationPolicy } from '../../policy';
import { FlowStatus } from '../../flow/status/flow-status';
import { AclSync, AclSyncParts } from '../../flow/topics/acl-sync';
import { bindParts } from './bind-parts';
import { aclSyncSettings } from './settings/topic-settings';
import type { FlowConfig } from './tokens';

/**
 * MM2's topic ACL sync (part of its MirrorSourceConnector), as a job of its own beside
 * replication. Loaded only for a replicating flow with `topic_sync.acls.enabled`.
 */
export function aclSyncModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bindParts(
      bind,
      AclSyncParts,
      { sourceAdmin: SourceAdmin, targetAdmin: TargetAdmin, policy: ReplicationPolicy, scheduler: Scheduler, logger: Logger, status: FlowStatus },
      ({ policy, status, ...parts }) => ({ ...parts, ...aclSyncSettings(flow, policy), status: status.acls, outages: status.outages }),
    );
    bind(AclSync).toSelf().inSingletonScope();
  });
}
