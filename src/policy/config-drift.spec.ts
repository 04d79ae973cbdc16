import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TopicConfigEntry } from '../core/ports/cluster-admin';
import { DefaultConfigPropertyFilter } from './config-property-filter';
import { compareTopicConfigs, configChanges } from './config-drift';

const entry = (name: string, value: string | null, more: Partial<TopicConfigEntry> = {}): TopicConfigEntry => ({
  name,
  value,
  isDefault: false,
  readOnly: false,
  sensitive: false,
  source: 'topic',
  ...more,
});
const atDefault = (name: string, value: string): TopicConfigEntry => entry(name, value, { isDefault: true, source: 'default' });

describe('compareTopicConfigs', () => {
  const targetDefaults = new DefaultConfigPropertyFilter({ exclude: ['delete\\.retention\\..*'] });

  it('sets a source override the target lacks, and leaves alone what already matches', () => {
    const source = [entry('retention.bytes', '1000'), entry('cleanup.policy', 'compact')];
    const target = [atDefault('retention.bytes', '-1'), entry('cleanup.policy', 'compact')];
    const diff = compareTopicConfigs(targetDefaults, source, target);
    assert.deepEqual(diff, [
      { name: 'retention.bytes', sourceValue: '1000', targetValue: '-1', change: { op: 'set', name: 'retention.bytes', value: '1000' } },
    ]);
    assert.deepEqual(configChanges(diff), [{ op: 'set', name: 'retention.bytes', value: '1000' }]);
  });

  it("keeps an excluded config's target override and says why (testSyncTopicConfigs)", () => {
    const diff = compareTopicConfigs(targetDefaults, [entry('delete.retention.ms', '1000')], [entry('delete.retention.ms', '2000')]);
    assert.deepEqual(diff, [{ name: 'delete.retention.ms', sourceValue: '1000', targetValue: '2000', keptBecause: 'excluded by topic_sync.configs_exclude' }]);
    assert.deepEqual(configChanges(diff), []);
  });

  it("use_defaults_from target: a source default removes the target's override (testReplicateTargetDefault)", () => {
    const diff = compareTopicConfigs(targetDefaults, [atDefault('retention.bytes', '-1')], [entry('retention.bytes', '1000')]);
    assert.deepEqual(configChanges(diff), [{ op: 'delete', name: 'retention.bytes' }]);
  });

  it('use_defaults_from target: nothing to delete where the target is at its own default, even a different one', () => {
    const diff = compareTopicConfigs(
      targetDefaults,
      [atDefault('segment.ms', '604800000')],
      [entry('segment.ms', '3600000', { source: 'dynamic-default-broker' })],
    );
    assert.deepEqual(configChanges(diff), []);
    assert.match(diff[0]!.keptBecause!, /use_defaults_from 'target' keeps the target's default/);
  });

  it('use_defaults_from source: the source default is set on the target (testReplicateSourceDefault)', () => {
    const sourceDefaults = new DefaultConfigPropertyFilter({ exclude: ['delete\\.retention\\..*'], useDefaultsFrom: 'source' });
    const source = [atDefault('retention.bytes', '-1'), atDefault('delete.retention.ms', '86400000')];
    const target = [entry('retention.bytes', '2000'), entry('delete.retention.ms', '2000')];
    const diff = compareTopicConfigs(sourceDefaults, source, target);
    assert.deepEqual(configChanges(diff), [{ op: 'set', name: 'retention.bytes', value: '-1' }]);
    assert.equal(diff.find((d) => d.name === 'delete.retention.ms')?.keptBecause, 'excluded by topic_sync.configs_exclude');
  });

  it('names why other differences stay: read-only, static broker config, missing on either side, sync off', () => {
    const source = [
      entry('message.format.version', '3.0', { readOnly: true }),
      entry('compression.type', 'gzip', { source: 'static-broker' }),
      entry('remote.log.copy.disable', 'true'),
    ];
    const target = [entry('message.format.version', '2.8', { readOnly: true }), atDefault('compression.type', 'producer'), entry('only.on.target', 'x')];
    const kept = Object.fromEntries(compareTopicConfigs(targetDefaults, source, target).map((d) => [d.name, d.keptBecause ?? d.change?.op]));
    assert.deepEqual(kept, {
      'compression.type': "the source's value comes from its broker's static configuration, which is not copied",
      'message.format.version': 'read-only on the source',
      'only.on.target': 'the source has no such config',
      'remote.log.copy.disable': 'set',
    });
    const off = compareTopicConfigs(targetDefaults, [entry('retention.bytes', '1000')], [atDefault('retention.bytes', '-1')], false);
    assert.deepEqual(off, [{ name: 'retention.bytes', sourceValue: '1000', targetValue: '-1', keptBecause: 'topic_sync.sync_configs is false' }]);
  });
});
