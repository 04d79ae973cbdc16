import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { CLIENT_ROLES, clientKeyUse, knownClientKeys } from './mm2-client-keys';
import { MM2_KEYS } from './mm2-keys';
import { parseMm2Properties, type ParsedPipeline } from './parse-mm2-properties';
import type { FlowConfig } from '../pipeline-config';

/** What a real MM2 3.x file holds besides what the other specs cover: old names, internal topics, overrides, keys without effect. */
const BASE = [
  'clusters = primary, backup',
  'primary.bootstrap.servers = 127.0.0.1:9092',
  'backup.bootstrap.servers = 127.0.0.1:9093',
  'primary->backup.enabled = true',
];

function parse(lines: readonly string[], options: { unknownKeys?: 'error' | 'warn' } = {}): ParsedPipeline {
  return parseMm2Properties(lines.join('\n'), 'mm2.properties', { env: {}, ...options });
}

function problems(lines: readonly string[], options: { unknownKeys?: 'error' | 'warn' } = {}): string[] {
  try {
    parse(lines, options);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => formatConfigIssue(issue));
    throw error;
  }
  assert.fail('expected problems');
}

const flow = (parsed: ParsedPipeline, name = 'primary->backup'): FlowConfig => parsed.config.flows.find((f) => f.name === name)!;
const warnings = (parsed: ParsedPipeline): string[] => parsed.warnings.map((w) => formatConfigIssue(w, 'warning'));

describe('mm2.properties: the names of MM2 2.x and 3.x', () => {
  it('reads topics.blacklist, groups.blacklist and config.properties.blacklist as their exclude keys, with a note at each line', () => {
    const parsed = parse([...BASE, 'topics.blacklist = legacy.*', 'groups.blacklist = old-.*', 'config.properties.blacklist = retention.*']);
    const f = flow(parsed);
    assert.deepEqual(f.topics_exclude, ['legacy.*']);
    assert.deepEqual(f.checkpoints.groups_exclude, ['old-.*']);
    assert.deepEqual(f.topic_sync.configs_exclude, ['retention.*']);
    assert.deepEqual(warnings(parsed), [
      "mm2.properties:5:1: warning: topics.blacklist: is MM2's name for topics.exclude before Kafka 2.7: read as topics.exclude, as MM2 3.x reads it (topics.exclude wins where both are set)\n  hint: rename it topics.exclude: Kafka 4.0 no longer reads the old name",
      "mm2.properties:6:1: warning: groups.blacklist: is MM2's name for groups.exclude before Kafka 2.7: read as groups.exclude, as MM2 3.x reads it (groups.exclude wins where both are set)\n  hint: rename it groups.exclude: Kafka 4.0 no longer reads the old name",
      "mm2.properties:7:1: warning: config.properties.blacklist: is MM2's name for config.properties.exclude before Kafka 2.7: read as config.properties.exclude, as MM2 3.x reads it (config.properties.exclude wins where both are set)\n  hint: rename it config.properties.exclude: Kafka 4.0 no longer reads the old name",
    ]);
  });

  it('lets the new name win where both reach a flow, as translateDeprecatedConfigs does, even from the top level over the flow', () => {
    const parsed = parse([...BASE, 'topics.exclude = new.*', 'primary->backup.topics.blacklist = old.*']);
    assert.deepEqual(flow(parsed).topics_exclude, ['new.*']);
    assert.ok(
      warnings(parsed).some((w) => w.includes('primary->backup.topics.blacklist: is ignored: topics.exclude is set for the same flow and wins, as in MM2 3.x')),
    );
    // The rename hint keeps the flow prefix.
    assert.ok(warnings(parsed).some((w) => w.includes('rename it primary->backup.topics.exclude')));
  });

  it('reads use.incremental.alter.configs: requested and required with a note, never with what it would have done, others refused', () => {
    assert.match(warnings(parse([...BASE, 'use.incremental.alter.configs = requested'])).join('\n'), /deprecated in MM2 3.9 and gone in Kafka 4.0/);
    assert.match(warnings(parse([...BASE, 'use.incremental.alter.configs = never'])).join('\n'), /read as required: .*AlterConfigs would also have reset/);
    assert.deepEqual(problems([...BASE, 'use.incremental.alter.configs = sometimes']), [
      'mm2.properties:5:33: use.incremental.alter.configs: must be one of: requested, required, never',
    ]);
  });

  it('says that add.source.alias.to.metrics has no effect: the MM2-named metrics always carry source, as in Kafka 4.0', () => {
    assert.match(warnings(parse([...BASE, 'add.source.alias.to.metrics = true'])).join('\n'), /always carry the source label/);
  });
});

describe('mm2.properties: tasks.max, internal topics, client overrides, worker keys', () => {
  it('warns that tasks.max has no effect outside exactly-once and says how mirrorflow scales; with exactly-once it is the slot count', () => {
    const atLeastOnce = parse([...BASE, 'tasks.max = 8']);
    assert.match(warnings(atLeastOnce).join('\n'), /5:1: warning: tasks\.max: has no effect outside exactly-once: .*more processes with the same file/);
    assert.deepEqual(warnings(parse([...BASE, 'tasks.max = 1'])), []);
    const exactlyOnce = parse([...BASE, 'tasks.max = 8', 'backup.exactly.once.source.support = enabled']);
    assert.equal(flow(exactlyOnce).tasks, 8);
    assert.deepEqual(
      exactlyOnce.warnings.filter((w) => w.path === 'tasks.max'),
      [],
    );
  });

  it("gives each internal topic its own replication factor, MM2's default 3 where the file sets none", () => {
    const defaults = flow(parse([...BASE, 'replication.factor = 1']));
    assert.equal(defaults.topic_sync.replication_factor, 1);
    assert.equal(defaults.offset_syncs.replication_factor, 3);
    assert.equal(defaults.progress.replication_factor, 3);
    assert.equal(defaults.checkpoints.replication_factor, 3);
    assert.equal(defaults.heartbeats.replication_factor, 3);
    const own = parse([
      ...BASE,
      'replication.factor = 2',
      'offset-syncs.topic.replication.factor = 1',
      'backup.offset.storage.replication.factor = -1',
      'checkpoints.topic.replication.factor = 1',
      'heartbeats.topic.replication.factor = 1',
    ]);
    const f = flow(own);
    assert.deepEqual(
      [
        f.topic_sync.replication_factor,
        f.offset_syncs.replication_factor,
        f.progress.replication_factor,
        f.checkpoints.replication_factor,
        f.heartbeats.replication_factor,
      ],
      [2, 1, -1, 1, 1],
    );
    assert.deepEqual(warnings(own), []);
  });

  it('names the progress topic after offset.storage.topic of the target cluster, as MM2 lets users do', () => {
    assert.equal(flow(parse(BASE)).progress.topic, undefined);
    assert.equal(flow(parse([...BASE, 'backup.offset.storage.topic = mm2-offsets-dr'])).progress.topic, 'mm2-offsets-dr');
    assert.equal(flow(parse([...BASE, 'offset.storage.topic = shared-offsets'])).progress.topic, 'shared-offsets');
  });

  it('reads producer.override.* as the producer that writes the flow, and says consumer.override.* has no effect, as in MM2', () => {
    const parsed = parse([...BASE, 'primary->backup.producer.override.compression.type = zstd', 'primary->backup.consumer.override.max.poll.records = 10']);
    assert.equal(flow(parsed).producer.compression, 'zstd');
    assert.deepEqual(warnings(parsed), [
      "mm2.properties:6:1: warning: primary->backup.consumer.override.max.poll.records: has no effect, as in MM2: Connect applies consumer.override.* to sink connectors and exactly-once admin clients, and MM2's replication consumer reads consumer.*\n  hint: write it as primary->backup.consumer.max.poll.records",
    ]);
    // The override wins over the cluster's producer setting, as Connect's does over the worker's.
    assert.equal(
      flow(parse([...BASE, 'backup.producer.compression.type = gzip', 'primary->backup.producer.override.compression.type = lz4'])).producer.compression,
      'lz4',
    );
    assert.deepEqual(problems([...BASE, 'primary->backup.producer.override.compresion.type = lz4']), [
      'mm2.properties:5:1: primary->backup.producer.override.compresion.type: unknown producer setting\n  hint: did you mean "primary->backup.producer.override.compression.type"?',
    ]);
  });

  it('accepts acks=1 with a warning (mirrorflow writes with acks=all), and all or -1 without a word', () => {
    assert.deepEqual(warnings(parse([...BASE, 'backup.producer.acks = all'])), []);
    assert.deepEqual(warnings(parse([...BASE, 'primary->backup.producer.acks = -1'])), []);
    const one = warnings(parse([...BASE, 'backup.producer.acks = 1']));
    assert.equal(one.length, 1);
    assert.match(one[0]!, /^mm2\.properties:5:1: warning: backup\.producer\.acks: is read as acks=all: /);
  });

  it('explains <cluster>.group.id, the Connect group of MM2 nodes, as what mirrorflow shares work by: the pipeline', () => {
    const lines = warnings(parse([...BASE, 'backup.group.id = mm2-dr']));
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /backup\.group\.id: has no effect in mirrorflow: the Connect worker group that MM2 nodes share; .*mirrorflow\.<pipeline name>\.<source>-<target>.*--set name=/,
    );
  });
});

describe('mm2.properties: no key is silently ignored', () => {
  /** Left to the change that maps them to the consumer's group settings and rack. */
  const MAPPED_ELSEWHERE = new Set(['session.timeout.ms', 'heartbeat.interval.ms', 'max.poll.interval.ms', 'client.rack']);

  it('warns at the line of every key accepted without effect', () => {
    const lines: string[] = [];
    for (const spec of MM2_KEYS) {
      if (spec.support.kind !== 'no-effect' || spec.key === 'name') continue;
      lines.push(spec.group === 'worker' ? `backup.${spec.key} = ${spec.default ?? 'x'}` : `${spec.key} = ${spec.default ?? 'x'}`);
    }
    for (const role of CLIENT_ROLES) {
      for (const key of knownClientKeys(role)) {
        const use = clientKeyUse(key, role);
        if (use.kind !== 'support' || use.support.kind !== 'no-effect' || MAPPED_ELSEWHERE.has(key)) continue;
        lines.push(`primary.${role}.${key} = 1`);
      }
    }
    assert.ok(lines.length >= 30, `${lines.length} keys`);
    const parsed = parse([...BASE, ...lines]);
    const warnedLines = new Set(parsed.warnings.map((w) => w.line));
    const silent = lines.filter((_, i) => !warnedLines.has(BASE.length + i + 1));
    assert.deepEqual(silent, []);
  });
});

describe('mm2.properties: unknown keys', () => {
  it("suggests the key a garbled one meant, by its words, as for 000_4ce2e292d182a991.txt's example", () => {
    assert.deepEqual(problems([...BASE, 'cluster.primary.brokerbootstrap.listservers = 127.0.0.1:9092']), [
      'mm2.properties:5:1: cluster.primary.brokerbootstrap.listservers: unknown MM2 setting\n  hint: did you mean "primary.bootstrap.servers"?',
    ]);
    assert.deepEqual(problems([...BASE, 'primary->backup.topic.exclude = x']), [
      'mm2.properties:5:1: primary->backup.topic.exclude: unknown MM2 setting\n  hint: did you mean "primary->backup.topics.exclude"?',
    ]);
    assert.deepEqual(problems([...BASE, 'heartbeats.emit.interval.seconds = 5']), [
      'mm2.properties:5:1: heartbeats.emit.interval.seconds: unknown MM2 setting\n  hint: did you mean "emit.heartbeats.interval.seconds"?',
    ]);
  });

  it('refuses an unknown key by default, saying how to ignore it as MM2 does; --unknown-keys warn ignores it with a warning', () => {
    assert.deepEqual(problems([...BASE, 'no.such.thing = 1']), [
      'mm2.properties:5:1: no.such.thing: unknown MM2 setting\n  hint: --unknown-keys warn ignores unknown keys, as MM2 does',
    ]);
    const parsed = parse([...BASE, 'no.such.thing = 1', 'primary->backup.topcs = orders', 'other->backup.topics = x'], { unknownKeys: 'warn' });
    assert.deepEqual(flow(parsed).topics, ['.*']);
    assert.deepEqual(warnings(parsed), [
      'mm2.properties:5:1: warning: no.such.thing: unknown MM2 setting; ignored, as MM2 ignores it (--unknown-keys warn)',
      'mm2.properties:6:1: warning: primary->backup.topcs: unknown MM2 setting; ignored, as MM2 ignores it (--unknown-keys warn)\n  hint: did you mean "primary->backup.topics"?',
      'mm2.properties:7:1: warning: other->backup.topics: names cluster "other", which is not in clusters; ignored, as MM2 ignores it (--unknown-keys warn)\n  hint: clusters: primary, backup; MM2 would silently ignore this key',
    ]);
  });
});
