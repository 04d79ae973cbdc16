import { ContainerModule } from 'inversify';
import type { FlowConfig } from '../../config';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { TargetAdmin, type ClusterAdmin } from '../../core/ports/cluster-admin';
import { HeartbeatsWriter, type RecordWriter } from '../../core/ports/record-writer';
import { ReplicationPolicy } from '../../policy';
import { FlowStatus } from '../../flow/status/flow-status';
import { HeartbeatFlow, HeartbeatFlowParts } from '../../flow/heartbeats/heartbeat-flow';

/** MM2's MirrorHeartbeatConnector for this flow's pair: (source, target) heartbeats on the target. */
export function heartbeatsModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<HeartbeatFlowParts>(HeartbeatFlowParts)
      .toResolvedValue(
        (
          targetAdmin: ClusterAdmin,
          writer: RecordWriter,
          policy: ReplicationPolicy,
          scheduler: Scheduler,
          logger: Logger,
          status: FlowStatus,
        ): HeartbeatFlowParts => ({
          settings: {
            source: flow.source,
            target: flow.target,
            intervalMs: flow.heartbeats.interval_ms,
            topic: policy.heartbeatsTopic(),
            replicationFactor: flow.heartbeats.replication_factor,
          },
          targetAdmin,
          writer,
          scheduler,
          logger,
          status: status.heartbeats,
          outages: status.outages,
        }),
        [TargetAdmin, HeartbeatsWriter, ReplicationPolicy, Scheduler, Logger, FlowStatus],
      )
      .inSingletonScope();
    bind(HeartbeatFlow).toSelf().inSingletonScope();
  });
}
