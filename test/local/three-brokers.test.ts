/**
 * Production-shaped local clusters: three nodes, each a broker and a controller voter, RF 3 and
 * min.insync.replicas 2 by default. A node killed with SIGKILL leaves a cluster that still takes
 * acks=all writes; started again on its port and data, it rejoins every ISR, and nothing written
 * meanwhile is lost. The watchdog stops every node when the owner is killed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Kafka, logLevel } from '../../src/kafka/kafkajs';
import { LocalKafkaError } from '../../src/core/errors';
import { isProcessAlive, probeKafka, startLocalClusters, type LocalCluster, type LocalClusters } from '../../src/local';
import { uniqueName, waitFor } from '../support/clusters';
import { KafkaKit, snapshot, type TestRecord } from '../support/kafka-kit';
import { ReplicaState } from '../support/replica-state';

const scratch = mkdtempSync(join(tmpdir(), 'mirrorflow-three-brokers-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function records(from: number, count: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: (from + i) % 3,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`v${from + i}`),
    headers: [],
    timestamp: 1_700_000_000_000 + from + i,
  }));
}

describe('a three-node local cluster', () => {
  let clusters: LocalClusters;
  let kit: KafkaKit;
  let replicas: ReplicaState;
  before(async () => {
    clusters = await startLocalClusters({ aliases: ['trio'], brokers: 3, heapMb: 256, workDir: scratch });
    kit = new KafkaKit(clusters.bootstrapServers()['trio']!, undefined, { replicationFactor: 3 });
    replicas = new ReplicaState(clusters.bootstrapServers()['trio']!);
  });
  after(async () => {
    await kit?.close();
    await replicas?.close();
    await clusters?.stop();
  });

  test('runs three nodes on their own ports as one cluster, every address in bootstrapServers, production settings by default', async () => {
    const cluster = clusters.clusters['trio']!;
    assert.deepEqual(
      cluster.nodes.map((node) => node.id),
      [1, 2, 3],
    );
    const ports = cluster.nodes.flatMap((node) => [node.port, node.controllerPort]);
    assert.equal(new Set(ports).size, 6, `ports must not be shared: ${ports.join(', ')}`);
    assert.equal(clusters.bootstrapServers()['trio'], cluster.nodes.map((node) => `127.0.0.1:${node.port}`).join(','));
    for (const node of cluster.nodes) {
      const metadata = (await probeKafka(node.host, node.port)).metadata!;
      assert.equal(metadata.clusterId, cluster.clusterId, `node ${node.id} belongs to the cluster`);
      assert.deepEqual(metadata.brokers.map((broker) => broker.nodeId).sort(), [1, 2, 3], `node ${node.id} sees all three brokers`);
    }
    const admin = new Kafka({ clientId: 'three-brokers-test', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const described = await admin.describeConfigs({
        resources: [
          { type: 4 /* BROKER */, name: '2', configNames: ['min.insync.replicas', 'default.replication.factor', 'offsets.topic.replication.factor'] },
        ],
        includeSynonyms: false,
      });
      const values = Object.fromEntries(described.resources[0]!.configEntries.map((entry) => [entry.configName, entry.configValue]));
      assert.deepEqual(values, { 'min.insync.replicas': '2', 'default.replication.factor': '3', 'offsets.topic.replication.factor': '3' });
    } finally {
      await admin.disconnect();
    }
    assert.throws(() => clusters.broker('trio'), LocalKafkaError, 'broker() is for single-node clusters');
    assert.throws(() => clusters.node('trio', 4), /has no node 4/);
  });

  test('a node killed with SIGKILL: acks=all writes go on with two in sync; started again, it rejoins every ISR and nothing is lost', async () => {
    const topic = uniqueName('trio');
    await kit.createTopic(topic, 3);
    const placed = await replicas.partitions([topic]);
    assert.ok(
      placed.every((p) => p.replicas.length === 3 && p.isr.length === 3),
      `RF 3, all in sync: ${JSON.stringify(placed)}`,
    );
    const written = records(0, 300);
    await kit.produce(topic, written);

    const victim = clusters.node('trio', 2);
    const { pid: killedPid, port } = victim.node;
    await victim.halt({ signal: 'SIGKILL' });
    assert.equal(victim.running, false);
    assert.equal(isProcessAlive(killedPid), false);
    await waitFor(async () => (await replicas.partitions([topic])).every((p) => !p.isr.includes(2) && p.leader !== 2), {
      what: 'node 2 out of every ISR and leading nothing',
      timeoutMs: 60_000,
    });
    // acks=all with min.insync.replicas 2: the two nodes left acknowledge every write.
    const more = records(300, 300);
    await kit.produce(topic, more);
    written.push(...more);

    await victim.start();
    assert.equal(victim.running, true);
    assert.equal(victim.node.port, port, 'same port');
    assert.notEqual(victim.node.pid, killedPid, 'a new JVM');
    await replicas.waitInSync(2, { topics: [topic] });
    const all = await kit.readAll(topic);
    for (const partition of [0, 1, 2]) {
      assert.deepEqual(snapshot(all.get(partition) ?? []), snapshot(written.filter((r) => r.partition === partition)), `partition ${partition}`);
    }
  });

  test('stop() leaves no node running and no work dir', async () => {
    const nodes = clusters.clusters['trio']!.nodes.map((node) => ({ ...node }));
    await kit.close();
    await replicas.close();
    await clusters.stop();
    for (const node of nodes) assert.equal(isProcessAlive(node.pid), false, `node ${node.id} (pid ${node.pid}) still runs`);
    assert.equal(existsSync(clusters.clusters['trio']!.dir), false);
  });
});

test('every node of a three-node cluster stops when its owner is killed with SIGKILL', async () => {
  const child = spawn(process.execPath, [join(__dirname, 'fixtures', 'hold-cluster.js'), scratch, '3'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await waitFor(() => stdout.split('\n')[0] || (child.exitCode !== null ? Promise.reject(new Error(stderr)) : undefined), {
    what: 'the child process to report its started cluster',
    timeoutMs: 240_000,
  });
  const cluster = JSON.parse(line) as LocalCluster;
  assert.equal(cluster.nodes.length, 3);
  assert.ok(cluster.nodes.every((node) => isProcessAlive(node.pid)));
  child.kill('SIGKILL');
  await waitFor(() => cluster.nodes.every((node) => !isProcessAlive(node.pid)) && !existsSync(cluster.dir), {
    what: `the three nodes of the killed process to stop and ${cluster.dir} to be deleted`,
    timeoutMs: 60_000,
  });
});
