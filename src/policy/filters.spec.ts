import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TopicConfigEntry } from '../core/ports/cluster-admin';
import { DEFAULT_CONFIG_PROPERTIES_EXCLUDE, DefaultConfigPropertyFilter, alterConfigOps, newTopicConfigs, targetConfig } from './config-property-filter';
import { DefaultGroupFilter } from './group-filter';
import { InvalidPatternError } from './pattern-list';
import { DefaultTopicFilter } from './topic-filter';

describe('DefaultTopicFilter', () => {
  it('has MM2 4.3.1 defaults (vectors from Kafka 4.3.1 DefaultTopicFilter)', () => {
    const f = new DefaultTopicFilter();
    const expected: Record<string, boolean> = {
      orders: true,
      'foo.internal': true,
      'foo-internal': true,
      'mm2-offsets.A.internal': false,
      'x.replica': false,
      __x: false,
      heartbeats: true,
    };
    for (const [topic, want] of Object.entries(expected)) assert.equal(f.shouldReplicateTopic(topic), want, topic);
  });

  it('needs an include match and no exclude match (MirrorSourceConfigTest.testTopicMatching)', () => {
    const f = new DefaultTopicFilter({ include: ['topic1'] });
    assert.equal(f.shouldReplicateTopic('topic1'), true);
    assert.equal(f.shouldReplicateTopic('topic2'), false);
    const g = new DefaultTopicFilter({ include: ['topic.*'], exclude: ['topic2'] });
    assert.equal(g.shouldReplicateTopic('topic1'), true);
    assert.equal(g.shouldReplicateTopic('topic2'), false);
  });

  it('replicates nothing with an empty include list, everything included with an empty exclude list', () => {
    assert.equal(new DefaultTopicFilter({ include: [] }).shouldReplicateTopic('topic1'), false);
    assert.equal(new DefaultTopicFilter({ exclude: [] }).shouldReplicateTopic('__consumer_offsets'), true);
  });

  it('throws InvalidPatternError naming the entry', () => {
    assert.throws(
      () => new DefaultTopicFilter({ exclude: ['ok', '(bad'] }),
      (e: unknown) => e instanceof InvalidPatternError && e.index === 1,
    );
  });
});

describe('DefaultGroupFilter', () => {
  it('has MM2 defaults (vectors from Kafka 4.3.1 DefaultGroupFilter)', () => {
    const f = new DefaultGroupFilter();
    const expected: Record<string, boolean> = { g1: true, 'console-consumer-1': false, 'connect-x': false, __x: false, connectx: true };
    for (const [group, want] of Object.entries(expected)) assert.equal(f.shouldReplicateGroup(group), want, group);
  });

  it("never lets mirrorflow's own groups through, whatever its lists say", () => {
    const everything = new DefaultGroupFilter({ include: ['.*'], exclude: [] });
    for (const own of ['mirrorflow.p.a-b', 'mirrorflow.p.a-b.elected', 'mirrorflow.p.a-b.preserved-offsets', 'mirrorflow-drill.g.x1', 'mirrorflow-reader-3f1c'])
      assert.equal(everything.shouldReplicateGroup(own), false, own);
    for (const user of ['mirrorflow', 'mirrorflow-app', 'my.mirrorflow.group']) assert.equal(everything.shouldReplicateGroup(user), true, user);
  });

  it('matches groups like MirrorCheckpointConfigTest.testGroupMatching', () => {
    const f = new DefaultGroupFilter({ include: ['group1'] });
    assert.equal(f.shouldReplicateGroup('group1'), true);
    assert.equal(f.shouldReplicateGroup('group2'), false);
    assert.equal(new DefaultGroupFilter({ include: [] }).shouldReplicateGroup('group1'), false);
  });
});

const entry = (name: string, value: string | null, over: Partial<TopicConfigEntry> = {}): TopicConfigEntry => ({
  name,
  value,
  isDefault: false,
  readOnly: false,
  sensitive: false,
  source: 'topic',
  ...over,
});

describe('DefaultConfigPropertyFilter', () => {
  it('excludes the Kafka 4.3.1 default list (vectors from Kafka 4.3.1 DefaultConfigPropertyFilter)', () => {
    const f = new DefaultConfigPropertyFilter();
    const expected: Record<string, boolean> = {
      'min.insync.replicas': false,
      // The default entries are regexes with unescaped dots.
      minXinsyncXreplicas: false,
      'retention.ms': true,
      'message.timestamp.type': false,
      'log.message.timestamp.before.max.ms': false,
      'message.timestamp.before.max.ms': true,
      'message.timestamp.after.max.ms': true,
      'unclean.leader.election.enable': false,
      'follower.replication.throttled.replicas': false,
      'leader.replication.throttled.replicas': false,
      'message.timestamp.difference.max.ms': false,
      'cleanup.policy': true,
    };
    for (const [name, want] of Object.entries(expected)) assert.equal(f.shouldReplicateConfigProperty(name), want, name);
    assert.equal(DEFAULT_CONFIG_PROPERTIES_EXCLUDE.length, 8);
  });

  it('takes source defaults only with useDefaultsFrom "source"', () => {
    assert.equal(new DefaultConfigPropertyFilter().shouldReplicateSourceDefault('x'), false);
    assert.equal(new DefaultConfigPropertyFilter({ useDefaultsFrom: 'source' }).shouldReplicateSourceDefault('x'), true);
  });

  it('replicates everything with an empty exclude list', () => {
    assert.equal(new DefaultConfigPropertyFilter({ exclude: [] }).shouldReplicateConfigProperty('min.insync.replicas'), true);
  });
});

describe('targetConfig', () => {
  const entries: readonly TopicConfigEntry[] = [
    entry('name-1', 'value-1'),
    entry('min.insync.replicas', '2'),
    entry('exclude_param.param1', 'value-param1'),
    entry('retention.ms', '604800000', { isDefault: true, source: 'default' }),
    entry('segment.bytes', '1000', { source: 'dynamic-default-broker' }),
    entry('compression.type', 'producer', { source: 'static-broker' }),
    entry('message.format.version', '3.0', { readOnly: true }),
    entry('secret', null, { sensitive: true }),
  ];
  const names = (list: readonly TopicConfigEntry[]) => list.map((e) => e.name);

  it('keeps non-default, writable, non-sensitive, non-static, non-excluded entries when creating topics (testConfigPropertyFilteringWithAlterConfigs)', () => {
    const f = new DefaultConfigPropertyFilter();
    assert.deepEqual(names(targetConfig(f, entries, false)), ['name-1', 'exclude_param.param1', 'segment.bytes']);
  });

  it('adds source defaults with use.defaults.from=source (…AndSourceDefault)', () => {
    const f = new DefaultConfigPropertyFilter({ useDefaultsFrom: 'source' });
    assert.deepEqual(names(targetConfig(f, entries, false)), ['name-1', 'exclude_param.param1', 'retention.ms', 'segment.bytes']);
  });

  it('includes defaults when incremental (testConfigPropertyFiltering)', () => {
    const f = new DefaultConfigPropertyFilter();
    assert.deepEqual(names(targetConfig(f, entries, true)), ['name-1', 'exclude_param.param1', 'retention.ms', 'segment.bytes']);
  });

  it('builds new-topic configs without excluded properties (testNewTopicConfigs)', () => {
    const f = new DefaultConfigPropertyFilter({
      exclude: [...DEFAULT_CONFIG_PROPERTIES_EXCLUDE, 'exclude_param.*'],
    });
    assert.deepEqual(newTopicConfigs(f, entries), { 'name-1': 'value-1', 'segment.bytes': '1000' });
  });

  it('SETs source values and DELETEs source defaults in the periodic sync', () => {
    assert.deepEqual(alterConfigOps(new DefaultConfigPropertyFilter(), entries), [
      { op: 'set', name: 'name-1', value: 'value-1' },
      { op: 'set', name: 'exclude_param.param1', value: 'value-param1' },
      { op: 'delete', name: 'retention.ms' },
      { op: 'set', name: 'segment.bytes', value: '1000' },
    ]);
    assert.deepEqual(alterConfigOps(new DefaultConfigPropertyFilter({ useDefaultsFrom: 'source' }), [entries[3]!]), [
      { op: 'set', name: 'retention.ms', value: '604800000' },
    ]);
  });
});
