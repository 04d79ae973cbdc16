import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MM2_KEYS, isConnectorKey } from './mm2-keys';

/** Every key MM2 defines with a default (the driver, the three connectors, Connect, the workers). */
const SPEC_7_5 = [
  'clusters',
  'dedicated.mode.enable.internal.rest',
  'config.providers',
  'listeners',
  'rest.advertised.host.name',
  'rest.advertised.port',
  'rest.advertised.listener',
  'access.control.allow.origin',
  'enabled',
  'emit.heartbeats.enabled',
  'source.cluster.alias',
  'target.cluster.alias',
  'admin.timeout.ms',
  'replication.policy.class',
  'replication.policy.separator',
  'replication.policy.internal.topic.separator.enabled',
  'forwarding.admin.class',
  'metric.reporters',
  'tasks.max',
  'topics',
  'topics.exclude',
  'config.properties.exclude',
  'topic.filter.class',
  'config.property.filter.class',
  'use.defaults.from',
  'consumer.poll.timeout.ms',
  'refresh.topics.enabled',
  'refresh.topics.interval.seconds',
  'sync.topic.configs.enabled',
  'sync.topic.configs.interval.seconds',
  'sync.topic.acls.enabled',
  'sync.topic.acls.interval.seconds',
  'replication.factor',
  'offset-syncs.topic.replication.factor',
  'offset.lag.max',
  'offset-syncs.topic.location',
  'emit.offset-syncs.enabled',
  'heartbeats.replication.enabled',
  'groups',
  'groups.exclude',
  'group.filter.class',
  'refresh.groups.enabled',
  'refresh.groups.interval.seconds',
  'emit.checkpoints.enabled',
  'emit.checkpoints.interval.seconds',
  'sync.group.offsets.enabled',
  'sync.group.offsets.interval.seconds',
  'checkpoints.topic.replication.factor',
  'emit.heartbeats.interval.seconds',
  'heartbeats.topic.replication.factor',
  'exactly.once.source.support',
  'offset.flush.interval.ms',
  'offset.storage.topic',
  'offset.storage.replication.factor',
  'config.storage.topic',
  'status.storage.topic',
  'scheduled.rebalance.max.delay.ms',
];

describe('MM2_KEYS', () => {
  it('has every key MM2 defines, once', () => {
    const keys = MM2_KEYS.map((spec) => spec.key);
    assert.deepEqual(
      SPEC_7_5.filter((key) => !keys.includes(key)),
      [],
    );
    assert.equal(new Set(keys).size, keys.length);
  });

  it("says for every key what mirrorflow does with it, and gives MM2's defaults as MM2 has them", () => {
    for (const spec of MM2_KEYS) {
      const text = spec.support.kind === 'mapped' ? spec.support.field : spec.support.kind === 'alias' ? spec.support.of : spec.support.why;
      assert.ok(text.length > 10, spec.key);
    }
    const defaults = Object.fromEntries(MM2_KEYS.map((spec) => [spec.key, spec.default]));
    assert.equal(defaults['refresh.topics.interval.seconds'], '600');
    assert.equal(defaults['replication.factor'], '2');
    assert.equal(defaults['emit.checkpoints.interval.seconds'], '60');
    assert.equal(defaults['sync.group.offsets.enabled'], 'false');
    assert.equal(defaults['emit.heartbeats.interval.seconds'], '1');
    assert.equal(defaults['groups.exclude'], 'console-consumer-.*, connect-.*, __.*');
  });

  it('knows which top-level keys reach the connectors: use.defaults.from and worker settings do not', () => {
    assert.equal(isConnectorKey('topics'), true);
    assert.equal(isConnectorKey('tasks.max'), true);
    assert.equal(isConnectorKey('use.defaults.from'), false);
    assert.equal(isConnectorKey('offset.flush.interval.ms'), false);
    assert.equal(isConnectorKey('clusters'), false);
  });
});
