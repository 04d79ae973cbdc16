/**
 * Fetching ahead (src/kafka/wire/fetch-ahead.ts) on real brokers: a flow's consumer sends its next
 * Fetch while the last one's records are handed over, and uses that answer only for the very
 * request kafkajs makes next. Sources written by Kafka's Java producer with transactions (every
 * third aborted, a second transactional producer and a plain one in between, lz4, 16 KiB
 * batches), read 16 KiB per partition per Fetch so the flow is behind for many Fetches in a row;
 * then stopped, more records written, and started again, so the new consumer's first requests
 * (from the flow's stored progress) are not the ones fetched ahead. The target must hold exactly
 * what a read_committed Java consumer reads from the source, and early answers must have been used.
 * Then the size of a Fetch of one partition (src/kafka/wire/shared-fetch-bytes.ts): larger than
 * kafkajs's when the file leaves it unset, exactly the file's when it sets it.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName } from '../support/clusters';
import { caughtUp, startPipeline, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';
import { fetchAheadTotals, sharedFetchTotals } from '../../src/kafka/wire/install';

const JAVA_TIMEOUT_MS = 120_000;
const PARTITIONS = 3;

let source: KafkaKit;
let java: JavaTools;
let bootstrap: { primary: string; backup: string };

useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary) }),
  (kits) => ({ source } = kits),
);

before(async () => {
  java = await JavaTools.prepare(await ensureKafkaDistribution(defaultKafkaVersion()), mirrorflowCacheDir());
  bootstrap = await testClusters();
});

function produce(topic: string, label: string): Promise<unknown> {
  return java.benchToolJson(
    [
      'produce-transactional',
      ...['--bootstrap', bootstrap.primary, '--topic', topic, '--partitions', String(PARTITIONS), '--label', label],
      ...['--records', '3000', '--per-transaction', '100', '--abort-every', '3', '--interleave'],
      ...['--compression', 'lz4', '--linger-ms', '5', '--batch-size', '16384'],
    ],
    JAVA_TIMEOUT_MS,
  );
}

async function replicateToEnd(file: string, topic: string): Promise<void> {
  const run = await startPipeline(file);
  try {
    await run.until(() => caughtUp(run, source, [topic]), { what: `every partition of ${topic} replicated to its end`, timeoutMs: 120_000 });
  } finally {
    await run.stop();
  }
}

test('a flow that fetches ahead copies exactly what a read_committed consumer reads, across a restart', async () => {
  const topic = uniqueName('fetch-ahead');
  await source.createTopic(topic, PARTITIONS);
  const { file } = await writePipeline({
    flows: [{ topics: [topic], consumer: { max_bytes_per_partition: 16_384 }, checkpoints: { enabled: false }, replicate_heartbeats: false }],
  });
  const before = fetchAheadTotals();

  await produce(topic, 'first');
  await replicateToEnd(file, topic);
  const afterFirst = fetchAheadTotals();
  assert.ok(afterFirst.used > before.used, `early answers must have been used (${JSON.stringify(afterFirst)} after, ${JSON.stringify(before)} before)`);

  await produce(topic, 'second');
  await replicateToEnd(file, topic);

  const committed = await java.digest(bootstrap.primary, [topic], { isolation: 'read_committed' });
  const uncommitted = await java.digest(bootstrap.primary, [topic]);
  const copied = await java.digest(bootstrap.backup, [`primary.${topic}`], { isolation: 'read_committed' });
  for (let p = 0; p < PARTITIONS; p++) {
    const want = committed[topic]![String(p)]!;
    assert.ok(uncommitted[topic]![String(p)]!.count > want.count, `test setup: ${topic}/${p} must hold aborted records`);
    assert.deepEqual(
      copied[`primary.${topic}`]![String(p)],
      want,
      `${topic}/${p}: the target must hold the ${want.count} committed records of the source, in offset order (count and content hash)`,
    );
  }
});

/** A one-partition topic of 600 × 10 KiB records from Kafka's Java producer (lz4, 256 KiB batches): what the benchmark's `large` workload copies. */
async function lonePartition(prefix: string): Promise<string> {
  const topic = uniqueName(prefix);
  await source.createTopic(topic, 1);
  await java.produce({
    ...{ bootstrap: bootstrap.primary, topic, partitions: 1, records: 600, keyBytes: 16, valueBytes: 10_240, headers: 2 },
    ...{ producer: ['compression.type=lz4', 'batch.size=262144', 'linger.ms=5'], timeoutMs: JAVA_TIMEOUT_MS },
  });
  return topic;
}

/** Replicates `topic` with `consumer` settings to its end; how many Fetches asked for a shared larger size meanwhile. */
async function widenedWhileCopying(topic: string, consumer: object): Promise<number> {
  const { file } = await writePipeline({ flows: [{ topics: [topic], consumer, checkpoints: { enabled: false }, replicate_heartbeats: false }] });
  const before = sharedFetchTotals().widened;
  await replicateToEnd(file, topic);
  const widened = sharedFetchTotals().widened - before;
  assert.deepEqual(
    (await java.digest(bootstrap.backup, [`primary.${topic}`]))[`primary.${topic}`]!['0'],
    (await java.digest(bootstrap.primary, [topic]))[topic]!['0'],
    `${topic}: the target must hold the source partition (count and content hash)`,
  );
  return widened;
}

test('a lone partition is fetched up to 4 MiB at a time unless the file sets the size, and is copied exactly either way', async () => {
  // Where 1 MiB per Fetch bound the flow to round trips.
  assert.ok(
    (await widenedWhileCopying(await lonePartition('lone-partition'), {})) > 0,
    'with the size unset, the lone partition must have asked for more than 1 MiB',
  );
  // Set in the file (as an mm2.properties `max.partition.fetch.bytes` sets it): exactly that size.
  const set = await widenedWhileCopying(await lonePartition('lone-partition-set'), { max_bytes_per_partition: 1_048_576 });
  assert.equal(set, 0, 'a size the file sets must be asked for as it is');
});
