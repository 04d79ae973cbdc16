/**
 * Network cuts: the network between mirrorflow and one of its clusters goes away for
 * 20 s while a producer keeps writing to the source, then comes back. mirrorflow must live
 * through it without a restart and end with every source record on the target, in order, with
 * no record copied twice by the idempotent writer (without idempotence: no more than the write
 * that was in flight), and its buffer within its budget.
 *
 * Both clusters are this file's own, each reached by mirrorflow through a TCP proxy
 * (ownProxiedClusters); the proxy drops the connections (existing ones closed, new ones accepted
 * and never answered, as behind a firewall that drops packets). The test's producer and checks
 * talk to the brokers directly and are never cut.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { uniqueName, waitFor } from '../support/clusters';
import { compareReplica, exited, keepProducing, logMessages, numbered, progressLines } from '../support/fault-load';
import { spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import { ownProxiedClusters } from '../support/proxied-clusters';

const cluster = ownProxiedClusters(['primary', 'backup']);

const PARTITIONS = [0, 1, 2];
const CUT_MS = 20_000;
const MAX_RECORDS = 200;
const BUFFER_BYTES = 1024 * 1024;
const STATUS_INTERVAL_MS = 500;

/** `waitFor`, failing at once (with mirrorflow's output) if mirrorflow exits. */
async function until(child: ChildPipeline, check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const output = (): string => `mirrorflow stderr (end):\n${child.stderr().slice(-4000)}`;
  try {
    await waitFor(async () => exited(child) || (await check()), { what, timeoutMs });
  } catch (error) {
    throw new Error(`${String(error)}\n${output()}`, { cause: error });
  }
  if (exited(child)) throw new Error(`mirrorflow exited (${child.child.exitCode ?? child.child.signalCode}) while waiting for ${what}\n${output()}`);
}

async function cutAndRestore(t: TestContext, side: 'primary' | 'backup', idempotent = true): Promise<void> {
  const source = cluster('primary');
  const target = cluster('backup');
  const cut = cluster(side);
  const p = uniqueName(`cut-${side}`);
  const topic = `${p}-events`;
  const remote = `primary.${topic}`;
  await source.kit.createTopic(topic, PARTITIONS.length);
  await source.kit.produce(topic, numbered('pre', 0, 600, PARTITIONS));
  const producer = keepProducing(source.kit, topic, PARTITIONS, 'live');

  const { file } = await writePipeline({
    clusters: { primary: source.proxied, backup: target.proxied },
    flows: [{ topics: [`${p}-.*`], batching: { max_records: MAX_RECORDS }, buffer: { max_bytes: BUFFER_BYTES }, producer: { idempotent } }],
  });
  const child = spawnPipeline(file, { statusIntervalMs: STATUS_INTERVAL_MS });
  try {
    await until(child, async () => (await target.kit.count(remote).catch(() => 0)) >= 600, `the first 600 records in ${remote}`, 90_000);

    cut.proxy.cut('drop');
    const cutAt = Date.now();
    const onTargetAtCut = await target.kit.count(remote);
    // The fault lasts a fixed time; mirrorflow must stay up all along.
    await until(child, () => Date.now() - cutAt >= CUT_MS, `the ${CUT_MS} ms cut to pass`, CUT_MS + 5_000);
    const duringCut = await target.kit.count(remote);
    cut.proxy.restore();
    const restoredAt = Date.now();

    // Resumes by itself: records written during the cut arrive with the same process.
    const writtenByRestore = 600 + producer.written();
    await until(
      child,
      async () => (await target.kit.count(remote)) >= writtenByRestore,
      `the ${writtenByRestore} records written by the restore in ${remote}`,
      90_000,
    );
    const caughtUpMs = Date.now() - restoredAt;
    const total = 600 + (await producer.stop());
    const sourceCount = await source.kit.count(topic);
    await until(child, async () => (await target.kit.count(remote)) >= sourceCount, `all ${sourceCount} source records in ${remote}`, 60_000);
    // Drained and stored: a clean stop shows the flow ended well.
    child.kill('SIGTERM');
    const result = await child.exited;
    assert.equal(result.code, 0, `mirrorflow must exit 0 after SIGTERM; stderr:\n${result.stderr.slice(-3000)}`);

    const compared = await compareReplica(source.kit, topic, target.kit, remote);
    const lines = progressLines(child);
    const maxBuffered = Math.max(0, ...lines.map((l) => l.bufferedBytes));
    const duplicates = compared.reduce((n, c) => n + c.duplicates, 0);
    // A target cut can lose the answer to the write in flight: acknowledged by the broker, the
    // answer lost. The idempotent writer sends it again with the same producer id and sequences,
    // and the broker drops what it has: nothing twice. Without idempotence the write lands again:
    // at most one write of MAX_RECORDS (a fetch larger than that is written in several). The
    // source cut loses no answer of the target; its bound stays one write, which idempotence does
    // not cover: records read again (from the last stored progress, after the source group
    // rebalanced) are new writes to the broker.
    const bound = side === 'backup' && idempotent ? 0 : MAX_RECORDS;
    t.diagnostic(
      `${side} cut ${CUT_MS} ms (${idempotent ? 'idempotent' : 'not idempotent'}): ${total} records written (${onTargetAtCut} on the target at the cut, ${duringCut} at the restore); ` +
        `caught up ${caughtUpMs} ms after the restore; duplicates ${duplicates} (bound ${bound}); bufferedBytes max ${maxBuffered}; ` +
        `RSS max ${Math.max(0, ...lines.map((l) => l.rssMb))} MiB; proxy connections accepted ${cut.proxy.acceptedConnections}`,
    );
    t.diagnostic(
      `warnings: ${JSON.stringify(Object.fromEntries(logMessages(child, 'warn')))}; errors: ${JSON.stringify(Object.fromEntries(logMessages(child, 'error')))}`,
    );
    for (const c of compared) {
      assert.deepEqual(c.missing.slice(0, 10), [], `partition ${c.partition}: ${c.missing.length} source records missing on the target`);
      assert.equal(c.orderBreak, -1, c.detail);
    }
    assert.ok(
      duplicates <= bound,
      `duplicates (${duplicates}) must not exceed ${bound === 0 ? 'none: the writer is idempotent' : `what was in flight (${bound})`}`,
    );
    assert.ok(maxBuffered <= BUFFER_BYTES, `bufferedBytes (${maxBuffered}) must stay within buffer.max_bytes (${BUFFER_BYTES})`);
  } finally {
    cut.proxy.restore();
    await producer.stop().catch(() => undefined);
    child.kill('SIGKILL');
  }
}

describe('network cut', () => {
  test('the target unreachable for 20 s (connections dropped) while records keep coming: mirrorflow resumes by itself and copies everything, nothing twice', async (t) => {
    await cutAndRestore(t, 'backup');
  });

  test('the same target cut without idempotence (producer.idempotent: false, as MM2): at most the write in flight lands twice', async (t) => {
    await cutAndRestore(t, 'backup', false);
  });

  test('the source unreachable for 20 s (connections dropped) while records keep coming: mirrorflow resumes by itself and copies everything', async (t) => {
    await cutAndRestore(t, 'primary');
  });
});
