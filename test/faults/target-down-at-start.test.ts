/**
 * The target cluster down before a flow's first write: the flow's producer first
 * connects while the target refuses connections. Once the target is back, replication
 * completes. Stops and starts a broker, so it runs on clusters of its own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { MAX_RECORDS, assertSameRecords, distinctCount, numbered, outagesOf, startOutagePipeline, withBrokerBack } from './outage-support';

const clusters = ownClusters(['src', 'dst']);
const PARTITIONS = 3;

test('a target down before the first write of a flow: replication completes once it is back', async () => {
  const src = clusters.kit('src');
  const dst = clusters.kit('dst');
  const topic = uniqueName('target-down-early');
  const remote = `src.${topic}`;
  await src.createTopic(topic, PARTITIONS);
  const run = await startOutagePipeline(clusters, topic);
  // The remote topic exists and the flow took the topic in (its topic refresh ended, so it reads
  // the source whatever later refreshes meet), but nothing was written yet: the flow's producer
  // first connects while the target is down.
  // The group assigned the partitions and their progress was read: from now on they are fetched.
  await run.until(async () => (await dst.topics()).has(remote) && run.statuses()[0]!.topics === 1 && run.statuses()[0]!.partitionsAssigned === PARTITIONS, {
    what: `${remote} to be created and replicated`,
    timeoutMs: 30_000,
  });
  const count = 3000;
  await withBrokerBack(clusters.broker('dst'), async () => {
    await clusters.broker('dst').halt();
    await src.produce(topic, numbered('early', 0, count, PARTITIONS));
    await run.until(() => outagesOf(run, 'dst').some((o) => o.operation === 'writing records' && o.failures >= 2), {
      what: 'writes to dst to fail more than once',
      timeoutMs: 90_000,
    });
  });
  await run.until(async () => (await distinctCount(dst, remote)) === count, { what: `all ${count} records on the target`, timeoutMs: 90_000 });
  await run.stop();
  const duplicates = await assertSameRecords(src, topic, dst, remote, PARTITIONS);
  assert.ok(duplicates <= MAX_RECORDS, `${duplicates} repeated records`);
});
