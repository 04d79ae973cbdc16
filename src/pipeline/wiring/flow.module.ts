import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { ReplicationPolicy } from '../../policy';
import { FlowStatus } from '../../flow/status/flow-status';
import { FlowConfig } from './tokens';
import { bindConstant } from './bind-parts';
import { flowReplicationPolicy } from './flow-policy';
import { flowClientsModule } from './flow-clients.module';
import { replicationModule } from './replication.module';
import { checkpointsModule } from './checkpoints.module';
import { heartbeatsModule } from './heartbeats.module';
import { configSyncModule } from './config-sync.module';
import { aclSyncModule } from './acl-sync.module';
import { migrationModule } from './migration.module';
import { verifyModule } from './verify.module';
import { flowJobsModule } from './flow-jobs';
/*
 * A flow's child container. Everything in it is a singleton of that container, so the flow's
 * graph shares one policy, one status, one client per role. The parent (the pipeline's
 * container) holds the pipeline config, the Kafka clients, the scheduler and the plugin registry.
 *
 * Each part is an @injectable class taking one parts/options object; the feature modules
 * assemble that object from the flow's config and the role tokens of its ports, so a test can
 * rebind a port (the replication writer, the source) and keep the real graph.
 */

/** The flow's own config and what derives from it alone: its logger, policy and status. */
export function flowConfigModule(flow: FlowConfig, pipelineLogger: Logger): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bindConstant(bind, FlowConfig, flow);
    // The flow's own logger shadows the pipeline's in this child container.
    bindConstant(bind, Logger, pipelineLogger.child({ flow: flow.name }));
    bindConstant(bind, ReplicationPolicy, flowReplicationPolicy(flow));
    bindConstant(bind, FlowStatus, new FlowStatus(flow.source, flow.target));
  });
}

/**
 * The modules of one flow's child container: its config, its clients, and each feature the
 * config turns on. A flow that does not replicate but emits heartbeats (MM2's heartbeat-only
 * herder) gets the heartbeats alone.
 */
export function flowModules(flow: FlowConfig, pipelineLogger: Logger): ContainerModule[] {
  return [
    flowConfigModule(flow, pipelineLogger),
    flowClientsModule,
    ...(flow.enabled ? [replicationModule(flow), migrationModule(flow)] : []),
    ...(flow.enabled && flow.topic_sync.sync_configs ? [configSyncModule(flow)] : []),
    ...(flow.enabled && flow.checkpoints.enabled && flow.offset_syncs.enabled ? [checkpointsModule(flow)] : []),
    ...(flow.heartbeats.enabled ? [heartbeatsModule(flow)] : []),
    ...(flow.enabled && flow.topic_sync.acls.enabled ? [aclSyncModule(flow)] : []),
    ...(flow.enabled && flow.verify.enabled ? [verifyModule(flow)] : []),
    flowJobsModule,
  ];
}
