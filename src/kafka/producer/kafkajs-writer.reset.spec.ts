import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom } from '#rxjs';
import type { Kafka } from '../kafkajs';
import { KafkajsWriter, PARTIAL_RETRY } from './kafkajs-writer';
import type { OutboundRecord } from '../../core/ports/record-writer';
import type { InitProducerId } from './idempotence';

/*
 * A write whose partitions were only partly acknowledged (a leader moved: a rolling restart of
 * the target) makes the writer's producer anew, with fresh metadata. Other writes may be in
 * flight on the old producer meanwhile (several in flight, or overlapping writes of an internal
 * topic): it must stay connected until their sends ended. kafkajs fails a send whose producer
 * was disconnected under it with a TypeError (its broker pool's metadata is null), which no
 * retry mends: a flow stopped with "Cannot read properties of null (reading 'brokers')" in a
 * rolling restart of a three-broker target.
 */

const NOT_LEADER_OR_FOLLOWER = 6;

interface Ack {
  topicName: string;
  partition: number;
  errorCode: number;
  baseOffset: string;
}
interface SentBatch {
  readonly topicMessages: readonly { topic: string; messages: readonly { partition: number; value: Buffer | null }[] }[];
}
interface Held {
  readonly producer: number;
  readonly partitions: readonly string[];
  /** Lets the request arrive; `refuse` names partitions answered NOT_LEADER_OR_FOLLOWER. */
  readonly arrive: (refuse?: readonly string[]) => void;
}

/** A fake cluster whose producers are each their own object, and whose sends wait until let in. */
function producers() {
  const log = new Map<string, string[]>();
  const held: Held[] = [];
  const disconnected: number[] = [];
  let made = 0;
  let waiting: (() => void)[] = [];
  const kafka = {
    producer: () => {
      const id = ++made;
      let connected = false;
      return {
        connect: () => {
          connected = true;
          return Promise.resolve();
        },
        disconnect: () => {
          connected = false;
          disconnected.push(id);
          return Promise.resolve();
        },
        sendBatch: (batch: SentBatch) =>
          new Promise<Ack[]>((resolve, reject) => {
            const partitions = batch.topicMessages.flatMap(({ topic, messages }) => [...new Set(messages.map((m) => `${topic}-${m.partition}`))]);
            held.push({
              producer: id,
              partitions,
              arrive: (refuse = []) => {
                // What kafkajs does when its producer was disconnected while the send was under way.
                if (!connected) return reject(new TypeError("Cannot read properties of null (reading 'brokers')"));
                const acks: Ack[] = [];
                for (const { topic, messages } of batch.topicMessages) {
                  for (const partition of new Set(messages.map((m) => m.partition))) {
                    const key = `${topic}-${partition}`;
                    const ack = { topicName: topic, partition, errorCode: 0, baseOffset: '0' };
                    if (refuse.includes(key)) {
                      acks.push({ ...ack, errorCode: NOT_LEADER_OR_FOLLOWER });
                      continue;
                    }
                    const partitionLog = log.get(key) ?? [];
                    log.set(key, partitionLog);
                    acks.push({ ...ack, baseOffset: String(partitionLog.length) });
                    partitionLog.push(...messages.filter((m) => m.partition === partition).map((m) => m.value!.toString()));
                  }
                }
                resolve(acks);
              },
            });
            const w = waiting;
            waiting = [];
            for (const f of w) f();
          }),
      };
    },
  } as unknown as Kafka;
  /** Resolves once `n` requests were sent and not yet let in. */
  const sent = async (n: number): Promise<Held[]> => {
    while (held.length < n) await new Promise<void>((resolve) => waiting.push(resolve));
    return held.splice(0, n);
  };
  return { kafka, log, sent, disconnected, made: () => made };
}

const init: InitProducerId = () => Promise.resolve({ producerId: 1000, producerEpoch: 0 });
const record = (partition: number, value: string): OutboundRecord => ({
  topic: 't',
  partition,
  timestamp: 0,
  key: null,
  value: Buffer.from(value),
  headers: [],
});

for (const mode of [
  { name: 'idempotent, several writes in flight', options: { idempotent: true, maxInFlight: 5 } },
  { name: 'not idempotent, overlapping writes', options: { idempotent: false } },
]) {
  test(`${mode.name}: a partial failure makes the producer anew, and the old one stays connected until the writes still on it are answered`, async () => {
    const cluster = producers();
    const writer = new KafkajsWriter(
      'target',
      cluster.kafka,
      { role: 'spec', compression: 'none', ...mode.options },
      undefined,
      { ...PARTIAL_RETRY, initialDelayMs: 1, maxDelayMs: 1, jitter: 0 },
      init,
    );
    // A first write to each partition, so that later ones may be in flight together.
    const warm = firstValueFrom(writer.write([record(0, 'w0'), record(1, 'w1')]));
    (await cluster.sent(1))[0]!.arrive();
    await warm;

    const a = firstValueFrom(writer.write([record(0, 'a0'), record(1, 'a1')]));
    const b = firstValueFrom(writer.write([record(0, 'b0')]));
    const [sentA, sentB] = await cluster.sent(2);
    assert.equal(sentA!.producer, 1);
    assert.equal(sentB!.producer, 1, 'both writes on the first producer');
    // t-1's leader moved: a's t-0 is written, its t-1 goes again through a new producer.
    sentA!.arrive(['t-1']);
    const [again] = await cluster.sent(1);
    assert.equal(again!.producer, 2, 'the rest of a goes through a new producer');
    assert.deepEqual(again!.partitions, ['t-1']);
    assert.deepEqual(cluster.disconnected, [], 'the first producer stays connected while b is sent on it');
    sentB!.arrive();
    again!.arrive();
    await Promise.all([a, b]);
    assert.deepEqual(cluster.log.get('t-0'), ['w0', 'a0', 'b0']);
    assert.deepEqual(cluster.log.get('t-1'), ['w1', 'a1']);
    assert.deepEqual(cluster.disconnected, [1], 'the first producer is disconnected once nothing is sent on it');

    await writer.close();
    assert.deepEqual(cluster.disconnected, [1, 2]);
  });
}
