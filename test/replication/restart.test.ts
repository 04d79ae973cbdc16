/**
 * Stopping and restarting `mirrorflow run` (issue #2; the "No data loss" contract of docs/architecture.md): a
 * graceful stop exits 0 and stores progress in MM2's Connect offsets topic, in MM2's key format;
 * a kill -9 loses nothing (duplicates allowed, bounded by the last stored progress); `start:
 * latest` holds across a restart; a stop asked for while the pipeline is still starting ends it.
 * Every run here is a real child process, except that last one: its stop must land within the
 * milliseconds the pipeline spends loading its progress, which only an in-process run can time.
 */
import assert from 'node:assert/strict';
import { setTimeout as pace } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { spawnPipeline, startPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import type { KafkaRecord } from '../../src/core/record';
import { sourceAndTargetKits } from '../support/use-kits';

const PROGRESS_TOPIC = 'mm2-offsets.primary.internal';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

/** Records whose values are unique ids `<label>-<n>`, spread round-robin over `partitions`. */
function numbered(label: string, from: number, count: number, partitions: readonly number[]): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: partitions[(from + i) % partitions.length]!,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`${label}-${from + i}`),
    headers: [],
    timestamp: Date.now(),
  }));
}

/** Keeps writing numbered records (20 every ~20 ms) until stopped; resolves with how many it wrote. */
function keepProducing(topic: string, partitions: readonly number[], label: string, from: number): { stop(): Promise<number>; written(): number } {
  let stopped = false;
  let n = from;
  const loop = (async () => {
    while (!stopped) {
      await source.produce(topic, numbered(label, n, 20, partitions));
      n += 20;
      await pace(20);
    }
    return n - from;
  })();
  return {
    stop: async () => {
      stopped = true;
      return loop;
    },
    written: () => n - from,
  };
}

/** A few entries of `list` around `at`, for failure messages. */
const window = (list: readonly string[], at: number): string => `[${list.slice(Math.max(0, at - 3), at + 5).join(', ')}]`;

const values = (records: readonly KafkaRecord[]): string[] => records.map((r) => r.value?.toString() ?? '<null>');

/** The newest stored progress per source partition of `topic`: the exact key and value bytes as text. */
/**
 * Every source record of `topic` is on `remote`, in the source's order per partition; returns how
 * many records the target holds twice. The test's own producer is not idempotent either: under
 * load a retried request can put a record on the source twice, so order is compared on first
 * occurrences, on both sides.
 */
async function assertAllInOrder(
  topic: string,
  remote: string,
  partitions: readonly number[],
  sourceRecords?: Awaited<ReturnType<KafkaKit['readAll']>>,
): Promise<number> {
  const wanted = sourceRecords ?? (await source.readAll(topic));
  const targetRecords = await target.readAll(remote);
  let duplicates = 0;
  for (const partition of partitions) {
    const want = values(wanted.get(partition) ?? []);
    const got = values(targetRecords.get(partition) ?? []);
    const present = new Set(got);
    const missing = want.filter((v) => !present.has(v));
    assert.deepEqual(missing.slice(0, 20), [], `partition ${partition}: ${missing.length} source records missing on the target`);
    const wantFirst = [...new Set(want)];
    const gotFirst = [...new Set(got)];
    const at = gotFirst.findIndex((v, i) => v !== wantFirst[i]);
    assert.equal(
      at,
      -1,
      `partition ${partition}: records keep their order; from index ${at} the target has ${window(gotFirst, at)} where the source has ${window(wantFirst, at)}`,
    );
    duplicates += got.length - want.length;
  }
  return duplicates;
}

async function storedProgress(topic: string): Promise<Map<number, { key: string; value: string }>> {
  const found = new Map<number, { key: string; value: string }>();
  const byPartition = await target.readAll(PROGRESS_TOPIC);
  for (const records of byPartition.values()) {
    for (const r of records) {
      const key = r.key?.toString() ?? '';
      if (!key.includes(JSON.stringify(topic))) continue;
      const parsed = JSON.parse(key) as [string, { partition: number }];
      found.set(parsed[1].partition, { key, value: r.value?.toString() ?? 'null' });
    }
  }
  return found;
}

/** MM2's exact key for a source partition (Connect JSON, HashMap field order, no whitespace). */
const mm2Key = (topic: string, partition: number): string => `["MirrorSourceConnector",{"cluster":"primary","partition":${partition},"topic":"${topic}"}]`;

async function stopGracefully(child: ChildPipeline, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  child.kill(signal);
  const result = await child.exited;
  assert.equal(result.code, 0, `mirrorflow must exit 0 after ${signal}; stderr:\n${result.stderr.slice(-3000)}`);
}

/** Waits for `count` records in `remote`; fails at once, with mirrorflow's output, if the process exits. */
async function waitForTarget(child: ChildPipeline, remote: string, count: number, timeoutMs = 60_000): Promise<void> {
  const output = (): string => `mirrorflow stderr:\n${child.stderr().slice(-3000)}\nstdout:\n${child.stdout().slice(-3000)}`;
  let exited = false;
  try {
    await waitFor(
      async () => {
        exited = child.child.exitCode !== null || child.child.signalCode !== null;
        return exited || (await target.count(remote)) >= count;
      },
      { what: `${count} records in ${remote}`, timeoutMs },
    );
  } catch (error) {
    throw new Error(`${String(error)}\n${output()}`, { cause: error });
  }
  if (exited)
    throw new Error(`mirrorflow exited (${child.child.exitCode ?? child.child.signalCode}) while waiting for ${count} records in ${remote}\n${output()}`);
}

describe('restart', () => {
  test('SIGTERM mid-stream: exit 0, progress in MM2 format, restart copies the rest exactly once', async () => {
    const p = uniqueName('rs-term');
    const topic = `${p}-orders`;
    const remote = `primary.${topic}`;
    const partitions = [0, 1, 2];
    await source.createTopic(topic, 3);
    await source.produce(topic, numbered('id', 0, 1500, partitions));
    const producer = keepProducing(topic, partitions, 'id', 1500);

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`], batching: { max_records: 100 } }] });
    let child = spawnPipeline(file);
    try {
      await waitForTarget(child, remote, 500);
      await stopGracefully(child, 'SIGTERM');
      assert.match(child.stdout() + child.stderr(), /Stopping/, 'the stop is logged');

      // What the stop stored: MM2's key, and an offset no further than what is on the target.
      const stored = await storedProgress(topic);
      const targetEnds = await target.endOffsets(remote);
      assert.ok(stored.size > 0, 'progress must be stored on a graceful stop');
      for (const [partition, { key, value }] of stored) {
        assert.equal(key, mm2Key(topic, partition), 'progress key must be byte-identical to MM2');
        const offset = (JSON.parse(value) as { offset: number }).offset;
        assert.match(value, /^\{"offset":\d+\}$/, 'progress value must be MM2\'s {"offset":N}');
        // A plain (non-transactional) source maps offsets 1:1, so the stored offset is the last one on the target.
        assert.equal(offset, targetEnds[partition]! - 1, `partition ${partition}: the stored offset must be the last replicated one`);
      }

      await producer.stop();
      child = spawnPipeline(file);
      // The source's own count: a retried produce under load may have written a record twice.
      await waitForTarget(child, remote, await source.count(topic));
      await stopGracefully(child, 'SIGINT');
    } finally {
      await producer.stop();
      child.kill('SIGKILL');
    }

    const sourceValues = values(await source.readAllFlat(topic));
    const targetValues = values(await target.readAllFlat(remote));
    assert.equal(targetValues.length, sourceValues.length, 'a graceful stop and restart must copy each record exactly once');
    assert.deepEqual(targetValues, sourceValues, 'same records, same partitions, same order');

    const final = await storedProgress(topic);
    const sourceEnds = await source.endOffsets(topic);
    for (const partition of partitions) {
      assert.equal(final.get(partition)?.key, mm2Key(topic, partition));
      assert.equal(
        final.get(partition)?.value,
        `{"offset":${sourceEnds[partition]! - 1}}`,
        `partition ${partition}: the last source offset is stored; the restarted run's stderr:\n${child.stderr().slice(-3000)}`,
      );
    }
  });

  test('kill -9 while a producer keeps writing: restart loses nothing, duplicates only after the stored progress', async (t) => {
    const p = uniqueName('rs-kill');
    const topic = `${p}-events`;
    const remote = `primary.${topic}`;
    const partitions = [0, 1, 2];
    await source.createTopic(topic, 3);
    await source.produce(topic, numbered('id', 0, 1000, partitions));
    const producer = keepProducing(topic, partitions, 'id', 1000);

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`], batching: { max_records: 100 } }] });
    let child = spawnPipeline(file);
    let bound = 0;
    try {
      await waitForTarget(child, remote, 1000);
      await waitFor(async () => (await storedProgress(topic)).size === partitions.length, { what: 'progress stored for every partition', timeoutMs: 30_000 });
      child.kill('SIGKILL');
      const killed = await child.exited;
      assert.equal(killed.signal, 'SIGKILL');

      // The producer goes on while mirrorflow is down; by the time it wrote some more, the
      // target has settled (a request the broker had already received is appended by then).
      const writtenAtKill = producer.written();
      await waitFor(() => producer.written() >= writtenAtKill + 200, { what: 'the producer to write 200 more records' });
      const total = 1000 + (await producer.stop());
      const stored = await storedProgress(topic);
      const targetEnds = await target.endOffsets(remote);
      // On restart each partition resumes at stored offset + 1: what the target has beyond that comes again.
      for (const partition of partitions) {
        const offset = (JSON.parse(stored.get(partition)!.value) as { offset: number }).offset;
        assert.ok(
          offset + 1 <= targetEnds[partition]!,
          `partition ${partition}: stored progress ${offset} must not be ahead of the target (${targetEnds[partition]})`,
        );
        bound += targetEnds[partition]! - (offset + 1);
      }

      child = spawnPipeline(file);
      // Slow on purpose: the killed process is still a member of the flow's consumer group until
      // its session times out (kafkajs: 30 s), and the group cannot rebalance before that.
      await waitFor(
        async () => {
          if (child.child.exitCode !== null) throw new Error(`mirrorflow exited:\n${child.stderr().slice(-3000)}`);
          return new Set(values(await target.readAllFlat(remote))).size >= total;
        },
        { what: `all ${total} distinct records on the target`, timeoutMs: 90_000 },
      );
      await stopGracefully(child);
    } finally {
      await producer.stop();
      child.kill('SIGKILL');
    }

    const sourceRecords = await source.readAll(topic);
    const duplicates = await assertAllInOrder(topic, remote, partitions, sourceRecords);
    t.diagnostic(
      `records: ${sourceRecords.size === 0 ? 0 : [...sourceRecords.values()].reduce((n, l) => n + l.length, 0)}, duplicates: ${duplicates}, bound: ${bound}`,
    );
    assert.ok(duplicates <= bound, `duplicates (${duplicates}) must come only from records after the stored progress (at most ${bound})`);
  });

  test('five kill -9s mid-stream while a producer keeps writing: each restart resumes by itself, nothing is lost, duplicates only after the stored progress', async (t) => {
    const KILLS = 5;
    const p = uniqueName('rs-kill5');
    const topic = `${p}-events`;
    const remote = `primary.${topic}`;
    const partitions = [0, 1, 2];
    await source.createTopic(topic, 3);
    await source.produce(topic, numbered('id', 0, 600, partitions));
    const producer = keepProducing(topic, partitions, 'id', 600);

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`], batching: { max_records: 100 } }] });
    let child = spawnPipeline(file);
    let bound = 0;
    const perKill: string[] = [];
    try {
      for (let kill = 1; kill <= KILLS; kill++) {
        // Mid-stream: this process has copied records of its own and stored progress beyond
        // what the previous one left (the first waits for the preloaded records).
        const before = await target.count(remote).catch(() => 0);
        const storedBefore = await storedProgress(topic);
        await waitForTarget(child, remote, Math.max(600, before + 200));
        await waitFor(
          async () => {
            const stored = await storedProgress(topic);
            return stored.size === partitions.length && [...stored].some(([partition, { value }]) => value !== storedBefore.get(partition)?.value);
          },
          { what: `progress stored by run ${kill}`, timeoutMs: 30_000 },
        );
        child.kill('SIGKILL');
        assert.equal((await child.exited).signal, 'SIGKILL');
        // As in the single kill: once the producer wrote some more, a request the broker had
        // already received from the killed process is appended.
        const writtenAtKill = producer.written();
        await waitFor(() => producer.written() >= writtenAtKill + 100, { what: 'the producer to write 100 more records' });
        // What the next run copies again: the records on the target beyond the stored progress,
        // counted as distinct source records (earlier kills' duplicates already shifted the
        // target's offsets, so offsets cannot be compared any more).
        const stored = await storedProgress(topic);
        const [fromSource, onTarget] = await Promise.all([source.readAll(topic), target.readAll(remote)]);
        let again = 0;
        for (const partition of partitions) {
          const offset = (JSON.parse(stored.get(partition)!.value) as { offset: number }).offset;
          const done = new Set(values((fromSource.get(partition) ?? []).slice(0, offset + 1)));
          const there = new Set(values(onTarget.get(partition) ?? []));
          for (const value of done)
            assert.ok(
              there.has(value),
              `kill ${kill}, partition ${partition}: stored progress ${offset} must not be ahead of the target (${value} is missing)`,
            );
          again += there.size - done.size;
        }
        bound += again;
        perKill.push(`kill ${kill}: ${again} beyond the stored progress`);
        child = spawnPipeline(file);
      }
      const total = 600 + (await producer.stop());
      // The last restart waits for the killed member's session (10 s) before it is assigned.
      await waitFor(
        async () => {
          if (child.child.exitCode !== null) throw new Error(`mirrorflow exited:\n${child.stderr().slice(-3000)}`);
          return new Set(values(await target.readAllFlat(remote))).size >= total;
        },
        { what: `all ${total} distinct records on the target`, timeoutMs: 60_000 },
      );
      await stopGracefully(child);
    } finally {
      await producer.stop();
      child.kill('SIGKILL');
    }

    const duplicates = await assertAllInOrder(topic, remote, partitions);
    t.diagnostic(`${perKill.join('; ')}; duplicates: ${duplicates}, bound: ${bound}`);
    assert.ok(duplicates <= bound, `duplicates (${duplicates}) must come only from records after the stored progress at each kill (at most ${bound})`);
  });

  test('start: latest skips what existed at the first start, not what was written after it, across a restart', async () => {
    const p = uniqueName('rs-latest');
    const topic = `${p}-feed`;
    const remote = `primary.${topic}`;
    const partitions = [0, 1];
    await source.createTopic(topic, 2);
    await source.produce(topic, numbered('old', 0, 100, partitions));
    const old = await source.count(topic);

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`], start: 'latest' }] });
    let child = spawnPipeline(file);
    try {
      // The start position of each partition is stored as progress once it is chosen.
      await waitFor(async () => (await storedProgress(topic)).size === partitions.length, {
        what: 'the start position stored for every partition',
        timeoutMs: 60_000,
      }).catch((error: unknown) => {
        throw new Error(`${String(error)}\nmirrorflow stderr:\n${child.stderr().slice(-3000)}`);
      });
      await source.produce(topic, numbered('new1', 0, 50, partitions));
      await waitForTarget(child, remote, (await source.count(topic)) - old);
      await stopGracefully(child);

      await source.produce(topic, numbered('new2', 0, 50, partitions));
      child = spawnPipeline(file);
      await waitForTarget(child, remote, (await source.count(topic)) - old);
      await stopGracefully(child);
    } finally {
      child.kill('SIGKILL');
    }
    const got = [...new Set(values(await target.readAllFlat(remote)))].sort();
    const want = [...numbered('new1', 0, 50, partitions), ...numbered('new2', 0, 50, partitions)].map((r) => r.value!.toString()).sort();
    assert.deepEqual(got, want, 'exactly the records written after the first start, none of the older ones');
  });

  test('start: latest, a partition that was empty at the start: what is written to it later arrives, while running and across a restart', async () => {
    const p = uniqueName('rs-latest-empty');
    const topic = `${p}-feed`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 3);
    // Partition 2 is empty when mirrorflow starts.
    await source.produce(topic, numbered('old', 0, 40, [0, 1]));
    const old = await source.count(topic);

    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`], start: 'latest' }] });
    let child = spawnPipeline(file);
    try {
      await waitFor(async () => (await storedProgress(topic)).size >= 2, { what: 'the start positions stored', timeoutMs: 60_000 }).catch((error: unknown) => {
        throw new Error(`${String(error)}\nmirrorflow stderr:\n${child.stderr().slice(-3000)}`);
      });
      await source.produce(topic, numbered('new1', 0, 30, [0, 1, 2]));
      await waitForTarget(child, remote, 20);
      await waitFor(async () => (await target.endOffsets(remote))[2] === 10, {
        what: `the 10 records written to partition 2 after the start, in ${remote}`,
        timeoutMs: 15_000,
      });
      await stopGracefully(child);

      await source.produce(topic, numbered('new2', 0, 30, [0, 1, 2]));
      child = spawnPipeline(file);
      await waitForTarget(child, remote, (await source.count(topic)) - old);
      await stopGracefully(child);
    } finally {
      child.kill('SIGKILL');
    }
    const got = [...new Set(values(await target.readAllFlat(remote)))].sort();
    const want = [...numbered('new1', 0, 30, [0, 1, 2]), ...numbered('new2', 0, 30, [0, 1, 2])].map((r) => r.value!.toString()).sort();
    assert.deepEqual(got, want);
  });

  test('a stop asked for while the pipeline is still loading its progress ends it; the next start copies everything', async () => {
    const p = uniqueName('rs-early-stop');
    const topic = `${p}-feed`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, 2);
    const written = numbered('early', 0, 60, [0, 1]);
    await source.produce(topic, written);
    const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`] }] });

    const early = await startPipeline(file);
    // run() is reading the progress topic now; the parts that start after that must see the stop.
    await early.stop();
    assert.deepEqual(
      early.statuses().map((s) => s.state),
      ['stopped'],
    );

    const run = await startPipeline(file);
    await run.until(async () => (await target.count(remote)) >= written.length, { what: `${written.length} records in ${remote}`, timeoutMs: 30_000 });
    await run.stop();
    const got = values(await target.readAllFlat(remote)).sort();
    assert.deepEqual(got, written.map((r) => r.value!.toString()).sort(), 'every record once');
  });
});
