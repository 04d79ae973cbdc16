/**
 * A driver file as it ran under MM2 2.x and 3.x for years (issue #39), run end to end through the
 * real CLI: the old `*.blacklist` names, `use.incremental.alter.configs`, `tasks.max`, every
 * internal topic with its own replication factor, Connect's worker keys (`<target>.group.id`, a
 * custom `offset.storage.topic`, status and config topics), a `producer.override.*`, `acks=1`,
 * keys without effect and one typo MM2 tolerated. `validate` names each note at its line and
 * refuses the typo with a suggestion; `run --unknown-keys warn` replicates as MM2 did: the
 * blacklisted topic stays behind, the blacklisted config is not copied, progress lands in the
 * custom topic.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { spawnCli } from '../support/pipeline-harness';
import { mirrorflow } from './cli';

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;
let dir: string;

sharedClusterKits('mirrorflow-mm2-legacy-', (kits) => ({ clusters, primary, backup, dir } = kits));

function legacyFile(p: string): string {
  const [src, dst] = [`dc1-${p}`, `dc2-${p}`];
  return [
    '# MirrorMaker 2 (Kafka 3.4) - dc1 to dc2',
    `clusters = ${src}, ${dst}`,
    `${src}.bootstrap.servers = ${clusters.primary}`,
    `${dst}.bootstrap.servers = ${clusters.backup}`,
    `${src}->${dst}.enabled = true`,
    `${src}->${dst}.topics = ${p}-.*`,
    `topics.blacklist = .*[\\-\\.]internal, .*\\.replica, __.*, ${p}-secret.*`,
    'groups.blacklist = console-consumer-.*, connect-.*, __.*',
    'config.properties.blacklist = follower\\.replication\\.throttled\\.replicas, leader\\.replication\\.throttled\\.replicas, retention\\.bytes',
    'use.incremental.alter.configs = requested',
    'tasks.max = 4',
    'replication.factor = 1',
    'checkpoints.topic.replication.factor = 1',
    'heartbeats.topic.replication.factor = 1',
    'offset-syncs.topic.replication.factor = 1',
    'offset.storage.replication.factor = 1',
    'status.storage.replication.factor = 1',
    'config.storage.replication.factor = 1',
    `${dst}.offset.storage.topic = mm2-offsets-${p}`,
    `${dst}.group.id = mm2-${p}`,
    `${dst}.offset.flush.interval.ms = 500`,
    `${src}->${dst}.producer.override.compression.type = gzip`,
    `${dst}.producer.acks = 1`,
    'admin.timeout.ms = 60000',
    'errors.retry.timeout = 0',
    `${src}->${dst}.refresh.topic.interval.seconds = 5`,
    'emit.heartbeats.enabled = false',
    'heartbeats.replication.enabled = false',
    'sync.topic.acls.enabled = false',
    '',
  ].join('\n');
}

/** The line of the file that sets `key`, 1-based. */
const lineOf = (text: string, key: string): number => text.split('\n').findIndex((line) => line.startsWith(`${key} =`)) + 1;

describe('a legacy MM2 3.x driver file', () => {
  test('is explained line by line, refuses its typo with a suggestion, and with --unknown-keys warn replicates as MM2 did', async () => {
    const p = uniqueName('legacy');
    const [src, dst] = [`dc1-${p}`, `dc2-${p}`];
    const text = legacyFile(p);
    const file = join(dir, `mm2-${p}.properties`);
    writeFileSync(file, text);

    const refused = await mirrorflow(['validate', file]);
    assert.equal(refused.code, 78, refused.stderr);
    assert.ok(
      refused.stderr.includes(
        `${file}:${lineOf(text, `${src}->${dst}.refresh.topic.interval.seconds`)}:1: ${src}->${dst}.refresh.topic.interval.seconds: unknown MM2 setting`,
      ),
      refused.stderr,
    );
    assert.match(refused.stderr, new RegExp(`did you mean "${src}->${dst}\\.refresh\\.topics\\.interval\\.seconds"\\?`));

    const validated = await mirrorflow(['validate', file, '--unknown-keys', 'warn']);
    assert.equal(validated.code, 0, validated.stderr);
    for (const [key, says] of [
      ['topics.blacklist', /MM2's name for topics\.exclude before Kafka 2\.7/],
      ['groups.blacklist', /MM2's name for groups\.exclude/],
      ['config.properties.blacklist', /MM2's name for config\.properties\.exclude/],
      ['use.incremental.alter.configs', /IncrementalAlterConfigs/],
      ['tasks.max', /no effect outside exactly-once.*more processes with the same file/],
      ['status.storage.replication.factor', /no Connect config or status topics/],
      ['config.storage.replication.factor', /no Connect config or status topics/],
      [`${dst}.group.id`, /Connect worker group that MM2 nodes share/],
      [`${dst}.producer.acks`, /read as acks=all/],
      ['admin.timeout.ms', /has no effect/],
      ['errors.retry.timeout', /has no effect/],
      [`${src}->${dst}.refresh.topic.interval.seconds`, /ignored, as MM2 ignores it \(--unknown-keys warn\)/],
    ] as const) {
      const line = validated.stderr.split('\n').find((l) => l.startsWith(`${file}:${lineOf(text, key)}:`));
      assert.ok(line !== undefined, `no warning at the line of ${key}:\n${validated.stderr}`);
      assert.match(line, says, key);
    }

    await primary.createTopic(`${p}-orders`, 2, { 'retention.ms': '3600000', 'retention.bytes': '1048576' });
    await primary.createTopic(`${p}-secret`, 1);
    const records = (topic: string) =>
      Array.from({ length: 40 }, (_, i) => ({
        partition: i % 2,
        key: Buffer.from(`k${i}`),
        value: Buffer.from(`${topic}-${i}`),
        headers: [],
        timestamp: Date.now(),
      }));
    await primary.produce(`${p}-orders`, records(`${p}-orders`));
    await primary.produce(
      `${p}-secret`,
      records(`${p}-secret`).map((r) => ({ ...r, partition: 0 })),
    );

    const run = spawnCli(['run', file, '--unknown-keys', 'warn', '--status-interval', '0', '--http', 'off']);
    try {
      await waitFor(async () => (await backup.count(`${src}.${p}-orders`).catch(() => 0)) >= 40, { what: 'the orders on dc2', timeoutMs: 90_000 });
      // Progress in the topic offset.storage.topic names, not in MM2's default one.
      await waitFor(async () => (await backup.count(`mm2-offsets-${p}`).catch(() => 0)) > 0, {
        what: 'progress in the custom offsets topic',
        timeoutMs: 30_000,
      });
    } finally {
      run.kill('SIGTERM');
    }
    const exit = await run.exited;
    assert.equal(exit.code, 0, exit.stderr);
    const onTarget = await backup.topicsContaining(p);
    assert.ok(!onTarget.includes(`${src}.${p}-secret`), `the blacklisted topic was not replicated: ${onTarget.join(', ')}`);
    assert.ok(!onTarget.includes(`mm2-offsets.${src}.internal`), `no default offsets topic: ${onTarget.join(', ')}`);
    const configs = await backup.topicConfigs(`${src}.${p}-orders`);
    assert.equal(configs.get('retention.ms')?.value, '3600000');
    assert.notEqual(configs.get('retention.bytes')?.value, '1048576', 'the blacklisted config was not copied');
    const values = (await backup.readAllFlat(`${src}.${p}-orders`)).map((r) => r.value?.toString()).sort();
    assert.deepEqual(
      values,
      records(`${p}-orders`)
        .map((r) => r.value.toString())
        .sort(),
    );
  });
});
