/**
 * Fetching ahead (src/kafka/wire/fetch-ahead.ts) on real brokers: a flow's consumer sends its next
 * Fetch while the last one's records are handed over, and uses that answer only for the very
 * request kafkajs makes next. Sources written by Kafka's Java producer with transactions (every
 * third aborted, a second transactional producer and a plain one in between, lz4, 16 KiB
 * batches), read 16 KiB per partition per Fetch so the flow is behind for many Fetches in a row;
 * then stopped, more records written, and started again, so the new consumer's first requests
 * (from the flow's stored progress) are not the ones fetched ahead. The target must hold exactly
 * what a read_committed Java consumer reads from the source, and early answers must have been used.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName } from '../support/clusters';
import { caughtUp, startPipeline, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';
import { fetchAheadTotals } from '../../src/kafka/wire/install';

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
