/**
 * Fetch sessions (src/kafka/wire/fetch-session.ts) on a real broker: a flow's consumer of 240
 * partitions, most of them idle, names in each Fetch only the partitions that moved, and the
 * broker answers only the ones with records. Records written by Kafka's Java producer (lz4) in
 * waves: all partitions, then a few partitions of a few topics while the flow idles in its
 * session, then more after the flow was stopped and started again (a new session from the stored
 * progress). The target must hold every record of every partition, in order, once.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName } from '../support/clusters';
import { caughtUp, startPipeline, writePipeline, type RunningPipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';
import { JavaTools } from '../bench/java-tools';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir } from '../../src/local';
import { fetchSessionTotals } from '../../src/kafka/wire/install';

const JAVA_TIMEOUT_MS = 120_000;
const TOPICS = 24;
const PARTITIONS = 10;

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

/** `records` records per topic into partitions 0 … partitions−1 of each of `topics`, by Kafka's Java producer. */
function produce(topics: readonly string[], partitions: number, records: number): Promise<unknown> {
  return java.benchToolJson(
    [
      'produce',
      ...['--bootstrap', bootstrap.primary, '--topics', topics.join(','), '--partitions', String(partitions), '--records', String(records)],
      ...['--key-bytes', '16', '--value-bytes', '200', '--headers', '1', '--producer', 'compression.type=lz4', '--producer', 'linger.ms=5'],
    ],
    JAVA_TIMEOUT_MS,
  );
}

async function untilCopied(run: RunningPipeline, topics: readonly string[], what: string): Promise<void> {
  await run.until(() => caughtUp(run, source, topics), { what, timeoutMs: 120_000 });
}

test('a flow in a fetch session over 240 mostly idle partitions copies every record, across a restart', async () => {
  const prefix = uniqueName('fetch-session');
  const topics = Array.from({ length: TOPICS }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
  for (const topic of topics) await source.createTopic(topic, PARTITIONS);
  const { file } = await writePipeline({
    flows: [{ topics: [`${prefix}-.*`], checkpoints: { enabled: false }, replicate_heartbeats: false }],
  });

  await produce(topics, PARTITIONS, 50);
  const run = await startPipeline(file);
  try {
    await untilCopied(run, topics, 'the first wave copied');
    const idle = fetchSessionTotals();
    // A few partitions of a few topics get records while the rest stay idle in the session.
    for (const wave of [topics.slice(0, 2), topics.slice(10, 11), topics.slice(20, 23)]) {
      await produce(wave, 3, 30);
      await untilCopied(run, wave, `${wave.join(', ')} copied while the rest idles`);
    }
    const after = fetchSessionTotals();
    assert.ok(after.incremental > idle.incremental, `the flow's Fetches must have gone in a session (${JSON.stringify(idle)} → ${JSON.stringify(after)})`);
  } finally {
    await run.stop();
  }
  assert.ok(fetchSessionTotals().closed > 0, 'a stopped flow closes its fetch sessions at the broker');

  const last = topics.slice(5, 9);
  await produce(last, PARTITIONS, 40);
  const again = await startPipeline(file);
  try {
    // The flow's status knows the partitions it wrote to since it started: the ones of this wave.
    await untilCopied(again, last, `${last.join(', ')} copied after the restart`);
  } finally {
    await again.stop();
  }

  const want = await java.digest(bootstrap.primary, topics);
  const remotes = topics.map((t) => `primary.${t}`);
  const got = await java.digest(bootstrap.backup, remotes);
  for (const topic of topics) {
    for (let p = 0; p < PARTITIONS; p++) {
      const expected = want[topic]?.[String(p)];
      assert.ok(expected !== undefined && expected.count > 0, `test setup: ${topic}/${p} must hold records`);
      assert.deepEqual(
        got[`primary.${topic}`]?.[String(p)],
        expected,
        `${topic}/${p}: the target must hold the source's ${expected.count} records once, in order`,
      );
    }
  }
});
