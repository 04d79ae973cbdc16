/**
 * A slow target: the target cluster throttles every client's produce to 512 KiB/s with
 * a Kafka client quota (`producer_byte_rate`, set with Kafka's own kafka-configs tool), while the
 * source holds a backlog and a producer keeps writing. mirrorflow must hold no more than its
 * buffer budget (`buffer.max_bytes`) in flight however far behind it falls, and deliver every
 * record, in order, once the throttled writes get through, duplicates within what was in flight.
 *
 * The clusters are this file's own: a quota on the shared target would slow every other test.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueName, waitFor } from '../support/clusters';
import { setDefaultClientQuota } from '../support/client-quotas';
import { compareReplica, exited, keepProducing, logMessages, numbered, progressLines } from '../support/fault-load';
import { ownClusters } from '../support/own-clusters';
import { spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';

const clusters = ownClusters(['primary', 'backup'] as const);

const KiB = 1024;
const MiB = 1024 * KiB;
const PARTITIONS = [0, 1, 2, 3];
const VALUE_BYTES = KiB;
/** What mirrorflow may hold fetched and not acknowledged. */
const BUDGET = 2 * MiB;
/** Fetches of at most 4 × 256 KiB: no single fetch is larger than the budget. */
const FETCH_BYTES_PER_PARTITION = 256 * KiB;
const QUOTA_BYTES_PER_SECOND = 512 * KiB;
/** 6 MiB on the source before mirrorflow starts: three times the budget. */
const BACKLOG = 6144;
const STATUS_INTERVAL_MS = 200;

async function until(child: ChildPipeline, check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const output = (): string => `mirrorflow stderr (end):\n${child.stderr().slice(-4000)}`;
  try {
    await waitFor(async () => exited(child) || (await check()), { what, timeoutMs });
  } catch (error) {
    throw new Error(`${String(error)}\n${output()}`, { cause: error });
  }
  if (exited(child)) throw new Error(`mirrorflow exited (${child.child.exitCode ?? child.child.signalCode}) while waiting for ${what}\n${output()}`);
}

describe('slow target', () => {
  test('a target throttled by a produce quota: mirrorflow never holds more than buffer.max_bytes, and every record arrives', async (t) => {
    const source = clusters.kit('primary');
    const target = clusters.kit('backup');
    const p = uniqueName('slow');
    const topic = `${p}-events`;
    const remote = `primary.${topic}`;
    await source.createTopic(topic, PARTITIONS.length);
    await source.produce(topic, numbered('backlog', 0, BACKLOG, PARTITIONS, VALUE_BYTES));
    await setDefaultClientQuota(clusters.bootstrap('backup'), { producerByteRate: QUOTA_BYTES_PER_SECOND });

    const { file } = await writePipeline({
      clusters: clusters.bootstrapServers(),
      flows: [{ topics: [`${p}-.*`], buffer: { max_bytes: BUDGET }, consumer: { max_bytes_per_partition: FETCH_BYTES_PER_PARTITION } }],
    });
    // About 100 KiB/s more while the backlog drains at the quota's pace.
    const producer = keepProducing(source, topic, PARTITIONS, 'live', { perTick: 5, tickMs: 50, valueBytes: VALUE_BYTES });
    const child = spawnPipeline(file, { statusIntervalMs: STATUS_INTERVAL_MS });
    try {
      await until(child, async () => (await target.count(remote).catch(() => 0)) >= BACKLOG / 2, `half the backlog in ${remote}`);
      const total = BACKLOG + (await producer.stop());
      const sourceCount = await source.count(topic);
      await until(child, async () => (await target.count(remote)) >= sourceCount, `all ${sourceCount} source records in ${remote}`, 90_000);
      child.kill('SIGTERM');
      const result = await child.exited;
      assert.equal(result.code, 0, `mirrorflow must exit 0 after SIGTERM; stderr:\n${result.stderr.slice(-3000)}`);

      const lines = progressLines(child);
      const maxBuffered = Math.max(0, ...lines.map((l) => l.bufferedBytes));
      const maxLag = Math.max(0, ...lines.map((l) => l.lag));
      t.diagnostic(
        `${total} records of ${VALUE_BYTES} B, quota ${QUOTA_BYTES_PER_SECOND} B/s: bufferedBytes max ${maxBuffered} (budget ${BUDGET}), lag max ${maxLag} records, ` +
          `RSS max ${Math.max(0, ...lines.map((l) => l.rssMb))} MiB over ${lines.length} progress lines; warnings ${JSON.stringify(Object.fromEntries(logMessages(child, 'warn')))}`,
      );
      // How far behind the flow fell and how full its budget looked depend on when the broker's
      // throttling set in and when the progress lines sampled: reported above, not asserted (two CI
      // runs on a loaded machine saw a lag of 1,586 and 2,881 records). What a user relies on is.
      const over = lines.filter((l) => l.bufferedBytes > BUDGET);
      assert.deepEqual(
        over.slice(0, 5),
        [],
        `bufferedBytes must stay within buffer.max_bytes (${BUDGET}); ${over.length} of ${lines.length} progress lines exceeded it`,
      );

      const compared = await compareReplica(source, topic, target, remote);
      for (const c of compared) {
        assert.deepEqual(c.missing.slice(0, 10), [], `partition ${c.partition}: ${c.missing.length} source records missing on the target`);
        assert.equal(c.orderBreak, -1, c.detail);
      }
      // A throttled write that times out after the broker appended it goes again; at most what
      // was in flight, the budget's worth of records, can come twice.
      const duplicates = compared.reduce((n, c) => n + c.duplicates, 0);
      const bound = BUDGET / VALUE_BYTES;
      t.diagnostic(`duplicates ${duplicates} (bound ${bound})`);
      assert.ok(duplicates <= bound, `duplicates (${duplicates}) must not exceed what was in flight (${bound})`);
    } finally {
      await producer.stop().catch(() => undefined);
      child.kill('SIGKILL');
    }
  });
});
