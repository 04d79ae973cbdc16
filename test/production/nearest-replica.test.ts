/**
 * Fetching from the nearest replica (KIP-392), as MM2 users set it up to stop paying for traffic
 * across zones: a three-broker source whose nodes sit in racks rack-1 … rack-3
 * (`broker.rack`) and pick a consumer's replica by rack
 * (`replica.selector.class = RackAwareReplicaSelector`), every partition led by node 1. With
 * `<source>.consumer.client.rack = rack-3` in the mm2.properties file, node 3 — a follower —
 * serves what mirrorflow copies; without it, the leader does. Who served is Kafka's own count per
 * broker (BytesOutPerSec of the topic, consumers' reads only: BrokerTopicBytesOut.java). Either
 * way the copy is the source's, byte for byte.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kafka, logLevel } from '../../src/kafka/kafkajs';
import { uniqueName, waitFor } from '../support/clusters';
import { snapshot, type TestRecord } from '../support/kafka-kit';
import { numbered } from '../support/fault-load';
import { ownClusters } from '../support/own-clusters';
import { spawnPipeline, writePipelineText } from '../support/pipeline-harness';
import { PRODUCTION_BROKERS } from '../support/production-load';
import { JavaPrograms } from '../interop/java-programs';

const RACK_AWARE = {
  'broker.rack': ({ nodeId }: { nodeId: number }) => `rack-${nodeId}`,
  'replica.selector.class': 'org.apache.kafka.common.replica.RackAwareReplicaSelector',
};
const source = ownClusters(['src'], { brokers: PRODUCTION_BROKERS, jvmProfile: 'lean', brokerProperties: RACK_AWARE });
const target = ownClusters(['dst'], { jvmProfile: 'lean' });
const PARTITIONS = 3;

let java: JavaPrograms;
before(async () => {
  java = await JavaPrograms.compile('BrokerTopicBytesOut.java');
});
after(() => java?.dispose());

/** Bytes of `topic` each source node served to consumers, by node id. */
async function bytesServed(topic: string): Promise<Map<number, number>> {
  const nodes = source.nodes('src');
  const counts = JSON.parse(await java.run('BrokerTopicBytesOut', [topic, ...nodes.map((n) => String(n.node.pid))])) as Record<string, number>;
  return new Map(nodes.map((n) => [n.node.id, counts[String(n.node.pid)] ?? 0]));
}

/** A topic whose every partition has node 1 for leader and nodes 2 and 3 for followers. */
async function createLedByNodeOne(topic: string): Promise<void> {
  const admin = new Kafka({ clientId: 'mirrorflow-test-racks', brokers: source.bootstrap('src').split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    // Not kafkajs's waitForLeaders: it fails at once when the broker it asks does not know the
    // topic yet ("does not host this topic-partition"), which a node of a fresh cluster may not.
    await admin.createTopics({
      topics: [{ topic, replicaAssignment: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, replicas: [1, 2, 3] })) }],
    });
    await waitFor(
      async () => {
        const metadata = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
        const partitions = metadata?.topics[0]?.partitions ?? [];
        return partitions.length === PARTITIONS && partitions.every((p) => p.leader === 1 && p.isr.length === 3);
      },
      { what: `node 1 leading every partition of ${topic}, all replicas in sync`, timeoutMs: 60_000 },
    );
  } finally {
    await admin.disconnect();
  }
}

/** Numbered records with every shape a copy must keep: null and empty keys and values, repeated headers, a null header value. */
function records(label: string): TestRecord[] {
  const shaped: TestRecord[] = [
    { partition: 0, key: null, value: Buffer.from('no key'), headers: [], timestamp: 1_600_000_000_000 },
    { partition: 1, key: Buffer.alloc(0), value: null, headers: [{ key: 'h', value: null }], timestamp: Date.now() },
    {
      partition: 2,
      key: Buffer.from('k'),
      value: Buffer.alloc(0),
      headers: [
        { key: 'a', value: Buffer.from('1') },
        { key: 'b', value: Buffer.from('2') },
        { key: 'a', value: Buffer.from('3') },
      ],
      timestamp: Date.now(),
    },
  ];
  return [...shaped, ...numbered(label, 0, 1500, [0, 1, 2], 200)];
}

/** Replicates a new topic with an mm2.properties file that adds `extra`; returns who served the source's bytes, and checks the copy. */
async function replicate(extra: readonly string[]): Promise<Map<number, number>> {
  const s = uniqueName('src');
  const d = uniqueName('dst');
  const topic = uniqueName('rack');
  const remote = `${s}.${topic}`;
  await createLedByNodeOne(topic);
  const written = records(topic);
  await source.kit('src').produce(topic, written);
  const file = writePipelineText(
    [
      `clusters = ${s}, ${d}`,
      `${s}.bootstrap.servers = ${source.bootstrap('src')}`,
      `${d}.bootstrap.servers = ${target.bootstrap('dst')}`,
      `${s}->${d}.enabled = true`,
      `${s}->${d}.topics = ${topic}`,
      `${d}->${s}.emit.heartbeats.enabled = false`,
      'replication.factor = 1',
      'checkpoints.topic.replication.factor = 1',
      'heartbeats.topic.replication.factor = 1',
      'offset-syncs.topic.replication.factor = 1',
      'offset.storage.replication.factor = 1',
      ...extra.map((line) => line.replaceAll('<source>', s)),
      '',
    ].join('\n'),
    'mm2.properties',
  );
  const child = spawnPipeline(file);
  try {
    await waitFor(
      async () =>
        (await target
          .kit('dst')
          .count(remote)
          .catch(() => 0)) >= written.length,
      {
        what: `all ${written.length} records on ${remote}`,
        timeoutMs: 120_000,
      },
    );
  } finally {
    child.kill('SIGTERM');
    await child.exited;
  }
  // Read before anything else reads the source topic (the comparison below reads it from the leaders).
  const served = await bytesServed(topic);
  const onSource = await source.kit('src').readAll(topic);
  const onTarget = await target.kit('dst').readAll(remote);
  for (let p = 0; p < PARTITIONS; p++) {
    assert.deepEqual(snapshot(onTarget.get(p) ?? []), snapshot(onSource.get(p) ?? []), `partition ${p} of ${remote} is the source's, byte for byte`);
  }
  return served;
}

const share = (served: ReadonlyMap<number, number>, node: number): number => {
  const total = [...served.values()].reduce((a, b) => a + b, 0);
  return total === 0 ? 0 : served.get(node)! / total;
};

describe('fetching from the nearest replica', () => {
  test('with consumer.client.rack, the follower in that rack serves the copy; the leader serves nothing', async (t) => {
    const served = await replicate(['<source>.consumer.client.rack = rack-3']);
    t.diagnostic(`bytes served by node: ${JSON.stringify(Object.fromEntries(served))}`);
    assert.ok(served.get(3)! > 0, `node 3 (rack-3, a follower) served the copy: ${JSON.stringify(Object.fromEntries(served))}`);
    assert.ok(share(served, 3) >= 0.95, `node 3 served nearly everything: ${JSON.stringify(Object.fromEntries(served))}`);
    assert.equal(served.get(1), 0, 'the leader only named the replica to fetch from');
  });

  test('without it, the leader serves the copy', async (t) => {
    const served = await replicate([]);
    t.diagnostic(`bytes served by node: ${JSON.stringify(Object.fromEntries(served))}`);
    assert.ok(share(served, 1) >= 0.95, `node 1, the leader, served the copy: ${JSON.stringify(Object.fromEntries(served))}`);
    assert.equal(served.get(3), 0);
  });
});
