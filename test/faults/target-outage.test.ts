/**
 * The target cluster going away under a running pipeline: the run keeps going,
 * retrying for as long as it takes, says so in its log and its status, and once the target is
 * back every source record is there, partition by partition, in order. The test stops and
 * starts a broker, so it runs on clusters of its own (as target-down-at-start.test.ts, kept
 * apart so that each file stays well within the per-file time limit).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import {
  MAX_RECORDS,
  assertSameRecords,
  distinctCount,
  keepProducing,
  outagesOf,
  outageWarnings,
  recoveries,
  startOutagePipeline,
  withBrokerBack,
} from './outage-support';

const clusters = ownClusters(['src', 'dst']);
const PARTITIONS = 3;
const OUTAGE_MS = 30_000;

test('a target broker down for 30 s mid-stream: the run goes on, warns, and loses nothing', async () => {
  const src = clusters.kit('src');
  const dst = clusters.kit('dst');
  const topic = uniqueName('target-outage');
  const remote = `src.${topic}`;
  await src.createTopic(topic, PARTITIONS);
  const run = await startOutagePipeline(clusters, topic);
  const producer = keepProducing(src, topic, PARTITIONS, 'mid');
  await run.until(async () => (await dst.count(remote).catch(() => 0)) >= 200, { what: 'records on the target before the outage', timeoutMs: 60_000 });

  // How long writes had been failing when the broker was started again, as the flow saw it (its
  // first failure comes some seconds after the halt, once the client's own retries gave up).
  let failingBeforeRestartMs = 0;
  const writtenDuringOutage = await withBrokerBack(clusters.broker('dst'), async () => {
    await clusters.broker('dst').halt();
    const down = Date.now();
    // The outage itself is the stimulus: held for its length while the pipeline must stay up.
    const outage = await run.until(() => (Date.now() - down >= OUTAGE_MS ? outagesOf(run, 'dst').find((o) => o.operation === 'writing records') : undefined), {
      what: `writes to dst to be reported failing for ${OUTAGE_MS} ms`,
      timeoutMs: OUTAGE_MS + 30_000,
    });
    failingBeforeRestartMs = Date.now() - outage.since;
    return producer.written();
  });
  await run.until(() => outagesOf(run, 'dst').length === 0, { what: 'the outage of dst to end', timeoutMs: 90_000 });
  const written = await producer.stop();
  assert.ok(written > writtenDuringOutage, 'the source kept receiving records');
  await run.until(async () => (await distinctCount(dst, remote)) === written, { what: `all ${written} records on the target`, timeoutMs: 90_000 });
  assert.ok(
    run.statuses().every((s) => s.state === 'running'),
    'the flow never stopped',
  );
  await run.stop();

  const duplicates = await assertSameRecords(src, topic, dst, remote, PARTITIONS);
  assert.ok(duplicates <= MAX_RECORDS, `${duplicates} repeated records: at most the one write in flight (${MAX_RECORDS}) may land twice`);

  const warnings = outageWarnings(run.logs, 'dst');
  assert.ok(
    warnings.some((w) => w.meta['operation'] === 'writing records'),
    'a warning names the cluster and the failing operation',
  );
  assert.ok(
    warnings.some((w) => (w.meta['outageMs'] as number) >= 10_000),
    'the warning is repeated as the outage lasts, with its length so far',
  );
  assert.ok(warnings.length < 40, `warnings are spaced out, not one per retry (${warnings.length})`);
  const recovered = recoveries(run.logs, 'dst').find((l) => l.meta['operation'] === 'writing records');
  assert.ok(
    recovered !== undefined && (recovered.meta['outageMs'] as number) >= failingBeforeRestartMs,
    'an info line says the target works again, with the outage length',
  );
});
