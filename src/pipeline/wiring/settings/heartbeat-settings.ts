import type { FlowConfig } from '../../../config';
import type { ReplicationPolicy } from '../../../policy';
import type { HeartbeatFlowSettings } from '../../../flow/heartbeats/heartbeat-flow';

/** The heartbeat flow's settings: `heartbeats.*`, on the topic the policy names. */
export function heartbeatFlowSettings(flow: FlowConfig, policy: ReplicationPolicy): HeartbeatFlowSettings {
  return {
    source: flow.source,
    target: flow.target,
    intervalMs: flow.heartbeats.interval_ms,
    topic: policy.heartbeatsTopic(),
    replicationFactor: flow.heartbeats.replication_factor,
  };
}
