/**
 * Records the target refuses in an exactly-once flow, on real brokers. The remote topic takes
 * 20,000 bytes a batch (its own `max.message.bytes`); Kafka's Java transactional producer writes
 * records of about 200 bytes and, every tenth record of a transaction, one of 40,000, in
 * batches that hold several of both. A batch refused as too large goes again in smaller ones
 * inside the transaction, and a record too large on its own follows `errors.tolerance`: with
 * `all` it goes to the dead-letter topic in the same transaction, so a read_committed consumer
 * of the target and the dead-letter topic sees each committed source record exactly once in one
 * of them, also across a SIGKILL; with `none` the run exits 65 naming the record.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { httpAddress, spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';
import type { KafkaRecord } from '../../src/core/record';

const PARTITIONS = 3;
const TARGET_LIMIT = 20_000;
const LARGE_BYTES = 40_000;
const JAVA_TIMEOUT_MS = 180_000;

let source: KafkaKit;
let target: KafkaKit;
let java: JavaTools;
let clusters: TestClusters;

useKits(
  (c) => ({ source: new KafkaKit(c.primary), target: new KafkaKit(c.backup) }),
  (kits) => ({ source, target } = kits),
);

before(async () => {
  java = await JavaTools.prepare(await ensureKafkaDistribution(defaultKafkaVersion()), mirrorflowCacheDir());
  clusters = await testClusters();
});

/** The Java transactional producer: `records` in transactions of 30, every fourth aborted, every tenth record of a transaction 40,000 bytes. */
function produce(topic: string, records: number, label: string, { abortEvery = 4, partitions = PARTITIONS } = {}): Promise<{ committed: number }> {
  return java.benchToolJson<{ committed: number }>(
    [
      'produce-transactional',
      ...['--bootstrap', clusters.primary, '--topic', topic, '--partitions', String(partitions)],
      ...['--records', String(records), '--per-transaction', '30', '--abort-every', String(abortEvery)],
      ...['--large-every', '10', '--large-bytes', String(LARGE_BYTES), '--label', label],
    ],
    JAVA_TIMEOUT_MS,
  );
}

const idOf = (r: KafkaRecord): string => r.key?.toString('utf8') ?? '<null>';
const isLarge = (r: KafkaRecord): boolean => (r.value?.length ?? 0) > TARGET_LIMIT;

/** Per partition, the ids a read_committed consumer reads (the producer's keys are the record ids). */
async function committedIds(kit: KafkaKit, topic: string): Promise<Map<number, string[]>> {
  const all = await kit.readAll(topic);
  return new Map([...all].map(([p, records]) => [p, records.map(idOf)]));
}

/** A remote topic made beforehand with the target's own smaller limit (config sync off, or it would reset it to the target's default). */
async function setUp(prefix: string, partitions = PARTITIONS): Promise<{ s: string; t: string; topic: string; remote: string }> {
  const s = uniqueName('src');
  const t = uniqueName('tgt');
  const topic = uniqueName(prefix);
  const remote = `${s}.${topic}`;
  await source.createTopic(topic, partitions);
  await target.createTopic(remote, partitions, { 'max.message.bytes': String(TARGET_LIMIT) });
  return { s, t, topic, remote };
}

describe('exactly-once: records the target refuses', () => {
  test('tolerance all: batches too large are split in the transaction, records too large go to the dead-letter topic in it; across a SIGKILL, each committed record once in the target or the dead-letter topic', async () => {
    const { s, t, topic, remote } = await setUp('eosbig');
    const dlq = uniqueName('eosdlq');
    const { file } = await writePipeline({
      clusters: { [s]: clusters.primary, [t]: clusters.backup },
      flows: [
        {
          source: s,
          target: t,
          topics: [topic],
          delivery: 'exactly_once',
          tasks: 2,
          errors: { tolerance: 'all', deadletterqueue: { topic_name: dlq, replication_factor: 1 } },
          topic_sync: { sync_configs: false },
        },
      ],
    });
    const children: ChildPipeline[] = [];
    const start = async (): Promise<{ child: ChildPipeline; address: string }> => {
      const child = spawnPipeline(file);
      children.push(child);
      return { child, address: await httpAddress(child, 90_000) };
    };
    try {
      const first = produce(topic, 900, 'r0');
      const { child } = await start();
      await waitFor(async () => (await target.count(dlq).catch(() => 0)) > 3 && (await target.count(remote)) > 100, {
        what: 'records on the target and in the dead-letter topic',
        timeoutMs: 120_000,
      });
      child.kill('SIGKILL');
      await child.exited;
      const second = produce(topic, 300, 'r1');
      const restarted = await start();
      const committed = (await first).committed + (await second).committed;

      const sourceRecords = await source.readAll(topic);
      const expectedTarget = new Map([...sourceRecords].map(([p, records]) => [p, records.filter((r) => !isLarge(r)).map(idOf)]));
      const expectedDead = [...sourceRecords.values()].flat().filter(isLarge).map(idOf).sort();
      assert.equal([...sourceRecords.values()].flat().length, committed, 'a read_committed consumer of the source sees what the producer committed');
      assert.ok(expectedDead.length > 20, `records too large for the target: ${expectedDead.length}`);
      const seen = async (): Promise<{ onTarget: Map<number, string[]>; dead: string[] }> => ({
        onTarget: await committedIds(target, remote),
        dead: (await target.readAllFlat(dlq)).map(idOf).sort(),
      });
      await waitFor(
        async () => {
          const { onTarget, dead } = await seen();
          return [...onTarget.values()].flat().length + dead.length >= committed;
        },
        { what: `the ${committed} committed records on the target or in the dead-letter topic`, timeoutMs: 120_000 },
      );
      const { onTarget, dead } = await seen();
      for (let p = 0; p < PARTITIONS; p++)
        assert.deepEqual(onTarget.get(p) ?? [], expectedTarget.get(p) ?? [], `partition ${p}: every record the target takes, once, in order`);
      assert.deepEqual(dead, expectedDead, 'every record too large once in the dead-letter topic');
      const deadRecord = (await target.readAllFlat(dlq))[0]!;
      const header = (key: string): string | undefined => deadRecord.headers.find((h) => h.key === key)?.value?.toString('utf8');
      assert.equal(header('__connect.errors.topic'), topic);
      assert.equal(header('__connect.errors.stage'), 'KAFKA_PRODUCE');
      const logs = restarted.child.stderr() + children[0]!.stderr();
      assert.match(logs, /A record failed and went to the dead-letter topic/);
      console.log(`exactly-once with refused records: ${committed} committed, ${dead.length} dead-lettered, the rest on the target, each once`);
      restarted.child.kill('SIGTERM');
      assert.equal((await restarted.child.exited).code, 0);
    } finally {
      for (const c of children) c.kill('SIGKILL');
    }
  });

  test('tolerance none: the run exits 65 naming the record and the write; nothing of it or after it is committed', async () => {
    const { s, t, topic, remote } = await setUp('eosbignone', 1);
    await produce(topic, 60, 'n0', { abortEvery: 1000, partitions: 1 });
    const { file } = await writePipeline({
      clusters: { [s]: clusters.primary, [t]: clusters.backup },
      flows: [{ source: s, target: t, topics: [topic], delivery: 'exactly_once', tasks: 2, topic_sync: { sync_configs: false } }],
    });
    const child = spawnPipeline(file);
    try {
      const result = await child.exited;
      assert.equal(result.code, 65, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
      // Record 9 of the first transaction is the first large one.
      assert.match(
        result.stderr,
        new RegExp(`topic "${topic}" partition 0 offset 9 failed in the write to the target: .*larger than ${remote.replace(/\./g, '\\.')}-0 takes`),
      );
      const copied = (await committedIds(target, remote)).get(0) ?? [];
      const before = ((await committedIds(source, topic)).get(0) ?? []).slice(0, 9);
      assert.deepEqual(copied, before.slice(0, copied.length), 'at most the records before the refused one, once, in order');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
