/**
 * Several `mirrorflow run` processes of one pipeline (issue 13): they share the partitions through
 * the source consumer group and elect one member for the flow's heartbeats and checkpoints.
 * While a producer keeps writing: a kill -9, a process added, a SIGTERM, then all restarted —
 * every source record reaches the target in order per partition, duplicates are counted, and the
 * elected terms of the processes never overlap, with every heartbeat written inside one of them.
 * A `start: latest` flow whose first owner is killed before it stored any copied progress is
 * resumed by the next owner from the stored start, not from the log's end at that time.
 *
 * Each test uses its own cluster aliases (same brokers), so its heartbeats, progress topic and
 * election group are its own even while other test files run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor } from '../support/clusters';
import { httpAddress, spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import { compareReplica, exited, keepProducing, numbered } from '../support/fault-load';
import { sourceAndTargetKits } from '../support/use-kits';
import { decodeHeartbeat } from '../../src/formats';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const PARTITIONS = [0, 1, 2, 3, 4, 5];

interface Term {
  readonly pid: number;
  readonly from: number;
  to: number;
}

/** A process's elected terms from its JSON log; a term still open ends at `endedAt` (or never). */
function terms(child: ChildPipeline, endedAt?: number): Term[] {
  const found: Term[] = [];
  for (const line of child.stderr().split('\n')) {
    if (!line.includes('lected')) continue;
    let entry: { message?: string; timestamp?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    const at = Date.parse(entry.timestamp ?? '');
    if (entry.message?.startsWith('Elected:')) found.push({ pid: child.pid, from: at, to: Infinity });
    else if (entry.message?.startsWith('No longer elected:') && found.length > 0) found[found.length - 1]!.to = at;
  }
  const last = found[found.length - 1];
  if (last && last.to === Infinity && endedAt !== undefined) last.to = endedAt;
  return found;
}

async function statusOf(address: string): Promise<{ elected: boolean; partitionsAssigned: number }> {
  const response = await fetch(`${address}/status`);
  const document = (await response.json()) as { flows: { elected: boolean; partitionsAssigned: number }[] };
  return document.flows[0]!;
}

/** Waits until, among the running processes, exactly one reports itself elected and all partitions are shared out. */
async function settled(running: readonly { child: ChildPipeline; address: string }[]): Promise<void> {
  await waitFor(
    async () => {
      const statuses = await Promise.all(running.map((r) => statusOf(r.address).catch(() => undefined)));
      if (statuses.some((s) => s === undefined)) return false;
      const elected = statuses.filter((s) => s!.elected).length;
      const assigned = statuses.reduce((sum, s) => sum + s!.partitionsAssigned, 0);
      return elected === 1 && assigned === PARTITIONS.length;
    },
    { what: 'exactly one elected process and every partition assigned once', timeoutMs: 60_000 },
  );
}

describe('several processes of one pipeline', () => {
  test('kill -9, add, SIGTERM, restart all while records keep arriving: nothing lost, order kept, one elected member at a time', async () => {
    const clusters = await testClusters();
    const s = uniqueName('src');
    const t = uniqueName('tgt');
    const topic = uniqueName('scale');
    await source.createTopic(topic, PARTITIONS.length);
    const remote = `${s}.${topic}`;
    const { file } = await writePipeline({
      clusters: { [s]: clusters.primary, [t]: clusters.backup },
      flows: [{ source: s, target: t, topics: [topic], heartbeats: { interval_ms: 200 }, batching: { max_records: 200 } }],
    });
    const ended = new Map<ChildPipeline, number>();
    const all: ChildPipeline[] = [];
    const start = async (): Promise<{ child: ChildPipeline; address: string }> => {
      const child = spawnPipeline(file);
      all.push(child);
      void child.exited.then(() => ended.set(child, Date.now()));
      // 90 s, not 30: on the shared machine (load average 25-28) a process started beside
      // others and a producer took longer than 30 s to serve HTTP, before anything was asserted.
      return { child, address: await httpAddress(child, 90_000) };
    };
    const stop = async (child: ChildPipeline, signal: NodeJS.Signals): Promise<void> => {
      child.kill(signal);
      const result = await child.exited;
      if (signal === 'SIGTERM') assert.equal(result.code, 0, `a SIGTERM ends the process cleanly; stderr:\n${result.stderr.slice(-2000)}`);
    };
    const grows = async (): Promise<void> => {
      const before = await target.count(remote).catch(() => 0);
      await waitFor(async () => (await target.count(remote)) > before + 200, { what: 'the target to keep receiving records', timeoutMs: 60_000 });
    };

    /** This flow's heartbeats on the target (every flow of the test clusters writes to the same topic). */
    const flowHeartbeats = async (): Promise<ReturnType<typeof decodeHeartbeat>[]> =>
      (await target.readAllFlat('heartbeats').catch(() => []))
        .map((r) => decodeHeartbeat(r.key, r.value))
        .filter((h) => h.sourceClusterAlias === s && h.targetClusterAlias === t);
    const producer = keepProducing(source, topic, PARTITIONS, 'scale');
    try {
      let running: { child: ChildPipeline; address: string }[] = await Promise.all([start(), start(), start()]);
      await settled(running);
      await grows();

      await stop(running[0]!.child, 'SIGKILL');
      running = running.slice(1);
      await settled(running);
      await grows();

      running = [...running, await start()];
      await settled(running);
      await grows();

      await stop(running[0]!.child, 'SIGTERM');
      running = running.slice(1);
      await settled(running);
      await grows();

      await Promise.all(running.map((r) => stop(r.child, 'SIGTERM')));
      running = await Promise.all([start(), start(), start()]);
      await settled(running);
      await grows();

      const written = await producer.stop();
      await waitFor(async () => (await compareReplica(source, topic, target, remote)).every((c) => c.missing.length === 0), {
        what: `all ${written} records on the target`,
        timeoutMs: 120_000,
      });
      // The processes that run now elect one of them, which writes heartbeats.
      const caughtUpAt = Date.now();
      await waitFor(async () => (await flowHeartbeats()).some((b) => b.timestamp >= caughtUpAt), {
        what: 'a heartbeat from the last processes',
        timeoutMs: 30_000,
      });
      await Promise.all(running.map((r) => stop(r.child, 'SIGTERM')));
    } finally {
      await producer.stop().catch(() => undefined);
      for (const child of all) child.kill('SIGKILL');
    }

    const comparison = await compareReplica(source, topic, target, remote);
    for (const c of comparison) {
      assert.equal(c.missing.length, 0, `${c.detail}; missing ${c.missing.slice(0, 5).join(', ')}`);
      assert.equal(c.orderBreak, -1, c.detail);
    }
    const duplicates = comparison.reduce((sum, c) => sum + c.duplicates, 0);
    const total = comparison.reduce((sum, c) => sum + c.source, 0);
    // Bounded: what one process had fetched but not stored when it was killed, plus the rest.
    assert.ok(duplicates < total / 2, `${duplicates} duplicates of ${total} records`);
    console.log(`scale-out: ${total} source records, ${duplicates} copied twice`);

    // One elected member at a time: the terms of all processes, in order, never overlap...
    const allTerms = all.flatMap((child) => terms(child, ended.get(child))).sort((a, b) => a.from - b.from);
    assert.ok(allTerms.length >= 3, `a member was elected again after each change (${allTerms.length} terms)`);
    for (let i = 1; i < allTerms.length; i++) {
      const [a, b] = [allTerms[i - 1]!, allTerms[i]!];
      assert.ok(a.to <= b.from, `term of pid ${a.pid} (${a.from}..${a.to}) overlaps the term of pid ${b.pid} from ${b.from}`);
    }
    // ...and every heartbeat of this flow was written inside one of them.
    const beats = await flowHeartbeats();
    assert.ok(beats.length > 10, `heartbeats were written (${beats.length})`);
    for (const beat of beats) {
      assert.ok(
        allTerms.some((term) => term.from <= beat.timestamp && beat.timestamp <= term.to),
        `heartbeat at ${beat.timestamp} falls in no elected term`,
      );
    }
    // An elected member does its jobs: a term long enough for two heartbeats (one a second) has one.
    // (A term can be shorter: a member joining the election group right after moves it.)
    for (const term of allTerms.filter((term) => term.to - term.from >= 2_000)) {
      assert.ok(
        beats.some((b) => term.from <= b.timestamp && b.timestamp <= term.to),
        `the elected term of pid ${term.pid} (${term.from}..${term.to}) has no heartbeat`,
      );
    }
    assert.ok(all.every(exited));
  });

  test('start latest: the next owner resumes from the start the killed first owner stored, skipping nothing', async () => {
    const clusters = await testClusters();
    const s = uniqueName('src');
    const t = uniqueName('tgt');
    const topic = uniqueName('latest');
    await source.createTopic(topic, 4);
    await source.produce(topic, numbered('before', 0, 40, [0, 1, 2, 3]));
    const remote = `${s}.${topic}`;
    const progressTopic = `mm2-offsets.${s}.internal`;
    const { file } = await writePipeline({
      clusters: { [s]: clusters.primary, [t]: clusters.backup },
      // Progress is stored rarely, so the kill comes before any copied record's progress is.
      flows: [{ source: s, target: t, topics: [topic], start: 'latest', progress: { flush_interval_ms: 600_000 } }],
    });
    const first = spawnPipeline(file);
    let second: ChildPipeline | undefined;
    try {
      await first.waitForOutput(/Partitions assigned/, 90_000);
      // The start positions (the log ends) are stored before anything is read.
      await waitFor(async () => (await target.count(progressTopic).catch(() => 0)) >= 4, { what: 'the start positions stored', timeoutMs: 30_000 });
      await source.produce(topic, numbered('after', 0, 400, [0, 1, 2, 3]));
      await waitFor(async () => (await target.count(remote).catch(() => 0)) > 0, { what: 'the first owner copying', timeoutMs: 30_000 });
      first.kill('SIGKILL');
      await first.exited;
      await source.produce(topic, numbered('later', 0, 400, [0, 1, 2, 3]));

      second = spawnPipeline(file);
      await waitFor(
        async () => {
          const onTarget = new Set((await target.readAllFlat(remote)).map((r) => r.value?.toString()));
          return [...numbered('after', 0, 400, [0]), ...numbered('later', 0, 400, [0])].every((r) => onTarget.has(r.value!.toString()));
        },
        { what: 'every record written after the start on the target', timeoutMs: 60_000 },
      );
      const onTarget = (await target.readAllFlat(remote)).map((r) => r.value?.toString() ?? '');
      assert.ok(!onTarget.some((v) => v.startsWith('before-')), 'records from before the start are not copied');
    } finally {
      first.kill('SIGKILL');
      second?.kill('SIGKILL');
    }
  });
});
