import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom, from, lastValueFrom, retry } from 'rxjs';
import type { Kafka } from '../kafkajs';
import { KafkajsWriter, PARTIAL_RETRY } from './kafkajs-writer';
import type { OutboundRecord } from '../../core/ports/record-writer';
import type { Logger } from '../../core/ports/logger';
import type { InitProducerId } from './idempotence';
import type { ProducerStamp } from './producer-sequences';

/*
 * The writer with several produce requests in flight (producer.max_in_flight > 1), over a fake
 * broker that holds each request until the spec lets it arrive, in any order, and applies
 * Kafka's rule for idempotent producers: per partition and producer id, a batch is appended only
 * at the next expected sequence; one with the sequences of one of the last five appended is a
 * duplicate, answered with that batch's offsets. A partition that holds nothing of a producer id
 * appends its first batch whatever its sequence (ProducerStateManager: no state, any sequence).
 */

const NOT_LEADER_OR_FOLLOWER = 6;
const OUT_OF_ORDER_SEQUENCE_NUMBER = 45;
const UNKNOWN_PRODUCER_ID = 59;

interface SentMessage {
  readonly partition: number;
  readonly value: Buffer | null;
  readonly producer?: ProducerStamp;
}
interface SentBatch {
  readonly topicMessages: readonly { topic: string; messages: readonly SentMessage[] }[];
}
interface Ack {
  topicName: string;
  partition: number;
  errorCode: number;
  baseOffset: string;
}
interface Held {
  readonly batch: SentBatch;
  /**
   * Lets the request arrive at the broker; `lose` drops its answer (the send times out), `refuse`
   * answers NOT_LEADER_OR_FOLLOWER, `hold` keeps the answer on the way until the returned function is called.
   */
  readonly arrive: (how?: { lose?: boolean; refuse?: boolean; hold?: boolean }) => () => void;
}

function heldBroker() {
  const log = new Map<string, string[]>();
  const state = new Map<string, { next: number; last: { base: number; count: number; offset: number }[] }>();
  const held: Held[] = [];
  /** Producer ids whose state `forget` dropped: answered UNKNOWN_PRODUCER_ID, as brokers before Kafka 2.5 did. */
  const forgotten = new Set<string>();
  let waiting: (() => void)[] = [];
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    sendBatch: (batch: SentBatch) =>
      new Promise<Ack[]>((resolve, reject) => {
        held.push({
          batch,
          arrive: (how = {}) => {
            const acks: Ack[] = [];
            for (const { topic, messages } of batch.topicMessages) {
              const stamp = messages[0]!.producer!;
              const key = `${topic}-${messages[0]!.partition}`;
              const ack = { topicName: topic, partition: messages[0]!.partition, errorCode: 0, baseOffset: '-1' };
              if (how.refuse === true) {
                acks.push({ ...ack, errorCode: NOT_LEADER_OR_FOLLOWER });
                continue;
              }
              const id = `${key}/${stamp.producerId}`;
              if (forgotten.has(id)) {
                acks.push({ ...ack, errorCode: UNKNOWN_PRODUCER_ID });
                continue;
              }
              const known = state.get(id);
              const s = known ?? { next: stamp.baseSequence, last: [] };
              const partitionLog = log.get(key) ?? [];
              log.set(key, partitionLog);
              const duplicate = s.last.find((l) => l.base === stamp.baseSequence && l.count === messages.length);
              if (duplicate !== undefined) {
                acks.push({ ...ack, baseOffset: String(duplicate.offset) });
                continue;
              }
              if (stamp.baseSequence !== s.next) {
                acks.push({ ...ack, errorCode: OUT_OF_ORDER_SEQUENCE_NUMBER });
                continue;
              }
              const last = [...s.last, { base: stamp.baseSequence, count: messages.length, offset: partitionLog.length }].slice(-5);
              state.set(id, { next: s.next + messages.length, last });
              acks.push({ ...ack, baseOffset: String(partitionLog.length) });
              partitionLog.push(...messages.map((m) => m.value!.toString()));
            }
            const answer = (): void => {
              if (how.lose === true)
                reject(Object.assign(new Error('Request Produce(key: 0, version: 7) timed out'), { name: 'KafkaJSRequestTimeoutError', retriable: true }));
              else resolve(acks);
            };
            if (how.hold !== true) answer();
            return answer;
          },
        });
        const w = waiting;
        waiting = [];
        for (const f of w) f();
      }),
  };
  /** Resolves once `n` requests were sent and not yet let in. */
  const sent = async (n: number): Promise<Held[]> => {
    while (held.length < n) await new Promise<void>((resolve) => waiting.push(resolve));
    return held.splice(0, n);
  };
  /** Lets every request in as it comes, from now on. */
  const flowing = async (stop: { done: boolean }): Promise<void> => {
    while (!stop.done) (await sent(1))[0]!.arrive();
  };
  const forget = (): void => {
    for (const id of state.keys()) forgotten.add(id);
    state.clear();
  };
  return { kafka: { producer: () => producer } as unknown as Kafka, log, sent, flowing, forget };
}

function producerIds(): { init: InitProducerId; calls: () => number } {
  let calls = 0;
  return { init: () => Promise.resolve({ producerId: 1000 + calls++, producerEpoch: 0 }), calls: () => calls };
}

function warnings(): { logger: Logger; warned: string[] } {
  const warned: string[] = [];
  const logger: Logger = { error: () => undefined, warn: (m) => warned.push(m), info: () => undefined, debug: () => undefined, child: () => logger };
  return { logger, warned };
}

const writes = (n: number, perWrite: number): OutboundRecord[][] =>
  Array.from({ length: n }, (_, w) =>
    Array.from({ length: perWrite }, (_, i) => ({ topic: 't', partition: 0, timestamp: 0, key: null, value: Buffer.from(`${w}.${i}`), headers: [] })),
  );
const all = (ws: OutboundRecord[][]): string[] => ws.flat().map((r) => r.value!.toString());

const writerOver = (kafka: Kafka, init: InitProducerId, logger?: Logger): KafkajsWriter =>
  new KafkajsWriter(
    'target',
    kafka,
    { role: 'spec', compression: 'none', maxInFlight: 5 },
    logger,
    { ...PARTIAL_RETRY, initialDelayMs: 1, maxDelayMs: 1, jitter: 0 },
    init,
  );

/** The flow's retry of a write that failed: the same items again (retryThroughOutage, without the waits). */
const retried = (writer: KafkajsWriter, items: OutboundRecord[]) => lastValueFrom(writer.write(items).pipe(retry({ delay: 1 })));

/**
 * A first record on t-0, acknowledged: from then on the broker knows the writer's producer id
 * there and refuses its sequences out of order (before, the writer sends one write of the
 * partition at a time). Returns what it wrote.
 */
async function warmed(writer: KafkajsWriter, broker: ReturnType<typeof heldBroker>): Promise<string[]> {
  const first: OutboundRecord = { topic: 't', partition: 0, timestamp: 0, key: null, value: Buffer.from('first'), headers: [] };
  await Promise.all([firstValueFrom(writer.write([first])), broker.sent(1).then(([h]) => h!.arrive())]);
  return ['first'];
}

test('several writes to one partition are in flight at once and land in order, once, under one producer id', async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const writer = writerOver(broker.kafka, ids.init);
  const first = await warmed(writer, broker);
  const ws = writes(4, 3);
  const done = Promise.all(ws.map((w) => firstValueFrom(writer.write(w))));
  const held = await broker.sent(4);
  assert.deepEqual(
    held.map((h) => h.batch.topicMessages[0]!.messages[0]!.producer!.baseSequence),
    [1, 4, 7, 10],
    'all four sent before any answer, with consecutive sequences',
  );
  for (const h of held) h.arrive();
  const offsets = await done;
  assert.deepEqual(broker.log.get('t-0'), [...first, ...all(ws)]);
  assert.deepEqual(
    offsets.map((o) => o[0]),
    [1, 4, 7, 10],
  );
  assert.equal(ids.calls(), 1);
});

test('requests that reach the broker out of order: the later one is refused as out of order and goes again after the earlier one, no new producer id', async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const { logger, warned } = warnings();
  const writer = writerOver(broker.kafka, ids.init, logger);
  const before = await warmed(writer, broker);
  const ws = writes(2, 2);
  const done = Promise.all(ws.map((w) => firstValueFrom(writer.write(w))));
  const [first, second] = await broker.sent(2);
  second!.arrive();
  first!.arrive();
  const [again] = await broker.sent(1);
  assert.equal(again!.batch.topicMessages[0]!.messages[0]!.producer!.baseSequence, 3, 'the same sequences');
  again!.arrive();
  await done;
  assert.deepEqual(broker.log.get('t-0'), [...before, ...all(ws)]);
  assert.equal(ids.calls(), 1);
  assert.deepEqual(warned, []);
});

test('an earlier write that failed is sent again by the flow; the later ones, refused as out of order, follow it in order, each record once', async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const writer = writerOver(broker.kafka, ids.init);
  const before = await warmed(writer, broker);
  const ws = writes(3, 2);
  const done = Promise.all(ws.map((w) => retried(writer, w)));
  const [a, b, c] = await broker.sent(3);
  a!.arrive({ refuse: true }); // not written: the broker expects sequence 1 still
  b!.arrive();
  c!.arrive();
  const stop = { done: false };
  void broker.flowing(stop);
  await done;
  stop.done = true;
  assert.deepEqual(broker.log.get('t-0'), [...before, ...all(ws)]);
  assert.equal(ids.calls(), 1);
});

test("a partition's first write under a producer id fails while later ones would arrive: they wait for it, since the broker, not knowing the producer there yet, would append them first", async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const writer = writerOver(broker.kafka, ids.init);
  const ws = writes(3, 2);
  const done = Promise.all(ws.map((w) => retried(writer, w)));
  const [a] = await broker.sent(1);
  a!.arrive({ refuse: true }); // not written, and the partition still holds nothing of the producer id
  const stop = { done: false };
  void broker.flowing(stop);
  await done;
  stop.done = true;
  assert.deepEqual(broker.log.get('t-0'), all(ws), 'in the order written, the first write first');
  assert.equal(ids.calls(), 1, 'no new producer id: nothing was refused as out of order');
});

test('a write whose answer was lost, sent again after later writes were acknowledged, is a duplicate, not a second copy', async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const writer = writerOver(broker.kafka, ids.init);
  const before = await warmed(writer, broker);
  const ws = writes(3, 2);
  const done = Promise.all(ws.map((w) => retried(writer, w)));
  const [a, b, c] = await broker.sent(3);
  a!.arrive({ lose: true });
  b!.arrive();
  c!.arrive();
  const [again] = await broker.sent(1);
  again!.arrive();
  const offsets = await done;
  assert.deepEqual(broker.log.get('t-0'), [...before, ...all(ws)]);
  assert.deepEqual(
    offsets.map((o) => o[0]),
    [1, 3, 5],
    "the first copy's offsets",
  );
  assert.equal(ids.calls(), 1);
});

test('a broker that lost the producer state while writes are in flight: one new producer id, and every write still lands in order', async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const { logger, warned } = warnings();
  const writer = writerOver(broker.kafka, ids.init, logger);
  const before = writes(1, 2);
  await Promise.all([firstValueFrom(writer.write(before[0]!)), broker.sent(1).then(([h]) => h!.arrive())]);
  broker.forget();
  const ws = writes(3, 2).map((w, n) => w.map((r) => ({ ...r, value: Buffer.from(`after ${n}.${r.value!.toString()}`) })));
  const done = Promise.all(ws.map((w) => retried(writer, w)));
  const held = await broker.sent(3);
  for (const h of held) h.arrive();
  const stop = { done: false };
  void broker.flowing(stop);
  await done;
  stop.done = true;
  assert.deepEqual(broker.log.get('t-0'), [...all(before), ...all(ws)]);
  assert.equal(ids.calls(), 2);
  assert.equal(warned.filter((m) => /new producer id/.test(m)).length, 1, warned.join('\n'));
});

test('a write given up (unsubscribed) does not hold later writes of its partition back', async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const writer = writerOver(broker.kafka, ids.init);
  const before = await warmed(writer, broker);
  const [given, next] = writes(2, 2);
  const subscription = writer.write(given!).subscribe({ error: () => undefined });
  const done = retried(writer, next!);
  const [a, b] = await broker.sent(2);
  subscription.unsubscribe();
  a!.arrive({ refuse: true });
  b!.arrive();
  const stop = { done: false };
  void broker.flowing(stop);
  await done;
  stop.done = true;
  assert.deepEqual(broker.log.get('t-0'), [...before, ...all([next!])]);
});

test('a write whose answer was lost, sent again only after later writes went on (its retry backing off), still lands once: no more than four later batches go before it', async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const { logger, warned } = warnings();
  const writer = writerOver(broker.kafka, ids.init, logger);
  const before = await warmed(writer, broker);
  let backedOff!: () => void;
  const backOff = new Promise<void>((resolve) => (backedOff = resolve));
  const [lost, ...later] = writes(7, 2);
  // The flow's retry of the first write waits (a leader moving, its backoff growing) while the later writes go on.
  const done = Promise.all([lastValueFrom(writer.write(lost!).pipe(retry({ delay: () => from(backOff) }))), ...later.map((w) => retried(writer, w))]);
  const [a, ...inFlight] = await broker.sent(5);
  a!.arrive({ lose: true }); // written, its answer lost
  for (const h of inFlight) h.arrive();
  backedOff();
  const [again] = await broker.sent(1);
  assert.equal(again!.batch.topicMessages[0]!.messages[0]!.value!.toString(), '0.0', 'the lost write goes again before a fifth later batch');
  again!.arrive();
  const stop = { done: false };
  void broker.flowing(stop);
  await done;
  stop.done = true;
  assert.deepEqual(broker.log.get('t-0'), [...before, ...all([lost!, ...later])], 'each record once, in order');
  assert.equal(ids.calls(), 1, warned.join('\n'));
});

test('a later write that reached the broker first is refused as out of order, its answer arriving after the earlier one was acknowledged: it goes again, no new producer id', async () => {
  const broker = heldBroker();
  const ids = producerIds();
  const { logger, warned } = warnings();
  const writer = writerOver(broker.kafka, ids.init, logger);
  const before = await warmed(writer, broker);
  const ws = writes(2, 2);
  const first = retried(writer, ws[0]!);
  const second = retried(writer, ws[1]!);
  const [a, b] = await broker.sent(2);
  // The second went through another connection (a kafkajs producer the writer has since
  // replaced): the broker takes it first, and its answer is still on the way when the first's comes.
  const answerB = b!.arrive({ hold: true });
  a!.arrive();
  await first;
  answerB();
  const [again] = await broker.sent(1);
  assert.equal(again!.batch.topicMessages[0]!.messages[0]!.producer!.baseSequence, 3, 'the same sequences');
  again!.arrive();
  await second;
  assert.deepEqual(broker.log.get('t-0'), [...before, ...all(ws)]);
  assert.equal(ids.calls(), 1, warned.join('\n'));
  assert.deepEqual(warned, []);
});
