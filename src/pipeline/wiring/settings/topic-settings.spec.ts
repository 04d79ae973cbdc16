import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultReplicationPolicy } from '../../../policy';
import { flowWith } from './flow-config-fixture';
import { aclSyncSettings, flowConfigFilter, shouldReplicate, topicConfigSyncSettings, topicSyncSettings } from './topic-settings';

const policy = new DefaultReplicationPolicy();
const renaming =
  "topics: ['orders.*'], topics_exclude: ['orders-internal'], transforms: [{ type: rename_topic, regex: 'primary\\.(.*)', replacement: 'copy.$1' }]";

describe('topic settings', () => {
  it("topic sync and config sync take the flow's topics and name them as its rename_topic steps do", () => {
    const flow = flowWith(renaming);
    const sync = topicSyncSettings(flow, policy);
    assert.equal(sync.remoteTopic('orders'), 'copy.orders');
    assert.equal(sync.shouldReplicate('orders'), true);
    assert.equal(sync.shouldReplicate('orders-internal'), false);
    assert.equal(sync.shouldReplicate('payments'), false);
    assert.equal(sync.shouldReplicate('backup.orders'), false, 'a topic that came from the target goes no further: a cycle');
    const configs = topicConfigSyncSettings(flow, policy);
    assert.equal(configs.remoteTopic('orders'), 'copy.orders');
    assert.equal(configs.intervalMs, flow.topic_sync.configs_interval_ms);
    assert.deepEqual([configs.source, configs.target], ['primary', 'backup']);
  });

  it('ACL sync names remote topics by the policy alone, and takes topic_sync.acls.*', () => {
    const acls = aclSyncSettings(flowWith(`${renaming}, topic_sync: { acls: { enabled: true, interval_ms: 9000, prefixed: true } }`), policy);
    assert.equal(acls.remoteTopic('orders'), 'primary.orders');
    assert.deepEqual(acls.settings, { source: 'primary', target: 'backup', intervalMs: 9000, prefixed: true });
  });

  it("new remote topics get the source's configs that the config filter passes", () => {
    const sync = topicSyncSettings(flowWith("topic_sync: { configs_exclude: ['retention\\.ms'] }"), policy);
    const configs = sync.targetConfig([
      { name: 'retention.ms', value: '1000', isDefault: false, sensitive: false, readOnly: false, source: 'topic' },
      { name: 'cleanup.policy', value: 'compact', isDefault: false, sensitive: false, readOnly: false, source: 'topic' },
    ]);
    assert.deepEqual(configs, { 'cleanup.policy': 'compact' });
    assert.equal(flowConfigFilter(flowWith()).shouldReplicateConfigProperty('retention.ms'), true);
    assert.equal(shouldReplicate(flowWith(), policy)('orders'), true);
  });
});
