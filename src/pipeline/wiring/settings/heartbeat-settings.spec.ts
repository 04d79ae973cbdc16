import { it } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultReplicationPolicy } from '../../../policy';
import { flowWith } from './flow-config-fixture';
import { heartbeatFlowSettings } from './heartbeat-settings';

it('heartbeat settings take heartbeats.* and the topic the policy names', () => {
  assert.deepEqual(heartbeatFlowSettings(flowWith('heartbeats: { interval_ms: 2000, replication_factor: 2 }'), new DefaultReplicationPolicy()), {
    source: 'primary',
    target: 'backup',
    intervalMs: 2000,
    topic: 'heartbeats',
    replicationFactor: 2,
  });
});
