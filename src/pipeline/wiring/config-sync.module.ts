import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { SourceAdmin, TargetAdmin } from '../../core/ports/cluster-admin';
import { ReplicationPolicy } from '../../policy';
import { FlowStatus } from '../../flow/status/flow-status';
import { TopicConfigSync, TopicConfigSyncOptions } from '../../flow/topics/topic-config-sync';
import { bindParts } from './bind-parts';
import { topicConfigSyncSettings } from './settings/topic-settings';
import type { FlowConfig } from './tokens';

/**
 * The periodic topic config sync of MM2's MirrorSourceConnector (`sync.topic.configs.*`), a job
 * of its own beside replication: loaded for an enabled flow with `topic_sync.sync_configs`.
 */
export function configSyncModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bindParts(
      bind,
      TopicConfigSyncOptions,
      { sourceAdmin: SourceAdmin, targetAdmin: TargetAdmin, policy: ReplicationPolicy, scheduler: Scheduler, logger: Logger, status: FlowStatus },
      ({ policy, status, ...parts }) => ({ ...parts, ...topicConfigSyncSettings(flow, policy), status: status.configSync, outages: status.outages }),
    );
    bind(TopicConfigSync).toSelf().inSingletonScope();
  });
}
