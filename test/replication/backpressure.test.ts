/**
 * Backpressure (bounded memory: `buffer.max_bytes`): a target that stops acknowledging
 * makes mirrorflow stop fetching once the flow's byte budget is in flight, instead of reading
 * the source's backlog into memory; when the target acknowledges again, everything arrives.
 *
 * The target refuses for real, on the shared single-broker cluster. (An ISR minimum above the
 * replication factor does not do it: Kafka 4 caps the effective min.insync.replicas at the
 * number of replicas, so acks=all succeeds with one broker.) Instead the remote topic is deleted
 * while mirrorflow replicates it, and its re-creation is prevented by a topic of the same name
 * with `_` for `.`, which Kafka refuses to let exist beside it. Every produce is then refused
 * with UNKNOWN_TOPIC_OR_PARTITION (retriable) and nothing is acknowledged; deleting the twin lets
 * mirrorflow's topic sync create the remote topic again, and the writes go through.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { KafkaKit, digest, type TestRecord } from '../support/kafka-kit';
import { uniqueName, waitFor, type TestClusters } from '../support/clusters';
import { spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import { Kafka, logLevel } from '../../src/kafka/kafkajs';
import { useKits } from '../support/use-kits';

const MiB = 1024 * 1024;
const PARTITIONS = 4;
/** The flow's byte budget: what may be fetched and not yet acknowledged. */
const BUDGET = 4 * MiB;
/** 96 MiB of 1 KiB random values: a backlog 24 times the budget. */
const RECORDS = 96 * 1024;
const VALUE_BYTES = 1024;
/**
 * Records per produce call: 512 per partition, so ~540 KB record batches, below the broker's
 * message.max.bytes (1 MiB).
 */
const CHUNK = 2048;
const STATUS_INTERVAL_MS = 200;
/** Progress lines read while the target is blocked and the buffer is full (~3 s). */
const BLOCKED_LINES = 15;

let clusters: TestClusters;
let source: KafkaKit;
let target: KafkaKit;
useKits(
  (running) => {
    clusters = running;
    return { source: new KafkaKit(running.primary), target: new KafkaKit(running.backup) };
  },
  (kits) => ({ source, target } = kits),
);

interface Progress {
  readonly records: number;
  readonly lag: number;
  readonly bufferedBytes: number;
  readonly rssMb: number;
}

/** The child's "Progress." log lines so far (JSON logs on stderr), in order. */
function progressLines(child: ChildPipeline): Progress[] {
  const lines: Progress[] = [];
  for (const line of child.stderr().split('\n')) {
    if (!line.includes('"Progress."')) continue;
    let parsed: { message?: string } & Progress;
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      continue; // the last line may still be incomplete
    }
    if (parsed.message === 'Progress.') lines.push(parsed);
  }
  return lines;
}

/** Peak resident set size of a process so far (VmHWM), MiB; undefined where /proc is not there. */
function peakRssMb(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The name Kafka refuses beside `topic`: `.` and `_` collide in metric names, so the broker allows only one of the two. */
const twinOf = (topic: string): string => topic.replace(/\./g, '_');

/** Deletes a topic on the target with a plain kafkajs admin (the product never deletes topics). */
async function deleteTargetTopic(topic: string): Promise<void> {
  const admin = new Kafka({ brokers: clusters.backup.split(','), clientId: 'mirrorflow-backpressure-test', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [topic] });
  } finally {
    await admin.disconnect();
  }
}

/** Writes the backlog to the source in produce calls of CHUNK records, round-robin over the partitions. */
async function writeBacklog(topic: string): Promise<void> {
  for (let from = 0; from < RECORDS; from += CHUNK) {
    const values = randomBytes(CHUNK * VALUE_BYTES);
    const chunk: TestRecord[] = Array.from({ length: CHUNK }, (_, i) => ({
      partition: (from + i) % PARTITIONS,
      key: Buffer.from(`k${from + i}`),
      value: values.subarray(i * VALUE_BYTES, (i + 1) * VALUE_BYTES),
      headers: [],
      timestamp: Date.now(),
    }));
    await source.produce(topic, chunk);
  }
}

describe('backpressure', () => {
  test('while the target refuses every write, mirrorflow holds at most buffer.max_bytes and its memory stays flat; once the target accepts again, the whole backlog arrives', async (t) => {
    const p = uniqueName('bp');
    const topic = `${p}-backlog`;
    const remote = `primary.${topic}`;
    const twin = twinOf(remote);
    await source.createTopic(topic, PARTITIONS);

    const { file } = await writePipeline({
      flows: [
        { topics: [`${p}-.*`], buffer: { max_bytes: BUDGET }, replicate_heartbeats: false, checkpoints: { enabled: false }, heartbeats: { enabled: false } },
      ],
    });
    const child = spawnPipeline(file, { statusIntervalMs: STATUS_INTERVAL_MS });
    const output = (): string => `mirrorflow stderr (end):\n${child.stderr().slice(-4000)}`;
    /** `waitFor`, failing at once if mirrorflow exits, with its output on failure. */
    const until = async <T>(check: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<void> => {
      const exited = (): boolean => child.child.exitCode !== null || child.child.signalCode !== null;
      try {
        await waitFor(async () => exited() || (await check()), { what, timeoutMs });
      } catch (error) {
        throw new Error(`${String(error)}\n${output()}`, { cause: error });
      }
      if (exited()) throw new Error(`mirrorflow exited (${child.child.exitCode ?? child.child.signalCode}) while waiting for ${what}\n${output()}`);
    };
    try {
      // Running, the (still empty) topic subscribed and its remote topic created.
      await until(() => /Replicating topics\./.test(child.stderr()) && progressLines(child).length > 0, 'mirrorflow to replicate the topic');
      await until(async () => (await target.topics()).has(remote), `${remote} on the target`);
      // The baseline: the running process with nothing to replicate yet.
      const baseline = progressLines(child).at(-1)!;

      // Block the target: remote topic gone, and its twin keeps topic sync from creating it
      // again. Topic sync may recreate it between the two steps; then delete it again.
      await until(async () => {
        if ((await target.topics()).has(remote)) await deleteTargetTopic(remote);
        try {
          await target.createTopic(twin, 1);
        } catch {
          return false; // the deletion is not complete yet, or the remote topic was created again
        }
        return true;
      }, `${remote} deleted and ${twin} created in its place`);
      assert.equal((await target.topics()).has(remote), false, 'test setup: the remote topic must be gone');

      const startedProducing = Date.now();
      await writeBacklog(topic);
      assert.equal(await source.count(topic), RECORDS, 'test setup: the whole backlog is on the source');
      t.diagnostic(`backlog: ${RECORDS} records, ${(RECORDS * VALUE_BYTES) / MiB} MiB of values, written in ${Date.now() - startedProducing} ms`);

      // Blocked: writes fail and the budget fills up.
      await until(
        () => /A cluster keeps failing an operation; retrying until it works again\.[^\n]*writing records/.test(child.stderr()),
        'a failed write to the target, retried',
        60_000,
      );
      await until(() => progressLines(child).some((l) => l.bufferedBytes >= BUDGET / 2), `the flow to hold at least half its ${BUDGET}-byte budget`);
      const fullAt = progressLines(child).length;
      // Then keep watching for a while: the flow must not fetch beyond its budget however long
      // the target refuses.
      await until(() => progressLines(child).length >= fullAt + BLOCKED_LINES, `${BLOCKED_LINES} more progress lines while the target is blocked`);
      const blocked = progressLines(child);
      const peak = peakRssMb(child.pid) ?? Math.max(...blocked.map((l) => l.rssMb));
      const blockedMs = Date.now() - startedProducing;

      const maxBuffered = Math.max(...blocked.map((l) => l.bufferedBytes));
      const growthMb = peak - baseline.rssMb;
      t.diagnostic(
        `blocked ${blockedMs} ms (from the first record written), ${blocked.length} progress lines: bufferedBytes max ${maxBuffered} (budget ${BUDGET}), ` +
          `RSS baseline ${baseline.rssMb} MiB, peak ${peak.toFixed(1)} MiB, growth ${growthMb.toFixed(1)} MiB; lag at the end ${blocked.at(-1)!.lag}`,
      );

      // (a) Never more in flight than the budget: source fetches are at most 1 MiB per partition,
      // so no single batch is larger than the whole budget (the one exception ByteBudget allows).
      const over = blocked.filter((l) => l.bufferedBytes > BUDGET);
      assert.deepEqual(
        over.slice(0, 5),
        [],
        `bufferedBytes must stay within buffer.max_bytes (${BUDGET}); ${over.length} of ${blocked.length} progress lines exceeded it`,
      );
      // (b) Memory stays flat. What may legitimately be held: the budget (4 MiB), one fetch
      // waiting for budget (<= 4 partitions x 1 MiB), the produce request encoded for each try,
      // and garbage not yet collected. Fetching the backlog would add at least its 96 MiB of
      // values to the baseline, so a growth below half the backlog (48 MiB) passes only if the
      // flow stopped fetching. VmHWM is the true peak, between progress lines too.
      assert.ok(
        growthMb < (RECORDS * VALUE_BYTES) / MiB / 2,
        `RSS grew by ${growthMb.toFixed(1)} MiB (from ${baseline.rssMb} to ${peak.toFixed(1)} MiB) while the target was blocked; the backlog is ${(RECORDS * VALUE_BYTES) / MiB} MiB`,
      );
      // (c) Really blocked: nothing acknowledged.
      assert.ok(
        blocked.every((l) => l.records === 0),
        'the flow must report no replicated records while the target refuses',
      );
      assert.equal((await target.topics()).has(remote), false, 'the remote topic must still be missing (nothing can have been acknowledged)');

      // Unblocked: topic sync creates the remote topic again (within its 1 s refresh) and the
      // next retry goes through; by now that retry may be several seconds away.
      await deleteTargetTopic(twin);
      const unblockedAt = Date.now();
      await until(async () => (await target.topics()).has(remote) && (await target.count(remote)) >= RECORDS, `${RECORDS} records in ${remote}`, 90_000);
      const drainedMs = Date.now() - unblockedAt;
      const all = progressLines(child);
      t.diagnostic(
        `after unblocking: all ${RECORDS} records on the target in ${drainedMs} ms; over the whole run bufferedBytes max ${Math.max(...all.map((l) => l.bufferedBytes))}, ` +
          `peak RSS ${(peakRssMb(child.pid) ?? Math.max(...all.map((l) => l.rssMb))).toFixed(1)} MiB`,
      );
      assert.ok(
        all.every((l) => l.bufferedBytes <= BUDGET),
        'bufferedBytes must stay within buffer.max_bytes while the backlog drains too',
      );

      child.kill('SIGTERM');
      const result = await child.exited;
      assert.equal(result.code, 0, `mirrorflow must exit 0 after SIGTERM\n${output()}`);
    } finally {
      child.kill('SIGKILL');
      await deleteTargetTopic(twin).catch(() => undefined);
    }

    // Exactly the source's records, per partition, in order: counts and a digest of keys,
    // values, timestamps and headers.
    const fromSource = await source.readAll(topic);
    const onTarget = await target.readAll(remote);
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const want = fromSource.get(partition) ?? [];
      const got = onTarget.get(partition) ?? [];
      assert.equal(got.length, want.length, `partition ${partition}: record count`);
      assert.equal(digest(got), digest(want), `partition ${partition}: the target must hold the source's records, in order`);
    }
  });
});
