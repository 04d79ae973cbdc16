/**
 * `offsets: preserve` against real brokers: each target partition holds its source partition's
 * records at the same offsets — a plain topic over many partitions, a compressed topic written by
 * Kafka's Java producer with its batches forwarded, a source whose log starts above 0 (fillers
 * written and deleted), kill -9 restarts while a producer keeps writing — and a partition where
 * that cannot hold (a non-empty target, a compacted source with holes, a transactional source's
 * markers) falls back, reported with the partition, the reason and the offset, while every
 * record is still copied. The target is read as a read_committed consumer reads it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom } from '#rxjs';
import { setTimeout as pace } from 'node:timers/promises';
import { KafkaKit, snapshot, type TestRecord } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor } from '../support/clusters';
import { runCli, spawnPipeline, startPipeline, writePipeline, type ChildPipeline, type RunningPipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';
import type { KafkaRecord } from '../../src/core/record';
import type { PartitionPreservation } from '../../src/flow/replication/preservation-status';
import { FILLER_HEADER } from '../../src/flow/replication/offset-preservation';
import { createKafkaClients, plaintextConnection } from '../../src/pipeline';
import { silentLogger } from '../../src/core/ports/logger';
import type { KafkaClients } from '../../src/core/ports/kafka-clients';

const T0 = 1_700_000_000_000;
const PRESERVE = { offsets: 'preserve', batching: { forward_compressed_min_bytes: 0 } };

let source: KafkaKit;
let target: KafkaKit;
let java: JavaTools;
let bootstrap: { primary: string; backup: string };
let clients: KafkaClients;
sourceAndTargetKits((kits) => ({ source, target } = kits));

before(async () => {
  java = await JavaTools.prepare(await ensureKafkaDistribution(defaultKafkaVersion()), mirrorflowCacheDir());
  bootstrap = await testClusters();
  clients = createKafkaClients(
    [plaintextConnection('primary', bootstrap.primary), plaintextConnection('backup', bootstrap.backup)],
    silentLogger,
    'mirrorflow-preserve-test',
  );
});

after(async () => {
  await clients?.close();
});

function numbered(label: string, from: number, count: number, partitions: number, key = (n: number): string => `k${n}`): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: (from + i) % partitions,
    key: Buffer.from(key(from + i)),
    value: Buffer.from(`${label}-${from + i}`),
    headers: [{ key: 'n', value: Buffer.from(String(from + i)) }],
    timestamp: T0 + from + i,
  }));
}

/** Per partition, each record with its offset: what a consumer positioned at an offset reads. */
const byOffset = (records: readonly KafkaRecord[]): object[] => records.map((r) => ({ offset: r.offset, ...snapshot([r])[0] }));

/** Every partition of `remote` holds exactly the source's records of `topic`, each at the source record's offset. */
async function assertSameOffsets(topic: string, remote: string): Promise<void> {
  const from = await source.readAll(topic);
  const to = await target.readAll(remote);
  assert.ok(from.size > 0, `the source topic ${topic} has records`);
  for (const [partition, records] of from) {
    assert.deepEqual(byOffset(to.get(partition) ?? []), byOffset(records), `${remote}-${partition}: same records at the same offsets as ${topic}-${partition}`);
  }
}

/** Waits until every source partition of `topic` was read to its end (skipped markers included). */
async function caughtUp(run: RunningPipeline, topic: string): Promise<void> {
  const ends = await source.endOffsets(topic);
  await run.until(
    () => {
      const done = new Map<number, number>();
      for (const s of run.statuses()) for (const p of s.partitions.values()) if (p.topic === topic) done.set(p.partition, p.nextOffset);
      return ends.every((end, partition) => (done.get(partition) ?? 0) >= end);
    },
    { what: `${topic} read to its end (${ends.join(', ')})`, timeoutMs: 90_000 },
  );
}

const preservation = (run: RunningPipeline, topic: string): PartitionPreservation[] =>
  (run.statuses()[0]?.preservation?.values() ?? []).filter((p) => p.topic === topic);

describe('offsets: preserve', () => {
  test('a plain topic of 12 partitions: every record at its source offset, every partition reported preserved', async () => {
    const topic = `${uniqueName('keep-plain')}.orders`;
    await source.createTopic(topic, 12);
    await source.produce(topic, numbered('a', 0, 2400, 12));
    const { file } = await writePipeline({ flows: [{ topics: [topic.replace(/\./g, '\\.')], ...PRESERVE, batching: { max_records: 150 } }] });
    const run = await startPipeline(file);
    try {
      await caughtUp(run, topic);
      await source.produce(topic, numbered('b', 2400, 600, 12));
      await caughtUp(run, topic);
    } finally {
      await run.stop();
    }
    await assertSameOffsets(topic, `primary.${topic}`);
    const states = preservation(run, topic);
    assert.equal(states.length, 12, 'each partition has a state');
    assert.deepEqual(
      states.filter((s) => !s.preserved),
      [],
      'no partition fell back',
    );
  });

  test('a compressed topic written by the Java producer of Kafka: its batches are forwarded whole and keep their offsets', async () => {
    const topic = `${uniqueName('keep-lz4')}-events`;
    await source.createTopic(topic, 3);
    await java.produce({
      bootstrap: bootstrap.primary,
      topic,
      partitions: 3,
      records: 6000,
      keyBytes: 16,
      valueBytes: 200,
      headers: 1,
      producer: ['compression.type=lz4', 'linger.ms=5'],
      timeoutMs: 120_000,
    });
    const { file } = await writePipeline({ flows: [{ topics: [topic], ...PRESERVE, producer: { compression: 'lz4' } }] });
    const run = await startPipeline(file);
    try {
      await caughtUp(run, topic);
    } finally {
      await run.stop();
    }
    assert.ok(run.statuses()[0]!.recordBatchesForwarded > 0, 'the compressed batches went as fetched');
    await assertSameOffsets(topic, `primary.${topic}`);
    assert.ok(
      preservation(run, topic).every((s) => s.preserved),
      'every partition preserved',
    );
  });

  test('a source whose log starts at 300: the target starts there too, and no consumer ever sees a filler', async () => {
    const topic = `${uniqueName('keep-start')}-log`;
    await source.createTopic(topic, 2);
    await source.produce(topic, numbered('a', 0, 1000, 2));
    await source.deleteRecords(topic, 0, 300);
    await source.deleteRecords(topic, 1, 120);
    const remote = `primary.${topic}`;
    const { file } = await writePipeline({ flows: [{ topics: [topic], ...PRESERVE }] });
    const run = await startPipeline(file);
    try {
      await caughtUp(run, topic);
    } finally {
      await run.stop();
    }
    assert.deepEqual(await target.startOffsets(remote), [300, 120], 'the target log starts where the source log starts');
    await assertSameOffsets(topic, remote);
    const all = [...(await target.readAll(remote)).values()].flat();
    assert.equal(all.filter((r) => r.headers.some((h) => h.key === FILLER_HEADER)).length, 0, 'a consumer at earliest reads no filler');
    assert.ok(
      preservation(run, topic).every((s) => s.preserved),
      'both partitions preserved',
    );
  });

  test('kill -9 twice while a producer keeps writing: each restart resumes at the end of the target, offsets stay equal', async () => {
    const topic = `${uniqueName('keep-kill')}-events`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 3);
    await source.produce(topic, numbered('a', 0, 900, 3));
    let stopped = false;
    let n = 900;
    const producing = (async () => {
      while (!stopped) {
        await source.produce(topic, numbered('a', n, 30, 3));
        n += 30;
        await pace(20);
      }
    })();
    const { file } = await writePipeline({ flows: [{ topics: [topic], ...PRESERVE, progress: { flush_interval_ms: 2000 } }] });
    const logs: string[] = [];
    let child: ChildPipeline | undefined;
    try {
      for (let kill = 0; kill < 2; kill++) {
        child = spawnPipeline(file);
        const before = (await target.topics()).has(remote) ? await target.count(remote) : 0;
        await waitFor(async () => (await target.topics()).has(remote) && (await target.count(remote)) > before + 300, {
          what: `run ${kill + 1} copying records`,
          timeoutMs: 60_000,
        });
        child.kill('SIGKILL');
        await child.exited;
        logs.push(child.stdout() + child.stderr());
      }
      stopped = true;
      await producing;
      child = spawnPipeline(file);
      const ends = await source.endOffsets(topic);
      await waitFor(async () => (await target.endOffsets(remote)).every((end, p) => end >= ends[p]!), { what: 'the last run catching up', timeoutMs: 90_000 });
      child.kill('SIGTERM');
      const last = await child.exited;
      logs.push(last.stdout + last.stderr);
    } finally {
      stopped = true;
      await producing;
      child?.kill('SIGKILL');
    }
    await assertSameOffsets(topic, remote);
    const output = logs.join('\n');
    assert.doesNotMatch(output, /Offsets no longer preserved/, 'no partition fell back');
    assert.match(output, /resuming at the end of the target partition/, 'a restart resumed past the stored progress');
  });

  test('a target partition that is not empty at the start falls back alone, named with its reason and offset', async () => {
    const topic = `${uniqueName('keep-busy')}-orders`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 2);
    await source.produce(topic, numbered('a', 0, 400, 2));
    await target.createTopic(remote, 2);
    await target.produce(remote, [{ partition: 1, key: null, value: Buffer.from('already here'), headers: [], timestamp: T0 }]);
    const { file } = await writePipeline({ flows: [{ topics: [topic], ...PRESERVE }] });
    const run = await startPipeline(file);
    try {
      await caughtUp(run, topic);
    } finally {
      await run.stop();
    }
    const states = preservation(run, topic);
    assert.deepEqual(
      states.map((s) => (s.preserved ? { partition: s.partition, preserved: true } : { partition: s.partition, reason: s.reason, from: s.fromOffset })),
      [
        { partition: 1, reason: 'the target partition was not empty at the start (it ends at offset 1)', from: 0 },
        { partition: 0, preserved: true },
      ],
    );
    assert.ok(
      run.logs.some((l) => l.level === 'warn' && l.message.startsWith('Offsets no longer preserved')),
      'the fallback is a warning',
    );
    const onTarget = await target.readAll(remote);
    const fromSource = await source.readAll(topic);
    assert.deepEqual(snapshot(onTarget.get(1)!.slice(1)), snapshot(fromSource.get(1)!), 'the fallen-back partition still gets every record');
    assert.deepEqual(byOffset(onTarget.get(0)!), byOffset(fromSource.get(0)!), 'the other partition keeps its offsets');
  });

  test('a transactional source: its markers leave offsets without records, so the partition falls back at the first', async () => {
    const topic = `${uniqueName('keep-txn')}-payments`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 1);
    await source.produce(topic, numbered('plain', 0, 50, 1));
    await source.produceTransactional(topic, [{ records: numbered('txn', 50, 10, 1), commit: true }]);
    // The broker writes the commit marker after it answered the commit: the next record lands after the marker once it is there.
    await waitFor(async () => (await source.endOffsets(topic))[0] === 61, { what: `the commit marker of ${topic} at offset 60` });
    await source.produce(topic, numbered('after', 60, 10, 1));
    const { file } = await writePipeline({ flows: [{ topics: [topic], ...PRESERVE }] });
    const run = await startPipeline(file);
    try {
      await caughtUp(run, topic);
    } finally {
      await run.stop();
    }
    const [state] = preservation(run, topic);
    const offsetsOnTarget = ((await target.readAll(remote)).get(0) ?? []).map((r) => r.offset);
    assert.ok(state !== undefined && !state.preserved, `the partition fell back: ${JSON.stringify(state)}; target offsets ${offsetsOnTarget.join(',')}`);
    // Offsets 0-59 are records, 60 the commit marker: the first record after it is at 61.
    assert.equal(state.fromOffset, 61);
    assert.match(state.reason, /no records at offsets 60 to 60/);
    const onTarget = (await target.readAll(remote)).get(0)!;
    assert.deepEqual(snapshot(onTarget), snapshot((await source.readAll(topic)).get(0)!), 'every committed record is copied');
    assert.deepEqual(
      onTarget.slice(0, 60).map((r) => r.offset),
      Array.from({ length: 60 }, (_, i) => i),
      'the records before the marker kept their offsets',
    );
  });

  test('a compacted source with holes falls back at the first hole; every surviving record is copied', async () => {
    const topic = `${uniqueName('keep-compact')}-state`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 1, {
      'cleanup.policy': 'compact',
      'segment.ms': '100',
      'min.cleanable.dirty.ratio': '0.001',
      'delete.retention.ms': '0',
      'min.compaction.lag.ms': '0',
    });
    // Ten keys written 30 times each: compaction keeps the last of each.
    await source.produce(
      topic,
      numbered('v', 0, 300, 1, (n) => `key-${n % 10}`),
    );
    const holes = async (): Promise<boolean> => {
      // A newer segment lets the cleaner compact the older ones.
      await source.produce(
        topic,
        numbered('tail', 1000, 1, 1, () => 'tail'),
      );
      const records = (await source.readAll(topic)).get(0) ?? [];
      return records.some((r, i) => r.offset !== i);
    };
    await waitFor(holes, { what: `the log cleaner compacting ${topic}`, timeoutMs: 90_000, intervalMs: 1000 });
    const { file } = await writePipeline({ flows: [{ topics: [topic], ...PRESERVE }] });
    const run = await startPipeline(file);
    try {
      await caughtUp(run, topic);
    } finally {
      await run.stop();
    }
    const fromSource = (await source.readAll(topic)).get(0)!;
    const firstHole = fromSource.findIndex((r, i) => r.offset !== i);
    const [state] = preservation(run, topic);
    assert.ok(state !== undefined && !state.preserved, 'the partition fell back');
    assert.equal(state.fromOffset, fromSource[firstHole]!.offset, 'from the first record after the first hole');
    assert.deepEqual(snapshot((await target.readAll(remote)).get(0)!), snapshot(fromSource), 'every surviving record is copied, in order');
  });

  test('group offsets on preserved partitions are checkpointed and synced as they are; translate and failover name the partitions preserved', async () => {
    const topic = `${uniqueName('keep-groups')}-orders`;
    const remote = `primary.${topic}`;
    const group = uniqueName('keep-consumers');
    await source.createTopic(topic, 3);
    await source.produce(topic, numbered('a', 0, 300, 3));
    // A stopped group, somewhere between offset syncs (MM2 translates 37 to 1 here: one past the sync at 0).
    const consumed = [37, 64, 100];
    await firstValueFrom(
      clients.admin('primary').commitGroupOffsets(
        group,
        consumed.map((offset, partition) => ({ topic, partition, offset, metadata: `m${partition}` })),
      ),
    );
    const { file } = await writePipeline({
      flows: [
        {
          topics: [topic],
          ...PRESERVE,
          checkpoints: { interval_ms: 1000, refresh_groups_interval_ms: 1000, sync_group_offsets: { enabled: true, interval_ms: 1000 } },
        },
      ],
    });
    const run = await startPipeline(file);
    try {
      await run.until(
        async () => {
          const onTarget = await firstValueFrom(clients.admin('backup').fetchGroupOffsets(group));
          const byPartition = new Map(onTarget.filter((o) => o.topic === remote).map((o) => [o.partition, o.offset]));
          return consumed.every((offset, partition) => byPartition.get(partition) === offset);
        },
        { what: `group ${group} on backup at ${consumed.join(', ')}`, timeoutMs: 90_000 },
      );
    } finally {
      await run.stop();
    }
    const translated = await runCli(['offsets', 'translate', file, '--group', group, '--json']);
    assert.equal(translated.code, 0, translated.stderr);
    const translation = JSON.parse(translated.stdout) as { groups: { offsets: { partition: number; offset: number }[] }[]; preservedPartitions: string[] };
    assert.deepEqual(
      translation.groups[0]!.offsets.map((o) => [o.partition, o.offset]).sort(),
      consumed.map((offset, partition) => [partition, offset]),
      'checkpoints carry the group offsets as they are',
    );
    assert.deepEqual(
      translation.preservedPartitions,
      [0, 1, 2].map((p) => `${remote}-${p}`),
    );
    const failover = await runCli(['failover', file, '--group', group, '--dry-run', '--json']);
    assert.equal(failover.code, 0, failover.stderr);
    const plan = JSON.parse(failover.stdout) as { partitions: { partition: number; translatedOffset: number; preserved?: boolean; action: string }[] };
    assert.deepEqual(
      plan.partitions.map((p) => [p.partition, p.translatedOffset, p.preserved, p.action]),
      consumed.map((offset, partition) => [partition, offset, true, 'unchanged']),
      'failover takes the source offsets as they are (the sync already committed them)',
    );
  });
});
