/**
 * Several writes in flight (`producer.max_in_flight: 5`) over a long link, then a cut and a
 * kill -9: the target is behind a proxy that holds every chunk 25 ms each way, so up to five
 * writes are unanswered at any time; the proxy then drops every connection, and mirrorflow is
 * killed while its writes fail. What a user must find:
 * - at the kill, every partition of the target holds the start of its source partition, in
 *   order, nothing twice (the idempotent writer's resends are dropped by the broker), and the
 *   stored progress of each partition is a record that is on the target (never past one that
 *   was not acknowledged);
 * - after the restart, every source record on the target in order, and nothing twice but what
 *   was acknowledged after the last stored progress (a new process is a new producer to the
 *   broker: it copies again from the stored progress).
 * Two topics: plain records, and gzip batches forwarded as they are
 * (`forward_compressed_min_bytes: 0`), each a produce round of its own, so one write holds
 * several rounds of a partition while other writes of it are in flight.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueName, waitFor } from '../support/clusters';
import { compareReplica, exited, keepProducing, logMessages, numbered } from '../support/fault-load';
import type { KafkaKit } from '../support/kafka-kit';
import { spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import { ownProxiedClusters } from '../support/proxied-clusters';

const cluster = ownProxiedClusters(['primary', 'backup']);

const PARTITIONS = [0, 1, 2, 3];
const LINK_DELAY_MS = 25;
const MAX_RECORDS = 100;
const PROGRESS_TOPIC = 'mm2-offsets.primary.internal';

/** `waitFor`, failing at once (with mirrorflow's output) if mirrorflow exits. */
async function until(child: ChildPipeline, check: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const output = (): string => `mirrorflow stderr (end):\n${child.stderr().slice(-4000)}`;
  try {
    await waitFor(async () => exited(child) || (await check()), { what, timeoutMs });
  } catch (error) {
    throw new Error(`${String(error)}\n${output()}`, { cause: error });
  }
  if (exited(child)) throw new Error(`mirrorflow exited (${child.child.exitCode ?? child.child.signalCode}) while waiting for ${what}\n${output()}`);
}

/**
 * Whether the writes to the target have lost their answers (JSON logs): a produce request timed out,
 * or the progress line reports the target's writes failing (the cut destroyed the connections the
 * writes were in flight on, and a loaded machine can see that before any request times out).
 */
function writesFailing(child: ChildPipeline): boolean {
  return child
    .stderr()
    .split('\n')
    .some(
      (line) =>
        (line.includes('"cluster":"backup"') && /"message":"Request Produce\(key: 0, version: \d+\) timed out"/.test(line)) ||
        /"outages":"[^"]*backup: writing records/.test(line),
    );
}

/** Per source partition of `topic`, the offset of the last record the flow stored as copied (MM2's Connect offsets, on the target). */
async function storedProgress(target: KafkaKit, topic: string): Promise<Map<number, number>> {
  const stored = new Map<number, number>();
  for (const records of (await target.readAll(PROGRESS_TOPIC)).values())
    for (const r of records) {
      const key = JSON.parse(r.key?.toString() ?? '[]') as [string, { topic?: string; partition: number }];
      if (key[1]?.topic !== topic || r.value === null) continue;
      stored.set(key[1].partition, (JSON.parse(r.value.toString()) as { offset: number }).offset);
    }
  return stored;
}

/** Every partition of the target a prefix of the source's, once each, the stored progress on it; returns records per partition beyond the progress. */
async function checkAtKill(source: KafkaKit, target: KafkaKit, topic: string, remote: string): Promise<{ copied: number[]; beyondProgress: number[] }> {
  const [fromSource, onTarget, stored] = await Promise.all([source.readAll(topic), target.readAll(remote), storedProgress(target, topic)]);
  const copied: number[] = [];
  const beyondProgress: number[] = [];
  for (const partition of PARTITIONS) {
    const want = (fromSource.get(partition) ?? []).map((r) => r.value?.toString());
    const got = (onTarget.get(partition) ?? []).map((r) => r.value?.toString());
    assert.deepEqual(got, want.slice(0, got.length), `${remote}-${partition} at the kill: the first ${got.length} source records, in order, once each`);
    // A plain source topic: the record at source offset N is the (N+1)-th.
    const offset = stored.get(partition);
    if (offset !== undefined)
      assert.ok(offset < got.length, `${topic}-${partition}: progress stored at offset ${offset}, but only ${got.length} records are on the target`);
    copied.push(got.length);
    beyondProgress.push(got.length - (offset === undefined ? 0 : offset + 1));
  }
  return { copied, beyondProgress };
}

describe('several writes in flight, a cut and a kill', () => {
  test('max_in_flight 5 over a 25 ms link: after a cut and kill -9 nothing is lost, out of order or twice beyond the stored progress', async (t) => {
    const source = cluster('primary');
    const target = cluster('backup');
    const p = uniqueName('inflight');
    const plain = `${p}-plain`;
    const gzip = `${p}-gzip`;
    await source.kit.createTopic(plain, PARTITIONS.length);
    await source.kit.createTopic(gzip, PARTITIONS.length);
    await source.kit.produce(plain, numbered('pre', 0, 2000, PARTITIONS, 100));
    // Forty gzip batches per partition.
    for (let n = 0; n < 4000; n += 100) await source.kit.produce(gzip, numbered('gz', n, 100, PARTITIONS, 100), 'gzip');
    const producer = keepProducing(source.kit, plain, PARTITIONS, 'live', { valueBytes: 100 });

    target.proxy.delay(LINK_DELAY_MS);
    const { file } = await writePipeline({
      clusters: { primary: source.direct, backup: target.proxied },
      flows: [
        {
          topics: [`${p}-.*`],
          batching: { max_records: MAX_RECORDS, forward_compressed_min_bytes: 0 },
          producer: { max_in_flight: 5 },
          progress: { flush_interval_ms: 1000 },
        },
      ],
    });
    let child = spawnPipeline(file, { statusIntervalMs: 1000 });
    try {
      const remotes = [plain, gzip].map((topic) => ({ topic, remote: `primary.${topic}` }));
      // Every partition under way (a partition whose writes never went through would be empty at the kill).
      await until(
        child,
        async () => {
          for (const { remote } of remotes) {
            const ends = await target.kit.endOffsets(remote).catch(() => []);
            if (ends.length < PARTITIONS.length || ends.some((end) => end < 100)) return false;
          }
          return true;
        },
        'a hundred records in every partition of both topics on the target',
      );
      target.proxy.cut('drop');
      // The writes in flight have lost their answers.
      await until(child, () => writesFailing(child), 'the writes to the target to fail');
      child.kill('SIGKILL');
      await child.exited;
      target.proxy.restore();

      const atKill = new Map<string, { copied: number[]; beyondProgress: number[] }>();
      for (const { topic, remote } of remotes) atKill.set(topic, await checkAtKill(source.kit, target.kit, topic, remote));
      t.diagnostic(`at the kill: ${JSON.stringify(Object.fromEntries(atKill))}`);
      t.diagnostic(`warnings: ${JSON.stringify(Object.fromEntries(logMessages(child, 'warn')))}`);

      child = spawnPipeline(file);
      await producer.stop();
      for (const { topic, remote } of remotes) {
        const sourceCount = await source.kit.count(topic);
        await until(child, async () => (await target.kit.count(remote)) >= sourceCount, `all ${sourceCount} records of ${topic} in ${remote}`, 120_000);
      }
      child.kill('SIGTERM');
      const result = await child.exited;
      assert.equal(result.code, 0, `mirrorflow must exit 0 after SIGTERM; stderr:\n${result.stderr.slice(-3000)}`);

      for (const { topic, remote } of remotes) {
        const compared = await compareReplica(source.kit, topic, target.kit, remote);
        const { beyondProgress } = atKill.get(topic)!;
        for (const c of compared) {
          assert.deepEqual(c.missing.slice(0, 10), [], `${remote}-${c.partition}: ${c.missing.length} source records missing on the target`);
          assert.equal(c.orderBreak, -1, c.detail);
          assert.ok(
            c.duplicates <= beyondProgress[c.partition]!,
            `${remote}-${c.partition}: ${c.duplicates} records twice, more than the ${beyondProgress[c.partition]} copied after the last stored progress`,
          );
        }
        t.diagnostic(`${topic}: duplicates per partition ${JSON.stringify(compared.map((c) => c.duplicates))} (bound ${JSON.stringify(beyondProgress)})`);
      }
    } finally {
      target.proxy.restore();
      await producer.stop().catch(() => undefined);
      child.kill('SIGKILL');
    }
  });
});
