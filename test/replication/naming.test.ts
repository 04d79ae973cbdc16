/**
 * Remote topic names and which topics are replicated at all (issue #2): the
 * replication policies, cycle prevention, internal topics, heartbeats topics.
 *
 * Every topic name here contains the test's unique name, and assertions look only at topics that
 * contain it, because the clusters are shared with other test files.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { KafkaKit, distinct, snapshot, type TestRecord } from '../support/kafka-kit';
import { testClusters, uniqueName } from '../support/clusters';
import { startPipeline, writePipeline, type RunningPipeline, type TestFlow } from '../support/pipeline-harness';
import { sourceAndTargetKits } from '../support/use-kits';

let source: KafkaKit;
let target: KafkaKit;
sourceAndTargetKits((kits) => ({ source, target } = kits));

const T0 = 1_700_000_000_000;

function records(label: string, count = 20, partitions = 1): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: i % partitions,
    key: Buffer.from(`${label}-${i}`),
    value: Buffer.from(`value of ${label} #${i}`),
    headers: [{ key: 'from', value: Buffer.from(label) }],
    timestamp: T0 + i,
  }));
}

/** Creates each source topic with a few records; returns what was written per topic. */
async function seed(topics: readonly string[], partitions = 1): Promise<Map<string, TestRecord[]>> {
  const written = new Map<string, TestRecord[]>();
  for (const topic of topics) {
    await source.createTopic(topic, partitions);
    const list = records(topic, 20, partitions);
    await source.produce(topic, list);
    written.set(topic, list);
  }
  return written;
}

/**
 * Runs one flow until every `expected` remote topic (name → source records) holds its records,
 * then stops. Whether the other topics are replicated is decided by then: they all existed
 * before the pipeline started, and one topic refresh creates every missing remote topic.
 */
async function runUntilReplicated(flow: TestFlow, expected: ReadonlyMap<string, readonly TestRecord[]>, clusters?: Record<string, string>): Promise<void> {
  const { file } = await writePipeline({ flows: [flow], ...(clusters ? { clusters } : {}) });
  const run: RunningPipeline = await startPipeline(file);
  try {
    for (const [remote, list] of expected) {
      // Distinct records: a retried produce may have put one on the source twice.
      await run.until(async () => distinct(await target.readAllFlat(remote)).length >= list.length, {
        what: `${list.length} records in ${remote}`,
        timeoutMs: 60_000,
      });
    }
  } finally {
    await run.stop();
  }
  for (const [remote, list] of expected) {
    // readAllFlat lists partition 0 first, then 1, ...; each partition in offset order.
    const inPartitionOrder = [...list].sort((a, b) => a.partition - b.partition);
    assert.deepEqual(snapshot(distinct(await target.readAllFlat(remote))), snapshot(inPartitionOrder), `${remote} must hold the source records`);
  }
}

/**
 * Remote topics on the target named after the unique source alias `src` and holding one of the
 * test's own `markers`. (With heartbeats replication on, the pipeline also copies every other
 * test's heartbeats topics; and `mm2-offsets.<src>.internal` is the pipeline's own progress.)
 */
async function remoteTopics(src: string, ...markers: string[]): Promise<string[]> {
  return (await target.topicsContaining(`${src}.`)).filter((name) => name.startsWith(`${src}.`) && markers.some((m) => name.includes(m)));
}

describe('replication policy naming', () => {
  test('default policy: <source alias>.<topic>', async () => {
    const p = uniqueName('nm-default');
    const written = await seed([`${p}-orders`]);
    await runUntilReplicated({ topics: [`${p}-.*`] }, new Map([[`primary.${p}-orders`, written.get(`${p}-orders`)!]]));
    assert.deepEqual(await target.topicsContaining(p), [`primary.${p}-orders`]);
  });

  test('custom separator: <source alias><separator><topic>', async () => {
    const p = uniqueName('nm-sep');
    const written = await seed([`${p}-orders`]);
    await runUntilReplicated(
      { topics: [`${p}-.*`], replication_policy: { type: 'default', separator: '__' } },
      new Map([[`primary__${p}-orders`, written.get(`${p}-orders`)!]]),
    );
    assert.deepEqual(await target.topicsContaining(p), [`primary__${p}-orders`], `no primary.${p}-orders may be created`);
  });

  test('identity policy: the remote topic keeps the source name', async () => {
    const p = uniqueName('nm-identity');
    const written = await seed([`${p}-orders`], 2);
    await runUntilReplicated({ topics: [`${p}-.*`], replication_policy: { type: 'identity' } }, new Map([[`${p}-orders`, written.get(`${p}-orders`)!]]));
    assert.deepEqual(await target.topicsContaining(p), [`${p}-orders`]);
    assert.equal((await target.topics()).get(`${p}-orders`), 2, 'same partition count');
  });

  test('identity policy: prefixed normal topics are replicated, heartbeats from the target are not (as in MM2 with IdentityReplicationPolicy)', async () => {
    const p = uniqueName('nm-idcycle');
    // A source alias of its own: other pipelines on the shared clusters may replicate heartbeats
    // topics from primary, but none names its remote topics after this alias.
    const src = `src${randomBytes(4).toString('hex')}`;
    const chain = `hb${randomBytes(4).toString('hex')}`;
    const clusters = await testClusters();
    // Normal topics cannot be protected with the identity policy; heartbeats topics whose chain
    // contains the target are still kept from going back.
    const replicated = [`backup.${p}-t1`, `backup.primary.${p}-t1`, `${chain}.heartbeats`];
    const blocked = [`backup.${chain}.heartbeats`, `${chain}.backup.heartbeats`];
    const written = await seed([...replicated, ...blocked]);
    const expected = new Map<string, TestRecord[]>([
      [`backup.${p}-t1`, written.get(`backup.${p}-t1`)!],
      [`backup.primary.${p}-t1`, written.get(`backup.primary.${p}-t1`)!],
      // Identity still renames heartbeats topics, as the default policy does.
      [`${src}.${chain}.heartbeats`, written.get(`${chain}.heartbeats`)!],
    ]);
    await runUntilReplicated(
      { source: src, topics: [`.*${p}.*`, `.*${chain}.*`], replication_policy: { type: 'identity' }, replicate_heartbeats: true },
      expected,
      { [src]: clusters.primary },
    );
    assert.deepEqual(await target.topicsContaining(p), [`backup.${p}-t1`, `backup.primary.${p}-t1`]);
    assert.deepEqual(await remoteTopics(src, chain), [`${src}.${chain}.heartbeats`], `never ${blocked.map((t) => `${src}.${t}`).join(', ')}`);
  });
});

describe('cycle prevention (the cases MM2 tests, flow primary->backup)', () => {
  test('a topic never returns to a cluster named anywhere in its prefix chain', async () => {
    const p = uniqueName('nm-cycle');
    const replicated = [`${p}-t1`, `primary.${p}-t1`, `other.${p}-t1`];
    const blocked = [`backup.${p}-t1`, `backup.primary.${p}-t1`, `primary.backup.${p}-t1`, `backup.primary.backup.${p}-t1`, `primary.backup.primary.${p}-t1`];
    const written = await seed([...replicated, ...blocked]);
    await runUntilReplicated({ topics: [`.*${p}.*`] }, new Map(replicated.map((topic) => [`primary.${topic}`, written.get(topic)!])));
    assert.deepEqual(
      await target.topicsContaining(p),
      replicated.map((topic) => `primary.${topic}`).sort(),
      `only ${replicated.join(', ')} may be replicated; never ${blocked.join(', ')}`,
    );
  });
});

describe('internal topics', () => {
  // Kafka 4.x (KIP-1074) excludes only `mm2.*\.internal, .*\.replica, __.*` by default, and its
  // policy counts only Kafka's (`__`, `.`) and MM2's own topics as internal: a user topic named
  // `x.internal` or `x-internal` is replicated, as MM2 4.x does.
  test('with the default excludes: __x, .x, x.replica and MM2 internal topics are never replicated; x.internal, x-internal are', async () => {
    const p = uniqueName('nm-internal');
    const replicated = [`${p}-normal`, `${p}.internal`, `${p}-internal`];
    const internal = [`__${p}`, `${p}.replica`, `.${p}-hidden`, `mm2-offsets.${p}.internal`, `mm2-offset-syncs.${p}.internal`, `${p}.checkpoints.internal`];
    const written = await seed([...replicated, ...internal]);
    // The filter selects all of them; the default topics_exclude and the policy must keep the internal ones out.
    await runUntilReplicated({ topics: [`.*${p}.*`] }, new Map(replicated.map((t) => [`primary.${t}`, written.get(t)!])));
    assert.deepEqual(await target.topicsContaining(p), replicated.map((t) => `primary.${t}`).sort());
  });

  test('with the pre-4.0 MM2 excludes (.*[\\-\\.]internal): x.internal and x-internal are not replicated either', async () => {
    const p = uniqueName('nm-internal-old');
    const normal = `${p}-normal`;
    const excluded = [`__${p}`, `${p}.internal`, `${p}-internal`, `${p}.replica`];
    const written = await seed([normal, ...excluded]);
    await runUntilReplicated(
      { topics: [`.*${p}.*`], topics_exclude: ['.*[\\-\\.]internal', '.*\\.replica', '__.*'] },
      new Map([[`primary.${normal}`, written.get(normal)!]]),
    );
    assert.deepEqual(await target.topicsContaining(p), [`primary.${normal}`]);
  });

  test('with topics_exclude emptied: Kafka and MM2 internal topics are still never replicated', async () => {
    const p = uniqueName('nm-internal2');
    const normal = `${p}-normal`;
    const internal = [`__${p}`, `.${p}-hidden`, `mm2-offsets.${p}.internal`, `mm2-offset-syncs.${p}.internal`, `${p}.checkpoints.internal`];
    const written = await seed([normal, ...internal]);
    await runUntilReplicated({ topics: [`.*${p}.*`], topics_exclude: [] }, new Map([[`primary.${normal}`, written.get(normal)!]]));
    assert.deepEqual(await target.topicsContaining(p), [`primary.${normal}`]);
  });
});

describe('heartbeats topics', () => {
  // A heartbeats topic is `heartbeats` or `<alias>.heartbeats` (originalTopic is "heartbeats").
  // The source alias is unique to the test so that only this test's pipeline can write the
  // remote topics checked here: other pipelines on the shared clusters may replicate heartbeats.
  test('replicated even when the topic filter excludes them, but not back to the cluster they came from', async () => {
    const p = uniqueName('nm-hb');
    const src = `src${randomBytes(4).toString('hex')}`;
    const chain = `hb${randomBytes(4).toString('hex')}`;
    const clusters = await testClusters();
    const data = `${p}-data`;
    const heartbeats = `${chain}.heartbeats`;
    const lookalikes = [`${chain}heartbeats`, `${chain}-heartbeats`, `${chain}.heartbeats-not`];
    const fromTarget = `${chain}.backup.heartbeats`;
    const written = await seed([data, heartbeats, fromTarget, ...lookalikes]);
    await runUntilReplicated(
      { source: src, topics: [data], replicate_heartbeats: true },
      new Map([
        [`${src}.${data}`, written.get(data)!],
        [`${src}.${heartbeats}`, written.get(heartbeats)!],
      ]),
      { [src]: clusters.primary },
    );
    assert.deepEqual(await remoteTopics(src, chain, p), [`${src}.${heartbeats}`, `${src}.${data}`].sort());
  });

  test('not replicated when replicate_heartbeats is false', async () => {
    const p = uniqueName('nm-nohb');
    const src = `src${randomBytes(4).toString('hex')}`;
    const chain = `hb${randomBytes(4).toString('hex')}`;
    const clusters = await testClusters();
    const data = `${p}-data`;
    const written = await seed([data, `${chain}.heartbeats`]);
    await runUntilReplicated({ source: src, topics: [data], replicate_heartbeats: false }, new Map([[`${src}.${data}`, written.get(data)!]]), {
      [src]: clusters.primary,
    });
    assert.deepEqual(await remoteTopics(src, chain, p), [`${src}.${data}`]);
  });
});
