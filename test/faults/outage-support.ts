/**
 * Shared by the outage tests: a producer that keeps writing numbered records to the source, and
 * the check that the target holds every source record, partition by partition, in order.
 */
import assert from 'node:assert/strict';
import { setTimeout as pace } from 'node:timers/promises';
import { distinct, snapshot, type KafkaKit, type TestRecord } from '../support/kafka-kit';
import { startPipeline, writePipeline, type LogLine, type RunningPipeline } from '../support/pipeline-harness';
import type { OwnClusters } from '../support/own-clusters';
import type { RestartableBroker } from '../../src/local';
import type { Outage } from '../../src/flow/status/outage-status';

/** Records per write in the outage tests: what one write in flight can leave on the target twice. */
export const MAX_RECORDS = 500;

/** Starts a pipeline replicating `topic` from `src` to `dst`, checkpointing every 2 s. */
export async function startOutagePipeline(clusters: OwnClusters<'src' | 'dst'>, topic: string): Promise<RunningPipeline> {
  const { file } = await writePipeline({
    clusters: clusters.bootstrapServers(),
    flows: [{ source: 'src', target: 'dst', topics: [topic], batching: { max_records: MAX_RECORDS }, checkpoints: { interval_ms: 2000 } }],
  });
  const run = await startPipeline(file);
  await run.running();
  return run;
}

/** Runs `body`, which halts `broker`; the broker runs again afterwards, whatever happened. */
export async function withBrokerBack<T>(broker: RestartableBroker, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } finally {
    if (!broker.running) await broker.start();
  }
}

/** Records whose values are unique ids `<label>-<n>`, spread round-robin over `partitions` partitions. */
export function numbered(label: string, from: number, count: number, partitions: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: (from + i) % partitions,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`${label}-${from + i}`),
    headers: [{ key: 'n', value: Buffer.from(String(from + i)) }],
    timestamp: Date.now(),
  }));
}

/** Keeps writing 20 numbered records about every 20 ms until stopped; `stop` resolves with how many. */
export function keepProducing(kit: KafkaKit, topic: string, partitions: number, label: string): { stop(): Promise<number>; written(): number } {
  let stopped = false;
  let n = 0;
  const loop = (async () => {
    while (!stopped) {
      await kit.produce(topic, numbered(label, n, 20, partitions));
      n += 20;
      await pace(20);
    }
    return n;
  })();
  return {
    stop: async () => {
      stopped = true;
      return loop;
    },
    written: () => n,
  };
}

/** Records per partition without repeats (a write retried after its ack was lost lands twice). */
export async function distinctCount(kit: KafkaKit, topic: string): Promise<number> {
  const byPartition = await kit.readAll(topic);
  return [...byPartition.values()].reduce((sum, records) => sum + distinct(records).length, 0);
}

/**
 * Asserts that `target` holds exactly the records of `source`, partition by partition, in order,
 * once repeats are removed; returns how many repeats there were.
 */
export async function assertSameRecords(source: KafkaKit, sourceTopic: string, target: KafkaKit, targetTopic: string, partitions: number): Promise<number> {
  const [from, to] = await Promise.all([source.readAll(sourceTopic), target.readAll(targetTopic)]);
  let duplicates = 0;
  for (let p = 0; p < partitions; p++) {
    const expected = from.get(p) ?? [];
    const copied = to.get(p) ?? [];
    const unique = distinct(copied);
    duplicates += copied.length - unique.length;
    assert.equal(unique.length, expected.length, `partition ${p}: ${unique.length} distinct records on the target, ${expected.length} on the source`);
    assert.deepEqual(snapshot(unique), snapshot(expected), `partition ${p}: the target holds the source's records in order`);
  }
  return duplicates;
}

/** Ongoing outages of `cluster` in the pipeline's first flow. */
export function outagesOf(run: RunningPipeline, cluster: string): readonly Outage[] {
  return run.statuses()[0]?.outages.current.filter((o) => o.cluster === cluster) ?? [];
}

/** The outage warnings logged for `cluster`. */
export function outageWarnings(logs: readonly LogLine[], cluster: string): LogLine[] {
  return logs.filter((l) => l.level === 'warn' && l.meta['cluster'] === cluster && typeof l.meta['outageMs'] === 'number');
}

/** The "works again" lines logged for `cluster`. */
export function recoveries(logs: readonly LogLine[], cluster: string): LogLine[] {
  return logs.filter((l) => l.level === 'info' && l.meta['cluster'] === cluster && typeof l.meta['outageMs'] === 'number');
}
