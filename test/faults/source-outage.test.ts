/**
 * The source cluster going away under a running pipeline: its broker restarted while
 * records are being replicated. The run goes on, reports the outage, and once the source is back
 * every record is on the target, partition by partition, in order. On clusters of its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { MAX_RECORDS, assertSameRecords, distinctCount, numbered, outagesOf, startOutagePipeline, withBrokerBack } from './outage-support';

const clusters = ownClusters(['src', 'dst']);
const PARTITIONS = 3;

test('a source broker restarted mid-stream: the run goes on and every record reaches the target once it is back', async () => {
  const src = clusters.kit('src');
  const dst = clusters.kit('dst');
  const topic = uniqueName('source-outage');
  const remote = `src.${topic}`;
  await src.createTopic(topic, PARTITIONS);
  const run = await startOutagePipeline(clusters, topic);

  const before = 10_000;
  await src.produce(topic, numbered('before', 0, before, PARTITIONS));
  await run.until(async () => (await dst.count(remote).catch(() => 0)) > 0, { what: 'replication to be under way', timeoutMs: 60_000 });
  await withBrokerBack(clusters.broker('src'), async () => {
    await clusters.broker('src').halt();
    // Offset syncs live on the source by default, and topics are listed there: both notice.
    await run.until(() => outagesOf(run, 'src').length > 0, { what: 'the outage of src to be reported', timeoutMs: 90_000 });
  });
  const after = 3_000;
  await src.produce(topic, numbered('after', before, after, PARTITIONS));
  await run.until(async () => (await distinctCount(dst, remote)) === before + after, {
    what: `all ${before + after} records on the target`,
    timeoutMs: 120_000,
  });
  await run.until(() => outagesOf(run, 'src').length === 0, { what: 'the outage of src to end', timeoutMs: 60_000 });
  assert.ok(
    run.statuses().every((s) => s.state === 'running'),
    'the flow never stopped',
  );
  await run.stop();
  const duplicates = await assertSameRecords(src, topic, dst, remote, PARTITIONS);
  assert.ok(duplicates <= MAX_RECORDS, `${duplicates} repeated records`);
});
