import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom } from 'rxjs';
import type { Kafka } from './kafkajs';
import { KafkajsWriter, PARTIAL_RETRY } from './kafkajs-writer';
import type { OutboundRecord } from '../core/ports/record-writer';

const NOT_LEADER_OR_FOLLOWER = 6;

interface SentBatch {
  readonly topicMessages: readonly { topic: string; messages: readonly { partition: number }[] }[];
}

/**
 * A producer whose broker acknowledges every partition but `refused`, which it answers with
 * NOT_LEADER_OR_FOLLOWER for its first `refusals` requests; logs what each request carried.
 */
function fakeKafka(refused: string, refusals: number): { kafka: Kafka; sent: Map<string, number> } {
  const sent = new Map<string, number>();
  const ends = new Map<string, number>();
  let left = refusals;
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    sendBatch: ({ topicMessages }: SentBatch) => {
      const acks = [];
      const counts = new Map<string, { topicName: string; partition: number; count: number }>();
      for (const { topic, messages } of topicMessages) {
        for (const m of messages) {
          const key = `${topic}-${m.partition}`;
          const entry = counts.get(key) ?? { topicName: topic, partition: m.partition, count: 0 };
          entry.count++;
          counts.set(key, entry);
        }
      }
      const refuse = counts.has(refused) && left-- > 0;
      for (const [key, { topicName, partition, count }] of counts) {
        if (refuse && key === refused) {
          acks.push({ topicName, partition, errorCode: NOT_LEADER_OR_FOLLOWER, baseOffset: '-1' });
          continue;
        }
        const base = ends.get(key) ?? 0;
        ends.set(key, base + count);
        sent.set(key, (sent.get(key) ?? 0) + count);
        acks.push({ topicName, partition, errorCode: 0, baseOffset: String(base) });
      }
      return Promise.resolve(acks);
    },
  };
  return { kafka: { producer: () => producer } as unknown as Kafka, sent };
}

const records = (topic: string, partitions: number, perPartition: number): OutboundRecord[] =>
  Array.from({ length: partitions * perPartition }, (_, i) => ({ topic, partition: i % partitions, timestamp: 0, key: null, value: Buffer.from(String(i)), headers: [] }));

test('a partition refused for longer than any fixed number of retries is written alone until accepted; the others once', async () => {
  const { kafka, sent } = fakeKafka('orders-1', 40);
  const writer = new KafkajsWriter('target', kafka, { role: 'spec', compression: 'none' }, undefined, { ...PARTIAL_RETRY, initialDelayMs: 1, maxDelayMs: 1, jitter: 0 }); // the writer's own schedule, made fast
  const offsets = await firstValueFrom(writer.write(records('orders', 3, 4)));
  assert.deepEqual(Object.fromEntries(sent), { 'orders-0': 4, 'orders-1': 4, 'orders-2': 4 }, 'every record acknowledged exactly once');
  assert.deepEqual(Array.from(offsets), [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
});
