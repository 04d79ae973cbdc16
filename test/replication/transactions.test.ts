/**
 * Aborted transactions never reach the target: sources written by Kafka's own Java
 * producers with transactions — the reporter's settings (compression, linger.ms 5, batch.size
 * 256 KiB, 100 records per transaction over 2 partitions, every third aborted) plus a second
 * transactional producer whose transactions overlap the first's and a plain producer writing in
 * between — replicate so that the target holds exactly what a read_committed Java consumer reads
 * from the source: same records, same order per partition. For every codec, with record batches
 * forwarded (compressed ones too), inflated and joined (compressed again with their codec), and
 * with every batch decoded.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName } from '../support/clusters';
import { caughtUp, startPipeline, writePipeline, writePipelineText, type RunningPipeline } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const JAVA_TIMEOUT_MS = 120_000;

let source: KafkaKit;
let target: KafkaKit;
let java: JavaTools;
let bootstrap: { primary: string; backup: string };

sourceAndTargetKits((kits) => ({ source, target } = kits));

before(async () => {
  java = await JavaTools.prepare(await ensureKafkaDistribution(defaultKafkaVersion()), mirrorflowCacheDir());
  bootstrap = await testClusters();
});

test('transactional sources written by Java producers: the target holds exactly what a read_committed consumer reads, for every codec, forwarded, joined and decoded', async () => {
  const id = uniqueName('txn');
  const topics = CODECS.map((codec) => `${id}-${codec}`);
  for (const topic of topics) await source.createTopic(topic, 2);
  await java.benchToolJson(
    [
      'produce-transactional',
      '--bootstrap',
      bootstrap.primary,
      '--topic',
      topics.join(','),
      '--compression',
      CODECS.join(','),
      '--partitions',
      '2',
      '--records',
      '600',
      '--per-transaction',
      '100',
      '--abort-every',
      '3',
      '--linger-ms',
      '5',
      '--batch-size',
      '262144',
      '--interleave',
    ],
    JAVA_TIMEOUT_MS,
  );
  // The reporter's topic as written: one transactional producer, lz4, 3,000 records.
  const reported = `${id}-reported`;
  await source.createTopic(reported, 2);
  await java.benchToolJson(
    [
      'produce-transactional',
      '--bootstrap',
      bootstrap.primary,
      '--topic',
      reported,
      '--partitions',
      '2',
      '--records',
      '3000',
      '--per-transaction',
      '100',
      '--abort-every',
      '3',
      '--compression',
      'lz4',
      '--linger-ms',
      '5',
      '--batch-size',
      '262144',
    ],
    JAVA_TIMEOUT_MS,
  );
  topics.push(reported);

  const committed = await java.digest(bootstrap.primary, topics, { isolation: 'read_committed' });
  const uncommitted = await java.digest(bootstrap.primary, topics);
  for (const topic of topics) {
    for (const p of ['0', '1']) assert.ok(uncommitted[topic]![p]!.count > committed[topic]![p]!.count, `test setup: ${topic}/${p} must hold aborted records`);
  }

  // Two aliases of the same source cluster, so the two runs keep separate progress and remote topics.
  const filter = [`${id}-.*`];
  const paths = [
    { alias: 'primary', flow: { topics: filter, batching: { forward_compressed_min_bytes: 0 } } },
    { alias: 'primarydecoded', flow: { source: 'primarydecoded', topics: filter, batching: { forward_batches: false } } },
    // Every compressed batch inflated, a partition's batches joined and compressed again with their codec.
    { alias: 'primaryjoined', flow: { source: 'primaryjoined', topics: filter, batching: { forward_compressed_min_bytes: 1 << 30 } } },
  ];
  const runs: RunningPipeline[] = [];
  try {
    for (const path of paths) {
      const { file } = await writePipeline({
        clusters: { primarydecoded: bootstrap.primary, primaryjoined: bootstrap.primary },
        flows: [{ ...path.flow, checkpoints: { enabled: false } }],
      });
      runs.push(await startPipeline(file));
    }
    await Promise.all(
      runs.map((run, i) =>
        run.until(() => caughtUp(run, source, topics), { what: `${paths[i]!.alias}: every source partition replicated to its end`, timeoutMs: 120_000 }),
      ),
    );
  } finally {
    await Promise.all(runs.map((run) => run.stop()));
  }
  assert.ok(runs[0]!.statuses().reduce((n, s) => n + s.recordBatchesForwarded, 0) > 0, 'the first run must have forwarded record batches');
  assert.ok(runs[2]!.statuses().reduce((n, s) => n + s.recordBatchesForwarded, 0) > 0, 'the joining run must have forwarded (inflated) record batches');

  for (const path of paths) {
    const remote = topics.map((topic) => `${path.alias}.${topic}`);
    const copied = await java.digest(bootstrap.backup, remote, { isolation: 'read_committed' });
    for (const topic of topics) {
      for (const p of ['0', '1']) {
        const want = committed[topic]![p]!;
        const got = copied[`${path.alias}.${topic}`]![p]!;
        assert.deepEqual(
          got,
          want,
          `${path.alias}.${topic}/${p}: ${got.count} records on the target, ${want.count} committed on the source (content hash in offset order must match)`,
        );
      }
    }
  }
});

test('a transaction aborted after replication caught up: nothing of it is copied, and the partition shows no lag', async () => {
  const topic = uniqueName('txn-tail');
  await source.createTopic(topic, 1);
  const produce = (abortEvery: number): Promise<unknown> =>
    java.benchToolJson(
      [
        'produce-transactional',
        '--bootstrap',
        bootstrap.primary,
        '--topic',
        topic,
        '--partitions',
        '1',
        '--records',
        '50',
        '--per-transaction',
        '50',
        '--abort-every',
        String(abortEvery),
        '--compression',
        'lz4',
      ],
      JAVA_TIMEOUT_MS,
    );
  await produce(1_000); // committed
  const { file } = await writePipeline({ flows: [{ topics: [topic], checkpoints: { enabled: false } }] });
  const run = await startPipeline(file);
  try {
    await run.until(() => caughtUp(run, source, [topic]), { what: 'the committed transaction replicated', timeoutMs: 60_000 });
    await produce(1); // aborted: the next fetch holds nothing but its records and its marker
    await run.until(() => caughtUp(run, source, [topic]), { what: 'the position past the aborted transaction and its marker', timeoutMs: 30_000 });
  } finally {
    await run.stop();
  }
  assert.equal(run.statuses()[0]!.lag, 0);
  assert.equal(await target.count(`primary.${topic}`), 50, 'only the committed transaction is on the target');
});

/**
 * The reporter's case: an MM2 file that does not set consumer.isolation.level (MM2 reads
 * read_uncommitted and copies what aborted transactions wrote, as committed records). Written by
 * Kafka 4.x's Java producer (transactions v2: the epoch moves with every transaction) and by 3.x's.
 */
for (const clientVersion of [defaultKafkaVersion(), '3.9.1']) {
  test(`an MM2 file without consumer.isolation.level copies only committed records (Java ${clientVersion} producer)`, async () => {
    const tools = clientVersion === defaultKafkaVersion() ? java : await JavaTools.prepare(await ensureKafkaDistribution(clientVersion), mirrorflowCacheDir());
    const topic = uniqueName(`txn-mm2-${clientVersion.replace(/\./g, '')}`);
    await source.createTopic(topic, 2);
    await tools.benchToolJson(
      [
        'produce-transactional',
        '--bootstrap',
        bootstrap.primary,
        '--topic',
        topic,
        '--partitions',
        '2',
        '--records',
        '3000',
        '--per-transaction',
        '100',
        '--abort-every',
        '3',
        '--compression',
        'lz4',
        '--linger-ms',
        '5',
        '--batch-size',
        '262144',
      ],
      JAVA_TIMEOUT_MS,
    );
    const committed = await java.digest(bootstrap.primary, [topic], { isolation: 'read_committed' });
    assert.equal(committed[topic]!['0']!.count + committed[topic]!['1']!.count, 2000, 'test setup: 2,000 of 3,000 records committed');
    const alias = uniqueName('mm2src').replace(/-/g, '_');
    const file = writePipelineText(
      [
        `clusters = ${alias}, backup`,
        `${alias}.bootstrap.servers = ${bootstrap.primary}`,
        `backup.bootstrap.servers = ${bootstrap.backup}`,
        `${alias}->backup.enabled = true`,
        `${alias}->backup.topics = ${topic}`,
        `${alias}->backup.emit.checkpoints.enabled = false`,
        'emit.heartbeats.enabled = false',
        'replication.factor = 1',
        'offset-syncs.topic.replication.factor = 1',
        'offset.storage.replication.factor = 1',
        '',
      ].join('\n'),
      'mm2.properties',
    );
    const run = await startPipeline(file);
    try {
      await run.until(() => caughtUp(run, source, [topic]), { what: 'every source partition replicated to its end', timeoutMs: 120_000 });
    } finally {
      await run.stop();
    }
    // Read read_uncommitted: whatever is on the target, aborted or not, a consumer could read.
    const copied = await java.digest(bootstrap.backup, [`${alias}.${topic}`]);
    for (const p of ['0', '1'])
      assert.deepEqual(
        copied[`${alias}.${topic}`]![p],
        committed[topic]![p],
        `partition ${p}: the target holds the committed records, in order, and nothing else`,
      );
  });
}
