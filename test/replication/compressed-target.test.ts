/**
 * Issue 42 item 2: a compressed topic stays compressed on the target. Kafka's Java producer writes
 * JSON events with zstd and with lz4 and its default batching (batch.size 16384, linger.ms 5):
 * small compressed batches, under `forward_compressed_min_bytes`, which mirrorflow decompresses
 * to join them into one batch per partition and write. With every setting at its default, the
 * joined batches must go out compressed with the source's codec again, and every record must
 * arrive byte for byte (key, value, headers, timestamp, order).
 *
 * Checked on the brokers themselves: each batch of the target's log, as Kafka's DumpLogSegments
 * reads it from the partition's folder (DescribeLogDirs says where), carries the source's codec,
 * and the remote topic takes no more than 1.1 times the source's bytes.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KafkaKit, snapshot } from '../support/kafka-kit';
import { testClusters, uniqueName } from '../support/clusters';
import { startPipeline, writePipeline } from '../support/pipeline-harness';
import { runKafkaTool } from '../support/kafka-admin-tools';
import { useKits } from '../support/use-kits';
import { JavaPrograms } from '../interop/java-programs';

const PARTITIONS = 2;
const RECORDS = 6_000;

let source: KafkaKit;
let target: KafkaKit;
useKits(
  (clusters) => ({ source: new KafkaKit(clusters.primary), target: new KafkaKit(clusters.backup) }),
  (kits) => ({ source, target } = kits),
);

let java: JavaPrograms;
before(async () => {
  java = await JavaPrograms.compile('CompressedJsonTopics.java');
});
after(() => java?.dispose());

interface Replica {
  readonly partition: number;
  readonly size: number;
  readonly path: string;
}

/** One replica per partition of `topic` (the largest): its log bytes and folder. */
async function replicas(bootstrap: string, topic: string): Promise<Replica[]> {
  const out = await java.run('CompressedJsonTopics', ['log-dirs', bootstrap, topic]);
  const byPartition = new Map<number, Replica>();
  for (const line of out.split('\n').filter((l) => l.trim() !== '')) {
    const [, partition, size, path] = line.trim().split(' ');
    const replica = { partition: Number(partition), size: Number(size), path: path! };
    if ((byPartition.get(replica.partition)?.size ?? -1) < replica.size) byPartition.set(replica.partition, replica);
  }
  return [...byPartition.values()];
}

/** The codec of every batch in the partition's log segments, as Kafka's DumpLogSegments reads them. */
async function batchCodecs(replica: Replica): Promise<string[]> {
  const segments = readdirSync(replica.path)
    .filter((f) => f.endsWith('.log'))
    .map((f) => join(replica.path, f));
  const out = await runKafkaTool('org.apache.kafka.tools.DumpLogSegments', ['--files', segments.join(',')]);
  return [...out.matchAll(/compresscodec: (\w+)/g)].map((m) => m[1]!.toLowerCase());
}

describe('a compressed source topic written by the Java producer', () => {
  for (const codec of ['zstd', 'lz4'] as const) {
    test(`${codec}: small batches joined on the way land compressed with ${codec}, every record byte for byte`, async () => {
      const topic = `${uniqueName(`compressed-${codec}`)}.events`;
      const remote = `primary.${topic}`;
      await source.createTopic(topic, PARTITIONS);
      const wrote = await java.run('CompressedJsonTopics', ['produce', (await testClusters()).primary, topic, String(PARTITIONS), String(RECORDS), codec]);
      assert.match(wrote, new RegExp(`WROTE ${RECORDS}`));

      const { file } = await writePipeline({ flows: [{ topics: [topic.replace(/\./g, '\\.')] }] });
      const run = await startPipeline(file);
      try {
        await run.until(async () => (await target.count(remote)) >= RECORDS, { what: `${RECORDS} records in ${remote}`, timeoutMs: 120_000 });
      } finally {
        await run.stop();
      }
      const joined = run.statuses().reduce((n, s) => n + s.recordBatchesForwarded, 0);
      assert.ok(joined > 0, 'the source batches went through the forwarding path (inflated and joined)');

      const fromSource = await source.readAll(topic);
      const onTarget = await target.readAll(remote);
      for (let p = 0; p < PARTITIONS; p++) {
        assert.deepEqual(snapshot(onTarget.get(p) ?? []), snapshot(fromSource.get(p) ?? []), `${remote}-${p}: every record, byte for byte, in order`);
      }

      const sourceReplicas = await replicas((await testClusters()).primary, topic);
      const targetReplicas = await replicas((await testClusters()).backup, remote);
      const sourceBytes = sourceReplicas.reduce((n, r) => n + r.size, 0);
      const targetBytes = targetReplicas.reduce((n, r) => n + r.size, 0);
      const sourceBatches = (await Promise.all(sourceReplicas.map(batchCodecs))).flat();
      const targetBatches = (await Promise.all(targetReplicas.map(batchCodecs))).flat();
      assert.ok(
        sourceBatches.length > targetBatches.length,
        `test setup: the source's ${sourceBatches.length} small batches were joined into fewer (${targetBatches.length})`,
      );
      assert.deepEqual(new Set(sourceBatches), new Set([codec]), 'test setup: the Java producer compressed every batch');
      assert.deepEqual(new Set(targetBatches), new Set([codec]), `every batch on the target is compressed with ${codec}`);
      assert.ok(targetBytes <= 1.1 * sourceBytes, `the target takes ${targetBytes} bytes against the source's ${sourceBytes}: at most 1.1 times`);
    });
  }
});
