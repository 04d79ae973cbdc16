import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom } from 'rxjs';
import type { Kafka } from './kafkajs';
import { KafkajsWriter, PARTIAL_RETRY } from './kafkajs-writer';
import { KafkaTransportError, RecordRefusedError } from '../core/errors';
import type { OutboundRecord } from '../core/ports/record-writer';

const NOT_LEADER_OR_FOLLOWER = 6;
const MESSAGE_TOO_LARGE = 10;

interface SentBatch {
  readonly topicMessages: readonly { topic: string; messages: readonly { partition: number; value: Buffer | null }[] }[];
}

interface Broker {
  /** This partition (`topic-partition`) answers NOT_LEADER_OR_FOLLOWER to its first `times` requests. */
  readonly refuse?: { readonly partition: string; readonly times: number };
  /** Per topic, the largest batch (here: sum of value bytes) the broker takes. */
  readonly maxBatchBytes?: Readonly<Record<string, number>>;
}

/**
 * A producer over a fake broker: partitions acknowledge with offsets in order, except as `broker`
 * says. `log` has every acknowledged record's value per partition, in log order; `requests`
 * counts produce requests.
 */
function fakeKafka(broker: Broker): { kafka: Kafka; log: Map<string, string[]>; requests: () => number } {
  const log = new Map<string, string[]>();
  let refusals = broker.refuse?.times ?? 0;
  let requests = 0;
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    sendBatch: ({ topicMessages }: SentBatch) => {
      requests++;
      const groups = new Map<string, { topic: string; partition: number; values: string[]; bytes: number }>();
      for (const { topic, messages } of topicMessages) {
        for (const m of messages) {
          const key = `${topic}-${m.partition}`;
          const group = groups.get(key) ?? { topic, partition: m.partition, values: [], bytes: 0 };
          group.values.push(m.value?.toString() ?? '');
          group.bytes += m.value?.length ?? 0;
          groups.set(key, group);
        }
      }
      const refuse = broker.refuse !== undefined && groups.has(broker.refuse.partition) && refusals-- > 0;
      const acks = [...groups].map(([key, { topic, partition, values, bytes }]) => {
        const ack = { topicName: topic, partition, errorCode: 0, baseOffset: '-1' };
        if (refuse && key === broker.refuse!.partition) return { ...ack, errorCode: NOT_LEADER_OR_FOLLOWER };
        if (bytes > (broker.maxBatchBytes?.[topic] ?? Infinity)) return { ...ack, errorCode: MESSAGE_TOO_LARGE };
        const partitionLog = log.get(key) ?? [];
        log.set(key, partitionLog);
        const base = partitionLog.length;
        partitionLog.push(...values);
        return { ...ack, baseOffset: String(base) };
      });
      return Promise.resolve(acks);
    },
  };
  return { kafka: { producer: () => producer } as unknown as Kafka, log, requests: () => requests };
}

/** `perPartition` records per partition, round-robin, with values `<topic>:<n>` padded to `size` bytes. */
const records = (topic: string, partitions: number, perPartition: number, size = 8): OutboundRecord[] =>
  Array.from({ length: partitions * perPartition }, (_, i) => ({
    topic,
    partition: i % partitions,
    timestamp: 0,
    key: null,
    value: Buffer.from(`${topic}:${i}`.padEnd(size, '.')),
    headers: [],
  }));

const values = (rs: readonly OutboundRecord[], partition: number): string[] => rs.filter((r) => r.partition === partition).map((r) => r.value!.toString());

/** The writer's own schedules, made fast. */
const writerOver = (kafka: Kafka): KafkajsWriter =>
  new KafkajsWriter('target', kafka, { role: 'spec', compression: 'none' }, undefined, { ...PARTIAL_RETRY, initialDelayMs: 1, maxDelayMs: 1, jitter: 0 });

test('a partition refused for longer than any fixed number of retries is written alone until accepted; the others once', async () => {
  const { kafka, log } = fakeKafka({ refuse: { partition: 'orders-1', times: 40 } });
  const written = records('orders', 3, 4);
  const offsets = await firstValueFrom(writerOver(kafka).write(written));
  for (const p of [0, 1, 2]) assert.deepEqual(log.get(`orders-${p}`), values(written, p), `orders-${p} holds each record once`);
  assert.deepEqual(Array.from(offsets), [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
});

test('a batch the target refuses as too large is split until it fits, in order, once; later writes go split from the start', async () => {
  const { kafka, log, requests } = fakeKafka({ maxBatchBytes: { small: 1000 } });
  const writer = writerOver(kafka);
  // 20 records of 200 bytes on small-0 (4000 bytes), next to a topic without a limit.
  const first = [...records('small', 1, 20, 200), ...records('other', 2, 5)];
  const offsets = await firstValueFrom(writer.write(first));
  assert.deepEqual(log.get('small-0'), values(first.slice(0, 20), 0));
  assert.deepEqual(
    Array.from(offsets.subarray(0, 20)),
    Array.from({ length: 20 }, (_, i) => i),
  );
  for (const p of [0, 1]) assert.deepEqual(log.get(`other-${p}`), values(first.slice(20), p), 'the other topic is written once');

  const before = requests();
  const second = records('small', 1, 20, 200).map((r) => ({ ...r, value: Buffer.from(`2nd ${r.value!.toString()}`) }));
  await firstValueFrom(writer.write(second));
  assert.deepEqual(log.get('small-0')!.slice(20), values(second, 0));
  assert.ok(requests() - before <= (20 * 200) / 500, `the learnt limit is kept: ${requests() - before} requests for 4000 bytes in batches of at most 1000`);
});

test('a single record larger than the target topic takes fails the write, saying where and which limit', async () => {
  const { kafka, log } = fakeKafka({ maxBatchBytes: { small: 1000 } });
  const written = [...records('small', 1, 1, 2000), ...records('other', 1, 1)];
  await assert.rejects(firstValueFrom(writerOver(kafka).write(written)), (error: unknown) => {
    assert.ok(error instanceof RecordRefusedError);
    assert.equal(error.retriable, false, 'no retry makes it fit');
    assert.equal(error.index, 0);
    assert.match(error.message, /a record of about 2064 bytes is larger than small-0 takes \(the target topic's max.message.bytes/);
    return true;
  });
  assert.equal(log.get('small-0'), undefined);
});

test('with onRefused, a record too large on its own is handed over and the write goes on with the others, in order', async () => {
  const { kafka, log } = fakeKafka({ maxBatchBytes: { small: 1000 } });
  const written = records('small', 1, 5, 100);
  written[2] = { ...written[2]!, value: Buffer.from('too large'.padEnd(2000, '.')) };
  const refused: { index: number; offsetInBatch: number; value: string | undefined }[] = [];
  const offsets = await firstValueFrom(
    writerOver(kafka).write(written, {
      onRefused: (r) => refused.push({ index: r.index, offsetInBatch: r.offsetInBatch, value: r.record.value?.toString().slice(0, 9) }),
    }),
  );
  assert.deepEqual(refused, [{ index: 2, offsetInBatch: 0, value: 'too large' }]);
  assert.deepEqual(log.get('small-0'), values([...written.slice(0, 2), ...written.slice(3)], 0));
  assert.deepEqual(Array.from(offsets), [0, 1, -1, 2, 3]);
});

test('a producer connect that failed (the target down) is forgotten: the next write connects a new producer and succeeds', async () => {
  const refused = Object.assign(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092'), {
    name: 'KafkaJSConnectionError',
    code: 'ECONNREFUSED',
    retriable: true,
  });
  const { kafka: working, log } = fakeKafka({});
  const good = (working as unknown as { producer: () => object }).producer();
  const producers: { disconnected: boolean }[] = [];
  const kafka = {
    producer: () => {
      // The first producer cannot connect; every later one can.
      const producer =
        producers.length === 0
          ? { connect: () => Promise.reject(refused), disconnect: () => ((producer.disconnected = true), Promise.resolve()), disconnected: false }
          : { ...good, disconnected: false };
      producers.push(producer);
      return producer;
    },
  } as unknown as Kafka;
  const writer = writerOver(kafka);
  const written = records('orders', 1, 3);

  await assert.rejects(firstValueFrom(writer.write(written)), (error: unknown) => {
    assert.ok(error instanceof KafkaTransportError);
    assert.equal(error.retriable, true, 'worth retrying');
    return true;
  });
  assert.deepEqual(Array.from(await firstValueFrom(writer.write(written))), [0, 1, 2], 'the retry writes');
  assert.deepEqual(log.get('orders-0'), values(written, 0));
  assert.equal(producers.length, 2, 'a new producer replaced the one whose connect failed');
  assert.equal(producers[0]!.disconnected, true, 'and the failed one was let go');
});
