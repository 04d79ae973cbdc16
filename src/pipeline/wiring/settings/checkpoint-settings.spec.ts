import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultReplicationPolicy } from '../../../policy';
import { flowWith } from './flow-config-fixture';
import { checkpointFlowSettings, checkpointSelection } from './checkpoint-settings';

const policy = new DefaultReplicationPolicy();

describe('checkpoint settings', () => {
  it('take checkpoints.* and the internal topics the policy names', () => {
    const flow = flowWith(
      'checkpoints: { interval_ms: 5000, refresh_groups_interval_ms: 20000, refresh_groups_enabled: false, replication_factor: 2, sync_group_offsets: { enabled: true, interval_ms: 15000 } }, topic_sync: { replication_factor: 3 }',
    );
    assert.deepEqual(checkpointFlowSettings(flow, policy), {
      source: 'primary',
      target: 'backup',
      intervalMs: 5000,
      refreshGroupsIntervalMs: 20000,
      refreshGroups: false,
      checkpointsTopic: 'primary.checkpoints.internal',
      checkpointsReplicationFactor: 2,
      offsetSyncsTopic: 'mm2-offset-syncs.backup.internal',
      offsetSyncsReplicationFactor: 3,
      syncGroupOffsets: { enabled: true, intervalMs: 15000 },
    });
  });

  it('name the offset-syncs topic after the target when they live on the source', () => {
    assert.equal(checkpointFlowSettings(flowWith('offset_syncs: { location: source }'), policy).offsetSyncsTopic, 'mm2-offset-syncs.backup.internal');
    assert.equal(checkpointFlowSettings(flowWith('offset_syncs: { location: target }'), policy).offsetSyncsTopic, 'mm2-offset-syncs.primary.internal');
  });

  it("select groups by checkpoints.groups, topics by the flow's filter, and read preservation markers only with offsets: preserve", () => {
    const selection = checkpointSelection('house', flowWith("topics: ['orders'], checkpoints: { groups: ['billing-.*'] }"));
    assert.equal(selection.groupFilter.shouldReplicateGroup('billing-eu'), true);
    assert.equal(selection.groupFilter.shouldReplicateGroup('audit'), false);
    assert.equal(selection.topicFilter.shouldReplicateTopic('orders'), true);
    assert.equal(selection.topicFilter.shouldReplicateTopic('payments'), false);
    assert.equal(selection.preservationMarkers, undefined);
    assert.equal(checkpointSelection('house', flowWith('offsets: preserve')).preservationMarkers, 'mirrorflow.house.primary-backup.preserved-offsets');
  });
});
