import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom } from '#rxjs';
import type { Kafka } from '../kafkajs';
import { KafkajsWriter, PARTIAL_RETRY } from './kafkajs-writer';
import { KafkaTransportError, RecordRefusedError } from '../../core/errors';
import type { OutboundItem, OutboundRecord } from '../../core/ports/record-writer';
import type { Logger } from '../../core/ports/logger';
import type { InitProducerId } from './idempotence';
import type { ProducerStamp } from './producer-sequences';

const NOT_LEADER_OR_FOLLOWER = 6;
const MESSAGE_TOO_LARGE = 10;
const OUT_OF_ORDER_SEQUENCE_NUMBER = 45;
const UNKNOWN_PRODUCER_ID = 59;

interface SentMessage {
  readonly partition: number;
  readonly value: Buffer | null;
  readonly recordBatch?: { readonly recordCount: number };
  readonly producer?: ProducerStamp;
}

interface SentBatch {
  readonly topicMessages: readonly { topic: string; messages: readonly SentMessage[] }[];
}

interface Broker {
  /** This partition (`topic-partition`) answers NOT_LEADER_OR_FOLLOWER to its first `times` requests. */
  readonly refuse?: { readonly partition: string; readonly times: number };
  /** Per topic, the largest batch (here: sum of value bytes) the broker takes. */
  readonly maxBatchBytes?: Readonly<Record<string, number>>;
  /** Every idempotent batch is answered UNKNOWN_PRODUCER_ID, whatever its producer id. */
  readonly unknownProducers?: boolean;
  /** Requests (counted from 1) that are written, but whose answer is lost: the send fails with a timeout. */
  readonly loseAnswers?: readonly number[];
}

/**
 * The broker's rule for idempotent producers, per partition and producer id: a batch whose base
 * sequence is the next expected is appended; one equal to the last appended is a duplicate
 * (answered with its first offsets, appended nothing); any other is OUT_OF_ORDER_SEQUENCE_NUMBER.
 */
interface SequenceState {
  next: number;
  last?: { base: number; count: number; offset: number };
}

/**
 * A producer over a fake broker: partitions acknowledge with offsets in order, except as `broker`
 * says. `log` has every acknowledged record's value per partition, in log order; `requests`
 * counts produce requests.
 */
function fakeKafka(broker: Broker): {
  kafka: Kafka;
  log: Map<string, string[]>;
  requests: () => number;
  stamps: Map<string, ProducerStamp[]>;
  forgetProducers: () => void;
} {
  const log = new Map<string, string[]>();
  const stamps = new Map<string, ProducerStamp[]>();
  let sequences = new Map<string, SequenceState>();
  let refusals = broker.refuse?.times ?? 0;
  let requests = 0;
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    sendBatch: ({ topicMessages }: SentBatch) => {
      requests++;
      const groups = new Map<string, { topic: string; partition: number; values: string[]; bytes: number; count: number; stamp?: ProducerStamp }>();
      for (const { topic, messages } of topicMessages) {
        for (const m of messages) {
          const key = `${topic}-${m.partition}`;
          const group = groups.get(key) ?? { topic, partition: m.partition, values: [], bytes: 0, count: 0, ...(m.producer ? { stamp: m.producer } : {}) };
          group.values.push(m.value?.toString() ?? `batch of ${m.recordBatch?.recordCount}`);
          group.bytes += m.value?.length ?? 0;
          group.count += m.recordBatch?.recordCount ?? 1;
          groups.set(key, group);
        }
      }
      const refuse = broker.refuse !== undefined && groups.has(broker.refuse.partition) && refusals-- > 0;
      const acks = [...groups].map(([key, { topic, partition, values, bytes, count, stamp }]) => {
        const ack = { topicName: topic, partition, errorCode: 0, baseOffset: '-1' };
        if (stamp) stamps.set(key, [...(stamps.get(key) ?? []), stamp]);
        if (refuse && key === broker.refuse!.partition) return { ...ack, errorCode: NOT_LEADER_OR_FOLLOWER };
        if (bytes > (broker.maxBatchBytes?.[topic] ?? Infinity)) return { ...ack, errorCode: MESSAGE_TOO_LARGE };
        const partitionLog = log.get(key) ?? [];
        log.set(key, partitionLog);
        const base = partitionLog.length;
        if (stamp) {
          const id = `${key}/${stamp.producerId}`;
          const state = sequences.get(id);
          if (broker.unknownProducers === true || (state === undefined && stamp.baseSequence !== 0)) return { ...ack, errorCode: UNKNOWN_PRODUCER_ID };
          const { next, last } = state ?? { next: 0 };
          if (last !== undefined && last.base === stamp.baseSequence && last.count === count) return { ...ack, baseOffset: String(last.offset) };
          if (stamp.baseSequence !== next) return { ...ack, errorCode: OUT_OF_ORDER_SEQUENCE_NUMBER };
          sequences.set(id, { next: next + count, last: { base: stamp.baseSequence, count, offset: base } });
        }
        partitionLog.push(...values);
        return { ...ack, baseOffset: String(base) };
      });
      if (broker.loseAnswers?.includes(requests))
        return Promise.reject(
          Object.assign(new Error('Request Produce(key: 0, version: 7) timed out'), { name: 'KafkaJSRequestTimeoutError', retriable: true }),
        );
      return Promise.resolve(acks);
    },
  };
  return { kafka: { producer: () => producer } as unknown as Kafka, log, requests: () => requests, stamps, forgetProducers: () => (sequences = new Map()) };
}

/** A target that hands out producer ids 1000, 1001, …; `calls` counts InitProducerId requests. */
function producerIds(): { init: InitProducerId; calls: () => number } {
  let calls = 0;
  return { init: () => Promise.resolve({ producerId: 1000 + calls++, producerEpoch: 0 }), calls: () => calls };
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

/** The writer's own schedules, made fast; idempotent unless said otherwise. */
const writerOver = (kafka: Kafka, options: { idempotent?: boolean; init?: InitProducerId; logger?: Logger } = {}): KafkajsWriter =>
  new KafkajsWriter(
    'target',
    kafka,
    { role: 'spec', compression: 'none', ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }) },
    options.logger,
    { ...PARTIAL_RETRY, initialDelayMs: 1, maxDelayMs: 1, jitter: 0 },
    options.init ?? producerIds().init,
  );

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

/** A logger keeping its warnings. */
function warnings(): { logger: Logger; warned: string[] } {
  const warned: string[] = [];
  const logger: Logger = { error: () => undefined, warn: (m) => warned.push(m), info: () => undefined, debug: () => undefined, child: () => logger };
  return { logger, warned };
}

/** A forwarded record batch of `count` records at source offset `base` (only its count matters to the fake broker). */
const forwarded = (topic: string, partition: number, base: number, count: number): OutboundItem => ({
  topic,
  partition,
  batch: { baseOffset: base, recordCount: count, compressed: false, maxTimestamp: 0, bytes: Buffer.alloc(0) },
});

test('idempotent: a write sent again after its answer was lost is not appended twice, and its offsets are the first copy', async () => {
  const { kafka, log } = fakeKafka({ loseAnswers: [1] });
  const ids = producerIds();
  const writer = writerOver(kafka, { init: ids.init });
  const written = records('orders', 2, 3);
  await assert.rejects(firstValueFrom(writer.write(written)), (error: unknown) => error instanceof KafkaTransportError && error.retriable);
  assert.deepEqual(log.get('orders-0'), values(written, 0), 'the broker did write it');
  // The flow sends the same write again.
  const offsets = await firstValueFrom(writer.write(written));
  for (const p of [0, 1]) assert.deepEqual(log.get(`orders-${p}`), values(written, p), `orders-${p} holds each record once`);
  assert.deepEqual(Array.from(offsets), [0, 0, 1, 1, 2, 2]);
  assert.equal(ids.calls(), 1, 'one producer id');
  const next = records('orders', 2, 1).map((r) => ({ ...r, value: Buffer.from('next') }));
  assert.deepEqual(Array.from(await firstValueFrom(writer.write(next))), [3, 3], 'and the next write follows');
});

test('without idempotence, the same lost answer writes the records twice (MM2 with enable.idempotence=false)', async () => {
  const { kafka, log } = fakeKafka({ loseAnswers: [1] });
  const writer = writerOver(kafka, { idempotent: false });
  const written = records('orders', 1, 3);
  await assert.rejects(firstValueFrom(writer.write(written)));
  await firstValueFrom(writer.write(written));
  assert.deepEqual(log.get('orders-0'), [...values(written, 0), ...values(written, 0)]);
});

test('idempotent: a forwarded batch advances its partition by its record count, joined batches by their sum', async () => {
  const { kafka, stamps } = fakeKafka({});
  const writer = writerOver(kafka);
  await firstValueFrom(writer.write([forwarded('t', 0, 100, 5), forwarded('t', 1, 0, 1)]));
  await firstValueFrom(writer.write([forwarded('t', 0, 105, 3), forwarded('t', 0, 108, 4)]));
  await firstValueFrom(writer.write(records('t', 1, 2)));
  assert.deepEqual(
    stamps.get('t-0')!.map((s) => s.baseSequence),
    [0, 5, 12],
  );
  assert.deepEqual(
    stamps.get('t-1')!.map((s) => s.baseSequence),
    [0],
  );
  assert.ok(
    [...stamps.values()].flat().every((s) => s.producerId === 1000 && s.producerEpoch === 0),
    'one producer id and epoch',
  );
});

test('idempotent: only the refused partitions go again, with their own sequences, under the same producer id', async () => {
  const { kafka, log, stamps } = fakeKafka({ refuse: { partition: 'orders-1', times: 3 } });
  const ids = producerIds();
  const writer = writerOver(kafka, { init: ids.init });
  const written = records('orders', 2, 3);
  await firstValueFrom(writer.write(written));
  for (const p of [0, 1]) assert.deepEqual(log.get(`orders-${p}`), values(written, p));
  assert.deepEqual(
    stamps.get('orders-1')!.map((s) => s.baseSequence),
    [0, 0, 0, 0],
    'the same sequences each time',
  );
  assert.equal(ids.calls(), 1, 'the producer made anew kept the producer id');
  await firstValueFrom(writer.write(records('orders', 2, 1)));
  assert.equal(stamps.get('orders-1')!.at(-1)!.baseSequence, 3);
});

test('idempotent: a producer id the broker no longer knows is replaced (logged) and the write goes on', async () => {
  const { kafka, log, forgetProducers, stamps } = fakeKafka({});
  const ids = producerIds();
  const { logger, warned } = warnings();
  const writer = writerOver(kafka, { init: ids.init, logger });
  await firstValueFrom(writer.write(records('orders', 1, 2)));
  forgetProducers();
  const second = records('orders', 1, 2).map((r) => ({ ...r, value: Buffer.from(`2nd ${r.value!.toString()}`) }));
  assert.deepEqual(Array.from(await firstValueFrom(writer.write(second))), [2, 3]);
  assert.deepEqual(log.get('orders-0')!.slice(2), values(second, 0));
  assert.equal(ids.calls(), 2);
  assert.deepEqual(stamps.get('orders-0')!.at(-1), { producerId: 1001, producerEpoch: 0, baseSequence: 0 });
  assert.equal(warned.filter((m) => /new producer id/.test(m)).length, 1, warned.join('\n'));
});

test('idempotent: after a lost answer, a different write to that partition takes a new producer id instead of reusing the sequences', async () => {
  const { kafka, log, stamps } = fakeKafka({ loseAnswers: [1] });
  const ids = producerIds();
  const { logger, warned } = warnings();
  const writer = writerOver(kafka, { init: ids.init, logger });
  const first = records('orders', 1, 3);
  await assert.rejects(firstValueFrom(writer.write(first)));
  // Another write of the same size, as after a stop that gave up the first one: with the same
  // sequences the broker would take it for the first and drop it.
  const other = first.map((r) => ({ ...r, value: Buffer.from(`other ${r.value!.toString()}`) }));
  await firstValueFrom(writer.write(other));
  assert.deepEqual(log.get('orders-0'), [...values(first, 0), ...values(other, 0)], 'nothing dropped');
  assert.equal(stamps.get('orders-0')!.at(-1)!.producerId, 1001);
  assert.equal(warned.length, 1);
});

test('idempotent: a target that keeps refusing the sequences ends the write after a bounded number of new producer ids', async () => {
  const { kafka, log } = fakeKafka({ unknownProducers: true });
  const ids = producerIds();
  const writer = writerOver(kafka, { init: ids.init });
  await assert.rejects(firstValueFrom(writer.write(records('orders', 1, 1))), (error: unknown) => {
    assert.ok(error instanceof KafkaTransportError);
    assert.equal(error.retriable, false);
    assert.match(
      error.message,
      /Cluster "target": .*after 5 new producer ids in a row with nothing written in between \(last: orders-0 answered UNKNOWN_PRODUCER_ID\)/,
    );
    return true;
  });
  assert.equal(ids.calls(), 6, 'the first producer id and 5 more');
  assert.equal(log.get('orders-0')?.length ?? 0, 0);
});

test('idempotent: overlapping writes to one partition go one after the other under one producer id', async () => {
  const { kafka, log } = fakeKafka({});
  const ids = producerIds();
  const { logger, warned } = warnings();
  const writer = writerOver(kafka, { init: ids.init, logger });
  const a = records('offsets', 1, 2);
  const b = records('offsets', 1, 2).map((r) => ({ ...r, value: Buffer.from(`b ${r.value!.toString()}`) }));
  await Promise.all([firstValueFrom(writer.write(a)), firstValueFrom(writer.write(b))]);
  assert.deepEqual(log.get('offsets-0'), [...values(a, 0), ...values(b, 0)]);
  assert.equal(ids.calls(), 1);
  assert.deepEqual(warned, []);
});
