/**
 * The target writer against a real broker (the "No data loss" contract of docs/architecture.md, issue 5): when a produce
 * request is written on some partitions and refused on others, only the refused partitions are
 * sent again. Sending the request again whole (kafkajs's way) wrote the acknowledged partitions
 * twice; the benchmark caught it as whole partitions doubled on newly created remote topics,
 * whose partitions answer NOT_LEADER_OR_FOLLOWER for a moment.
 *
 * Here a partition is refused for real: a topic the writer has written to is deleted, so the
 * broker answers UNKNOWN_TOPIC_OR_PARTITION for it while it accepts the other topic of the same
 * request, until the topic is created again.
 */
import assert from 'node:assert/strict';
import { firstValueFrom } from '#rxjs';
import { after, before, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters, uniqueName, waitFor } from '../support/clusters';
import { memoryLogger, type LogLine } from '../support/pipeline-harness';
import { KafkajsClients } from '../../src/kafka';
import { Kafka, logLevel, type Admin } from '../../src/kafka/kafkajs';
import type { OutboundRecord } from '../../src/core/ports/record-writer';

let bootstrap: string;
let kit: KafkaKit;
let admin: Admin;

before(async () => {
  bootstrap = (await testClusters()).backup;
  kit = new KafkaKit(bootstrap);
  admin = new Kafka({ brokers: bootstrap.split(','), clientId: 'mirrorflow-writer-test', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

after(async () => {
  await admin?.disconnect();
  await kit?.close();
});

function records(topic: string, partitions: number, label: string, perPartition: number): OutboundRecord[] {
  return Array.from({ length: partitions * perPartition }, (_, i) => ({
    topic,
    partition: i % partitions,
    timestamp: Date.now(),
    key: null,
    value: Buffer.from(`${label}-${i}`),
    headers: [],
  }));
}

test('a write refused on some partitions and acknowledged on others writes the acknowledged ones once', async () => {
  const prefix = uniqueName('writer-partial');
  const kept = `${prefix}.kept`;
  const dropped = `${prefix}.dropped`;
  await kit.createTopic(kept, 3);
  await kit.createTopic(dropped, 1);
  const lines: LogLine[] = [];
  const clients = new KafkajsClients({
    clusters: [
      { alias: 'target', bootstrapServers: bootstrap.split(','), security: { protocol: 'plaintext' }, connectionTimeoutMs: 10_000, requestTimeoutMs: 30_000 },
    ],
    logger: memoryLogger(lines),
    clientIdPrefix: 'mirrorflow-writer-test',
  });
  try {
    const writer = clients.writer('target', { role: 'writer-test', compression: 'none' });
    // The producer learns both topics' leaders.
    await firstValueFrom(writer.write([...records(kept, 3, 'first', 10), ...records(dropped, 1, 'first', 10)]));

    await admin.deleteTopics({ topics: [dropped] });
    const second = [...records(kept, 3, 'second', 10), ...records(dropped, 1, 'second', 10)];
    const written = firstValueFrom(writer.write(second));
    await waitFor(() => lines.some((l) => l.message.startsWith('Some partitions of a write were not acknowledged')), {
      what: 'the writer to retry the refused partition alone',
      timeoutMs: 60_000,
    });
    await kit.createTopic(dropped, 1);
    const offsets = await written;

    const onKept = await kit.readAll(kept);
    for (let p = 0; p < 3; p++) {
      assert.deepEqual(
        (onKept.get(p) ?? []).map((r) => r.value!.toString()),
        [...records(kept, 3, 'first', 10), ...second.slice(0, 30)].filter((r) => r.partition === p).map((r) => r.value!.toString()),
        `partition ${p} of the topic that kept accepting holds each record once`,
      );
    }
    assert.deepEqual(
      (await kit.readAllFlat(dropped)).map((r) => r.value!.toString()),
      second.slice(30).map((r) => r.value!.toString()),
      'the re-created topic holds the second write once',
    );
    assert.deepEqual(Array.from(offsets.subarray(0, 6)), [10, 10, 10, 11, 11, 11], 'offsets follow the first write on the partitions that accepted');
    assert.deepEqual(Array.from(offsets.subarray(30, 33)), [0, 1, 2], 'and start at 0 on the re-created topic');
  } finally {
    await clients.close();
  }
});

test('a topic taking smaller batches than the producer sends gets every record, in order, in more requests', async () => {
  const topic = `${uniqueName('writer-small-batches')}.t`;
  await kit.createTopic(topic, 1, { 'max.message.bytes': String(16 * 1024) });
  const clients = new KafkajsClients({
    clusters: [
      { alias: 'target', bootstrapServers: bootstrap.split(','), security: { protocol: 'plaintext' }, connectionTimeoutMs: 10_000, requestTimeoutMs: 30_000 },
    ],
    logger: memoryLogger([]),
    clientIdPrefix: 'mirrorflow-writer-test',
  });
  try {
    const writer = clients.writer('target', { role: 'writer-test', compression: 'none' });
    // 200 KiB for one partition in one write: a batch 12 times what the topic takes.
    const written = records(topic, 1, 'blob', 200).map((r) => ({ ...r, value: Buffer.concat([r.value!, Buffer.alloc(1024, 0x2e)]) }));
    const offsets = await firstValueFrom(writer.write(written));
    assert.deepEqual(
      Array.from(offsets),
      Array.from({ length: 200 }, (_, i) => i),
    );
    assert.deepEqual(
      (await kit.readAllFlat(topic)).map((r) => r.value!.toString()),
      written.map((r) => r.value!.toString()),
      'each record once, in order',
    );

    const tooLarge = { ...written[0]!, value: Buffer.alloc(20 * 1024, 0x2e) };
    await assert.rejects(
      firstValueFrom(writer.write([tooLarge])),
      /a record of about 20544 bytes is larger than .*-0 takes \(the target topic's max.message.bytes/,
    );
  } finally {
    await clients.close();
  }
});
