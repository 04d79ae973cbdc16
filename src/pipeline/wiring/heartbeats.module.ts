import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { TargetAdmin } from '../../core/ports/cluster-admin';
import { HeartbeatsWriter } from '../../core/ports/record-writer';
import { ReplicationPolicy } from '../../policy';
import { FlowStatus } from '../../flow/status/flow-status';
import { HeartbeatFlow, HeartbeatFlowParts } from '../../flow/heartbeats/heartbeat-flow';
import { bindParts } from './bind-parts';
import { heartbeatFlowSettings } from './settings/heartbeat-settings';
import type { FlowConfig } from './tokens';

/** MM2's MirrorHeartbeatConnector for this flow's pair: (source, target) heartbeats on the target. */
export function heartbeatsModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bindParts(
      bind,
      HeartbeatFlowParts,
      { targetAdmin: TargetAdmin, writer: HeartbeatsWriter, policy: ReplicationPolicy, scheduler: Scheduler, logger: Logger, status: FlowStatus },
      ({ policy, status, ...parts }) => ({
        ...parts,
        settings: heartbeatFlowSettings(flow, policy),
        status: status.heartbeats,
        outages: status.outages,
      }),
    );
    bind(HeartbeatFlow).toSelf().inSingletonScope();
  });
}
