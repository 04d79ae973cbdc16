/**
 * `delivery: exactly_once` on real brokers: while Kafka's Java transactional producer keeps
 * writing (lz4, every fourth transaction aborted), three processes of one pipeline replicate;
 * one is killed with SIGKILL and restarted, twice, one is added, one stopped with SIGTERM. At
 * the end a read_committed consumer of the target sees, per partition, exactly the records a
 * read_committed consumer of the source sees: same count, same records, same order — none
 * lost, none twice, nothing of an aborted transaction (the source's, or a killed process's).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { httpAddress, spawnPipeline, writePipeline, writePipelineText, type ChildPipeline } from '../support/pipeline-harness';
import { SINGLE_BROKER_MM2_LINES } from '../support/secured-clusters';
import { exited } from '../support/fault-load';
import { useKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';

const PARTITIONS = 6;
const JAVA_TIMEOUT_MS = 120_000;

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

/** Runs of the Java transactional producer, one after another until stopped, each with its own record ids. */
function keepProducingTransactions(topic: string, compression: string, partitions = PARTITIONS): { stop(): Promise<number> } {
  let stopped = false;
  let committed = 0;
  const loop = (async () => {
    for (let run = 0; !stopped; run++) {
      const result = await java.benchToolJson<{ committed: number }>(
        [
          'produce-transactional',
          '--bootstrap',
          clusters.primary,
          '--topic',
          topic,
          '--compression',
          compression,
          '--partitions',
          String(partitions),
          '--records',
          '2400',
          '--per-transaction',
          '60',
          '--abort-every',
          '4',
          '--linger-ms',
          '5',
          '--label',
          `r${run}`,
        ],
        JAVA_TIMEOUT_MS,
      );
      committed += result.committed;
    }
  })();
  loop.catch(() => undefined);
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return committed;
    },
  };
}

/** Per partition, the values a read_committed consumer reads. */
async function committedValues(kit: KafkaKit, topic: string): Promise<Map<number, string[]>> {
  const all = await kit.readAll(topic);
  return new Map([...all].map(([p, records]) => [p, records.map((r) => r.value?.toString('utf8') ?? '<null>')]));
}

async function statusOf(address: string): Promise<{ partitionsAssigned: number }> {
  const response = await fetch(`${address}/status`);
  const document = (await response.json()) as { flows: { partitionsAssigned: number }[] };
  return document.flows[0]!;
}

/** Waits until the running processes between them hold every partition. */
async function settled(running: readonly { child: ChildPipeline; address: string }[], partitions = PARTITIONS): Promise<void> {
  await waitFor(
    async () => {
      const statuses = await Promise.all(running.map((r) => statusOf(r.address).catch(() => undefined)));
      return statuses.every((s) => s !== undefined) && statuses.reduce((sum, s) => sum + s!.partitionsAssigned, 0) === partitions;
    },
    { what: 'every partition assigned once', timeoutMs: 90_000 },
  ).catch((error: unknown) => {
    // What the processes said last tells why.
    const tails = running.map((r) => `pid ${r.child.pid}:\n${r.child.stderr().slice(-1500)}`).join('\n');
    throw new Error(`${String(error)}\n${tails}`);
  });
}

/** Source and target, partition by partition: the same committed records in the same order. */
async function compare(topic: string, remote: string, partitions = PARTITIONS): Promise<{ equal: boolean; detail: string; total: number }> {
  const [from, to] = await Promise.all([committedValues(source, topic), committedValues(target, remote).catch(() => new Map<number, string[]>())]);
  const details: string[] = [];
  let equal = true;
  let total = 0;
  for (let p = 0; p < partitions; p++) {
    const a = from.get(p) ?? [];
    const b = to.get(p) ?? [];
    total += a.length;
    const same = a.length === b.length && a.every((v, i) => v === b[i]);
    if (!same) {
      equal = false;
      const at = a.findIndex((v, i) => v !== b[i]);
      details.push(`partition ${p}: source ${a.length}, target ${b.length}, first difference at ${at} (${a[at]?.slice(0, 30)} / ${b[at]?.slice(0, 30)})`);
    }
  }
  return { equal, detail: details.join('; '), total };
}

describe('exactly-once replication', () => {
  test('three processes, SIGKILL and restart twice, one added, one SIGTERM, while a Java transactional producer writes: every committed source record once, in order', async () => {
    const s = uniqueName('src');
    const t = uniqueName('tgt');
    const topic = uniqueName('eos');
    await source.createTopic(topic, PARTITIONS);
    const remote = `${s}.${topic}`;
    const { file } = await writePipeline({
      clusters: { [s]: clusters.primary, [t]: clusters.backup },
      flows: [{ source: s, target: t, topics: [topic], delivery: 'exactly_once', tasks: 4, batching: { max_records: 200 } }],
    });
    const all: ChildPipeline[] = [];
    const start = async (): Promise<{ child: ChildPipeline; address: string }> => {
      const child = spawnPipeline(file);
      all.push(child);
      return { child, address: await httpAddress(child, 90_000) };
    };
    const stop = async (child: ChildPipeline, signal: NodeJS.Signals): Promise<void> => {
      child.kill(signal);
      const result = await child.exited;
      if (signal === 'SIGTERM') assert.equal(result.code, 0, `a SIGTERM ends the process cleanly; stderr:\n${result.stderr.slice(-2000)}`);
    };
    const grows = async (): Promise<void> => {
      const before = await target.count(remote).catch(() => 0);
      await waitFor(async () => (await target.count(remote).catch(() => 0)) > before + 300, {
        what: 'the target to keep receiving records',
        timeoutMs: 90_000,
      });
    };
    const producer = keepProducingTransactions(topic, 'lz4');
    try {
      let running: { child: ChildPipeline; address: string }[] = await Promise.all([start(), start(), start()]);
      await settled(running);
      await grows();
      for (let kill = 0; kill < 2; kill++) {
        await stop(running[kill]!.child, 'SIGKILL');
        running = [...running.filter((_, i) => i !== kill), await start()];
        await settled(running);
        await grows();
      }
      running = [...running, await start()];
      await settled(running);
      await grows();
      await stop(running[0]!.child, 'SIGTERM');
      running = running.slice(1);
      await settled(running);
      await grows();

      const committed = await producer.stop();
      const last = await waitFor(
        async () => {
          const c = await compare(topic, remote);
          return c.equal ? c : undefined;
        },
        { what: `the ${committed} committed source records on the target`, timeoutMs: 120_000 },
      ).catch(async (error: unknown) => {
        throw new Error(`${String(error)}: ${(await compare(topic, remote)).detail}`);
      });
      assert.ok(last.total >= committed, `the source holds the ${committed} records the producer committed (${last.total})`);
      // Each committed transaction left a commit marker, which takes an offset: the target's
      // partitions end beyond their records only if they were written in transactions.
      assert.ok((await target.count(remote)) > last.total, 'the target holds commit markers: the records were written in transactions');
      console.log(`exactly-once: ${last.total} committed source records, each once on the target`);
      await Promise.all(running.map((r) => stop(r.child, 'SIGTERM')));
    } finally {
      await producer.stop().catch(() => undefined);
      for (const child of all) child.kill('SIGKILL');
    }
    assert.ok(all.every(exited));
  });
  test('from an mm2.properties with <target>.exactly.once.source.support = enabled and tasks.max = 4: two processes, one killed and restarted, a zstd transactional source — every committed record once', async () => {
    const s = uniqueName('src');
    const t = uniqueName('tgt');
    const topic = uniqueName('eosmm2');
    const partitions = 4;
    await source.createTopic(topic, partitions);
    const remote = `${s}.${topic}`;
    const file = writePipelineText(
      [
        `clusters = ${s}, ${t}`,
        `${s}.bootstrap.servers = ${clusters.primary}`,
        `${t}.bootstrap.servers = ${clusters.backup}`,
        `${s}->${t}.enabled = true`,
        `${s}->${t}.topics = ${topic}`,
        // The source's heartbeats topic would be replicated too (MM2 does whatever the filter).
        'heartbeats.replication.enabled = false',
        // Per target cluster, as MM2 reads it (at the top level MM2 ignores it).
        `${t}.exactly.once.source.support = enabled`,
        'tasks.max = 4',
        ...SINGLE_BROKER_MM2_LINES,
        '',
      ].join('\n'),
      'mm2.properties',
    );
    const all: ChildPipeline[] = [];
    const start = async (): Promise<{ child: ChildPipeline; address: string }> => {
      const child = spawnPipeline(file, { args: ['--http', '127.0.0.1:0'] });
      all.push(child);
      return { child, address: await httpAddress(child, 90_000) };
    };
    const producer = keepProducingTransactions(topic, 'zstd', partitions);
    try {
      let running = await Promise.all([start(), start()]);
      await settled(running, partitions);
      await waitFor(async () => (await target.count(remote).catch(() => 0)) > 300, { what: 'records on the target', timeoutMs: 90_000 });
      running[0]!.child.kill('SIGKILL');
      await running[0]!.child.exited;
      running = [running[1]!, await start()];
      await settled(running, partitions);
      const committed = await producer.stop();
      const last = await waitFor(
        async () => {
          const c = await compare(topic, remote, partitions);
          return c.equal ? c : undefined;
        },
        { what: `the ${committed} committed source records on the target`, timeoutMs: 120_000 },
      ).catch(async (error: unknown) => {
        throw new Error(`${String(error)}: ${(await compare(topic, remote, partitions)).detail}`);
      });
      assert.ok(last.total >= committed);
      assert.ok((await target.count(remote)) > last.total, 'the target holds commit markers: the records were written in transactions');
      const logs = all.map((c) => c.stderr() + c.stdout()).join('\n');
      assert.match(logs, /Transactional producers ready/);
      console.log(`exactly-once from mm2.properties: ${last.total} committed source records, each once on the target`);
      for (const r of running) {
        r.child.kill('SIGTERM');
        assert.equal((await r.child.exited).code, 0);
      }
    } finally {
      await producer.stop().catch(() => undefined);
      for (const child of all) child.kill('SIGKILL');
    }
  });
});
