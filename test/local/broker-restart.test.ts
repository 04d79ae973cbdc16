import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProcessAlive, probeKafka } from '../../src/local';
import { KafkaKit, snapshot, type TestRecord } from '../support/kafka-kit';
import { ownClusters } from '../support/own-clusters';
import { uniqueName } from '../support/clusters';

const clusters = ownClusters(['restarted']);

function records(from: number, count: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: (from + i) % 2,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`v${from + i}`),
    headers: [{ key: 'n', value: Buffer.from(String(from + i)) }],
    timestamp: 1_700_000_000_000 + from + i,
  }));
}

async function produceWithNewClient(bootstrap: string, topic: string, batch: readonly TestRecord[]): Promise<void> {
  const kit = new KafkaKit(bootstrap);
  try {
    await kit.produce(topic, batch);
  } finally {
    await kit.close();
  }
}

/** Reads with a fresh client, so what is read comes from the broker and not from a client's state. */
async function readWithNewClient(bootstrap: string, topic: string): Promise<object[]> {
  const kit = new KafkaKit(bootstrap);
  try {
    const byPartition = await kit.readAll(topic);
    return [0, 1].flatMap((p) => snapshot(byPartition.get(p) ?? []));
  } finally {
    await kit.close();
  }
}

test('a halted broker starts again on the same port with the same cluster id and keeps its records, also after SIGKILL', async () => {
  const broker = clusters.broker('restarted');
  const { host, port, bootstrapServers, clusterId, pid: firstPid } = broker.cluster;
  const topic = uniqueName('restart');
  const written = [...records(0, 50)];
  await clusters.kit('restarted').createTopic(topic, 2);
  await clusters.kit('restarted').produce(topic, written);

  await broker.halt();
  assert.equal(broker.running, false);
  assert.equal(isProcessAlive(firstPid), false, 'the broker JVM is gone while halted');
  await assert.rejects(probeKafka(host, port, { timeoutMs: 2000 }), 'nothing answers on the port while halted');

  await broker.start();
  assert.equal(broker.running, true);
  assert.equal(broker.cluster.bootstrapServers, bootstrapServers, 'same address');
  assert.notEqual(broker.cluster.pid, firstPid, 'a new JVM');
  assert.equal((await probeKafka(host, port)).metadata?.clusterId, clusterId, 'same cluster, not a re-formatted one');
  const expected = [0, 1].flatMap((p) => snapshot(written.filter((r) => r.partition === p)));
  assert.deepEqual(await readWithNewClient(bootstrapServers, topic), expected, 'records written before the restart are read after it');

  // A crash (SIGKILL, no clean shutdown) keeps acknowledged records too, and the topic takes writes again.
  const more = records(50, 20);
  await produceWithNewClient(bootstrapServers, topic, more);
  written.push(...more);
  const secondPid = broker.cluster.pid;
  await broker.restart({ signal: 'SIGKILL' });
  assert.equal(isProcessAlive(secondPid), false);
  assert.equal((await probeKafka(host, port)).metadata?.clusterId, clusterId);
  await produceWithNewClient(bootstrapServers, topic, records(70, 10));
  written.push(...records(70, 10));
  const all = [0, 1].flatMap((p) => snapshot(written.filter((r) => r.partition === p)));
  assert.deepEqual(await readWithNewClient(bootstrapServers, topic), all);
});
