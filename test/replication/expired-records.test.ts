/**
 * Source records removed before they were copied — retention shorter than the flow's lag, or
 * DeleteRecords while the flow was behind or stopped — can no longer be read: replication goes on
 * from the log's new start, as MM2's consumer does. mirrorflow says so: one warning per gap naming
 * the partition and the offsets, counted exactly on the flow's status (and so on the progress
 * line, `/status` and `mirrorflow_records_expired_total`). Gaps inside a log (transaction
 * markers) are not expiries.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KafkaKit, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type LogLine } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary), target: new KafkaKit(clusters.backup) }),
  (kits) => ({ source, target } = kits),
);

const EXPIRED_WARNING = 'Source records were removed before they were copied (retention or DeleteRecords); replication goes on after them.';

function records(label: string, partition: number, from: number, count: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`${label}-${partition}-${from + i}`),
    headers: [],
    timestamp: Date.now(),
  }));
}

const expiredWarnings = (logs: readonly LogLine[]): LogLine[] => logs.filter((l) => l.level === 'warn' && l.message === EXPIRED_WARNING);

test('records deleted on the source while the flow was stopped: replication goes on after them, one warning names the offsets, counted exactly', async () => {
  const p = uniqueName('expired');
  const topic = `${p}-orders`;
  const txn = `${p}-txn`;
  const remote = `primary.${topic}`;
  await source.createTopic(topic, 2);
  await source.createTopic(txn, 1);
  await source.produce(topic, [...records('a', 0, 0, 10), ...records('a', 1, 0, 10)]);
  // Transaction markers leave gaps inside the log: never taken for expired records.
  await source.produceTransactional(txn, [
    { records: records('t', 0, 0, 3), commit: true },
    { records: records('t', 0, 3, 3), commit: false },
    { records: records('t', 0, 6, 3), commit: true },
  ]);
  const { file } = await writePipeline({ flows: [{ topics: [`${p}-.*`], consumer: { isolation_level: 'read_committed' } }] });
  const first = await startPipeline(file);
  await first.running();
  await first.until(async () => (await target.count(remote)) >= 20 && (await target.count(`primary.${txn}`)) >= 6, { what: 'the first records copied' });
  await first.stop();
  assert.deepEqual(expiredWarnings(first.logs), [], 'nothing expired in the first run');

  // While the flow is stopped: 20 more records per partition (offsets 10 … 29, in two record
  // batches), then partition 0 of the source loses everything below 25, as retention removes
  // whole segments: offsets 10 … 24 were never copied.
  await source.produce(topic, [...records('b', 0, 10, 15), ...records('b', 1, 10, 15)]);
  await source.produce(topic, [...records('b', 0, 25, 5), ...records('b', 1, 25, 5)]);
  await source.deleteRecords(topic, 0, 25);

  const second = await startPipeline(file);
  await second.running();
  await second.until(async () => (await target.count(remote)) >= 20 + 5 + 20, { what: 'the records still on the source copied' });
  const byPartition = await target.readAll(remote);
  assert.deepEqual(
    byPartition.get(0)!.map((r) => r.value!.toString()),
    [...records('a', 0, 0, 10), ...records('b', 0, 25, 5)].map((r) => r.value!.toString()),
    'partition 0 goes on from the log start',
  );
  assert.equal(byPartition.get(1)!.length, 30);

  const warnings = await second.until(() => (expiredWarnings(second.logs).length > 0 ? expiredWarnings(second.logs) : undefined), {
    what: 'the expiry warning',
  });
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  const { fromOffset, toOffset, records: count, logStart, partition } = warnings[0]!.meta;
  assert.deepEqual(
    { topic: warnings[0]!.meta['topic'], partition, fromOffset, toOffset, records: count, logStart },
    { topic, partition: 0, fromOffset: 10, toOffset: 24, records: 15, logStart: 25 },
  );
  assert.equal(second.statuses()[0]!.recordsExpired, 15);
  await second.stop();
});
