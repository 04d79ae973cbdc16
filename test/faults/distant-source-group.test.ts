/**
 * A source far away keeps its group member (issue 42, many partitions). kafkajs heartbeats only
 * between the batches of its fetch loop, and the first round after a join asks the coordinator
 * for committed offsets, the leaders for log starts, then fetches: with 20,000 partitions on a
 * loaded broker that round took longer than the 6 s session, and so does it here with every
 * request 2.4 s there and back. The coordinator dropped the member before its first heartbeat,
 * and each rejoin copied the partitions again. The member now heartbeats on a timer of its own
 * (src/kafka/consumer/group-hooks.ts `keepAlive`): one assignment, each record once.
 *
 * Both clusters are this file's own; mirrorflow reaches the source through a TCP proxy that
 * holds every chunk 1.2 s each way (the test's own clients talk to the brokers directly).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyedRecords } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, writePipeline } from '../support/pipeline-harness';
import { ownProxiedClusters } from '../support/proxied-clusters';

const cluster = ownProxiedClusters(['primary', 'backup']);

const PARTITIONS = 12;
const RECORDS = PARTITIONS * 10;
/** Each way: a round trip of 2.4 s, so kafkajs's first fetch round (three of them at least) outlasts the 6 s session. */
const ONE_WAY_MS = 1_200;

test('with the source 2.4 s away, the member keeps its group through the first fetch round: one assignment, each record once', async () => {
  const source = cluster('primary');
  const target = cluster('backup');
  const p = uniqueName('distant-group');
  const topic = `${p}-events`;
  const remote = `primary.${topic}`;
  await source.kit.createTopic(topic, PARTITIONS);
  await source.kit.produce(topic, keyedRecords(RECORDS, PARTITIONS));

  source.proxy.delay(ONE_WAY_MS);
  const { file } = await writePipeline({
    sharedClusters: false,
    clusters: { primary: source.proxied, backup: target.direct },
    // The default session (6 s) and heartbeat interval (1 s); a topic refresh every 30 s, as by default.
    flows: [{ topics: [`${p}-.*`], topic_sync: { refresh_interval_ms: 30_000 } }],
  });
  const run = await startPipeline(file);
  try {
    await run.until(async () => (await target.kit.count(remote).catch(() => 0)) >= RECORDS, {
      what: `the ${RECORDS} records in ${remote}`,
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    const lost = run.logs.filter((line) => /not aware of this member/.test(String(line.message)));
    assert.deepEqual(lost, [], 'the coordinator never forgot the member');
    assert.equal(run.logs.filter((line) => line.message === 'Partitions assigned.').length, 1, 'the partitions were assigned once: no rejoin');
    assert.equal(await target.kit.count(remote), RECORDS, 'each record once');
  } finally {
    source.proxy.delay(0);
    await run.stop();
  }
});
