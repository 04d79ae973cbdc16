/**
 * Changing flows while `mirrorflow run` runs: the pipeline file is edited (and SIGHUP sent) as an
 * operator would, and each change is applied flow by flow — a widened topic filter picks up the
 * new topic with nothing copied twice, a flow is added and removed, an invalid file changes
 * nothing — while a producer keeps writing and the process never restarts.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { stringify } from '#yaml';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, waitFor } from '../support/clusters';
import { compareReplica, jsonLogs, keepProducing, numbered, type LogLine } from '../support/fault-load';
import { spawnPipeline, writePipeline, type ChildPipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';

let primary: KafkaKit;
let backup: KafkaKit;
useKits(
  (c) => ({ primary: new KafkaKit(c.primary), backup: new KafkaKit(c.backup) }),
  (k) => ({ primary, backup } = k),
);

/** Waits for the `n`-th log line with `message` (1-based) and returns it. */
async function nthLog(child: ChildPipeline, message: string, n: number): Promise<LogLine> {
  await waitFor(() => jsonLogs(child).filter((l) => l.message === message).length >= n, { what: `log line ${n} "${message}"`, timeoutMs: 60_000 });
  return jsonLogs(child).filter((l) => l.message === message)[n - 1]!;
}

const count = (kit: KafkaKit, topic: string) => kit.count(topic).catch(() => 0);

describe('mirrorflow run applies a changed pipeline file while it runs', () => {
  test('a widened filter, an added and a removed flow and an invalid file: applied flow by flow, nothing lost or copied twice', async () => {
    const p = uniqueName('reload');
    const [orders, returns, stock] = [`${p}-orders`, `${p}-returns`, `${p}-stock`];
    await primary.createTopic(orders, 3);
    await primary.createTopic(returns, 2);
    await backup.createTopic(stock, 1);
    await primary.produce(orders, numbered('pre', 0, 300, [0, 1, 2]));
    await primary.produce(returns, numbered('ret', 0, 200, [0, 1]));
    await backup.produce(stock, numbered('stk', 0, 50, [0]));

    const pipeline = await writePipeline({ flows: [{ topics: [orders] }] });
    const edit = (flows: readonly Record<string, unknown>[]): void => {
      const document = { ...pipeline.document, flows: flows.map((f) => ({ ...(pipeline.document['flows'] as Record<string, unknown>[])[0], ...f })) };
      writeFileSync(pipeline.file, stringify(document));
    };
    const child = spawnPipeline(pipeline.file);
    const producer = keepProducing(primary, orders, [0, 1, 2], 'live');
    try {
      await waitFor(async () => (await count(backup, `primary.${orders}`)) >= 300, { what: `300 records in primary.${orders}`, timeoutMs: 60_000 });

      // 1. The filter widened: the flow is re-assembled and the new topic replicated.
      edit([{ topics: [orders, returns] }]);
      const widened = await nthLog(child, 'The changed pipeline file was applied.', 1);
      assert.deepEqual([widened['changed'], widened['added'], widened['removed']], [['primary->backup'], [], []]);
      await waitFor(async () => (await count(backup, `primary.${returns}`)) >= 200, { what: `200 records in primary.${returns}`, timeoutMs: 60_000 });

      // 2. A flow added the other way; the first one goes on untouched.
      edit([{ topics: [orders, returns] }, { source: 'backup', target: 'primary', topics: [stock] }]);
      const added = await nthLog(child, 'The changed pipeline file was applied.', 2);
      assert.deepEqual([added['added'], added['changed'], added['unchanged']], [['backup->primary'], [], ['primary->backup']]);
      await waitFor(async () => (await count(primary, `backup.${stock}`)) >= 50, { what: `50 records in backup.${stock} on primary`, timeoutMs: 60_000 });

      // 3. An invalid file is reported with its problem and changes nothing.
      const stops = (): number => jsonLogs(child).filter((l) => l.message === 'Replication stopped.').length;
      const stoppedBefore = stops();
      writeFileSync(
        pipeline.file,
        stringify({ ...pipeline.document, flows: [{ source: 'primary', target: 'backup', topics: [orders], batching: { max_records: -1 } }] }),
      );
      const refused = await nthLog(child, 'The pipeline file has problems; nothing was changed.', 1);
      assert.match(JSON.stringify(refused['problems']), /flows\[0\]\.batching\.max_records/);
      const before = await count(backup, `primary.${orders}`);
      await waitFor(async () => (await count(backup, `primary.${orders}`)) > before, {
        what: 'replication going on after the invalid file',
        timeoutMs: 30_000,
      });
      assert.equal(stops(), stoppedBefore, 'the invalid file stopped no flow');

      // 4. The added flow removed again, by SIGHUP after the edit (as with watching off).
      edit([{ topics: [orders, returns] }]);
      child.kill('SIGHUP');
      const removed = await nthLog(child, 'The changed pipeline file was applied.', 3);
      assert.deepEqual([removed['removed'], removed['unchanged']], [['backup->primary'], ['primary->backup']]);
      await waitFor(() => jsonLogs(child).some((l) => l.message === 'Replication stopped.' && l['flow'] === 'backup->primary'), {
        what: 'the removed flow to stop',
        timeoutMs: 30_000,
      });

      // 5. SIGHUP reads the file even when nothing changed on disk, and says so.
      child.kill('SIGHUP');
      const reread = await nthLog(child, 'The pipeline file was read again; no flow changed.', 1);
      assert.deepEqual([reread['reason'], reread['unchanged']], ['signal', ['primary->backup']]);

      const total = 300 + (await producer.stop());
      await waitFor(async () => (await count(backup, `primary.${orders}`)) >= total, { what: `all ${total} records in primary.${orders}`, timeoutMs: 60_000 });
      child.kill('SIGTERM');
      const result = await child.exited;
      assert.equal(result.code, 0, `mirrorflow must exit 0 after SIGTERM; stderr:\n${result.stderr.slice(-3000)}`);

      for (const [topic, kit, remote, remoteKit] of [
        [orders, primary, `primary.${orders}`, backup],
        [returns, primary, `primary.${returns}`, backup],
        [stock, backup, `backup.${stock}`, primary],
      ] as const) {
        for (const c of await compareReplica(kit, topic, remoteKit, remote)) {
          assert.deepEqual(c.missing.slice(0, 10), [], `${remote} partition ${c.partition}: ${c.missing.length} records missing`);
          assert.equal(c.orderBreak, -1, c.detail);
          // The re-assembled flow drained and stored its progress before its successor read it.
          assert.equal(c.duplicates, 0, `${remote} partition ${c.partition}: ${c.duplicates} records copied twice`);
        }
      }
      assert.equal(jsonLogs(child).filter((l) => l.message === 'Serving metrics, health and status over HTTP.').length, 1, 'one process all along');
    } finally {
      await producer.stop().catch(() => undefined);
      child.kill('SIGKILL');
    }
  });
});
