import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstValueFrom } from '#rxjs';
import { crc32c } from '@node-rs/crc32';
import '../kafkajs';
import { MirrorflowError } from '../../core/errors';
import type { OutboundItem, OutboundRecord } from '../../core/record';
import { encodeRecordBatch } from '../wire/record-batch-encoder';
import { ProduceEngine, type Delivery, type PartitionAnswer, type ProducePartition, type ProduceTransport } from './produce-engine';
import { UNSEQUENCED, writtenOrFailed, type SequencePlace, type SequenceSource, type WriteSequences } from './sequence-source';

/*
 * The engine's parameters, each against a fake transport: the delivery (at least once, or in a
 * transaction), the sequence source, and the learnt limits it is given.
 */

const NOT_LEADER_OR_FOLLOWER = 6;
const MESSAGE_TOO_LARGE = 10;
const DUPLICATE_SEQUENCE_NUMBER = 46;

/** A record of `value`, without key, headers or timestamp. */
const record = (topic: string, partition: number, value: string): OutboundRecord => ({ topic, partition, value: Buffer.from(value), ...BARE });
const BARE = { timestamp: 0, key: null, headers: [] };

/** A round as the transport saw it: `topic-partition` and the values (or `batch of n`) of each partition, with its stamp's base sequence. */
type Seen = { readonly at: string; readonly values: string[]; readonly baseSequence?: number }[];

/**
 * A transport whose broker answers each partition as `answer` says (the round counted from 1);
 * acknowledged partitions get offsets in order.
 */
function fakeTransport(answer: (at: string, round: number, p: ProducePartition) => number = () => 0) {
  const rounds: Seen[] = [];
  const next = new Map<string, number>();
  let renewed = 0;
  const transport: ProduceTransport = {
    send: (partitions) => {
      const seen: Seen = [];
      rounds.push(seen);
      const answers: PartitionAnswer[] = partitions.map((p) => {
        const at = `${p.topic}-${p.partition}`;
        const values = p.items.map((i) => ('batch' in i ? `batch of ${i.batch.recordCount}` : i.value!.toString()));
        seen.push({ at, values, ...(p.stamp === undefined ? {} : { baseSequence: p.stamp.baseSequence }) });
        const errorCode = answer(at, rounds.length, p);
        if (errorCode !== 0) return { topic: p.topic, partition: p.partition, errorCode, baseOffset: -1 };
        const baseOffset = next.get(at) ?? 0;
        next.set(at, baseOffset + p.records);
        return { topic: p.topic, partition: p.partition, errorCode, baseOffset };
      });
      return Promise.resolve(answers);
    },
    renew: () => {
      renewed++;
      return Promise.resolve();
    },
  };
  return { transport, rounds, renewed: () => renewed };
}

const AT_LEAST_ONCE: Delivery = {
  kind: 'at-least-once',
  partialRetry: { retries: Number.POSITIVE_INFINITY, initialDelayMs: 1, maxDelayMs: 1, factor: 1, jitter: 0 },
};

const engine = (transport: ProduceTransport, options: { delivery?: Delivery; sequences?: SequenceSource; batchLimits?: Map<string, number> } = {}) =>
  new ProduceEngine({
    cluster: 'target',
    transport,
    sequences: options.sequences ?? UNSEQUENCED,
    batchLimits: options.batchLimits ?? new Map(),
    delivery: options.delivery ?? AT_LEAST_ONCE,
  });

test('at least once: a partition refused retriably goes again alone, after the transport renewed, until acknowledged', async () => {
  const { transport, rounds, renewed } = fakeTransport((at, round) => (at === 't-1' && round < 3 ? NOT_LEADER_OR_FOLLOWER : 0));
  const offsets = await firstValueFrom(engine(transport).write([record('t', 0, 'a'), record('t', 1, 'b'), record('t', 0, 'c')]));
  assert.deepEqual(Array.from(offsets), [0, 0, 1]);
  assert.deepEqual(
    rounds.map((r) => r.map((p) => p.at)),
    [['t-0', 't-1'], ['t-1'], ['t-1']],
  );
  assert.equal(renewed(), 2);
});

test('in a transaction: the same refusal is not retried; the write fails with the error as kafkajs names it, for the transaction to judge', async () => {
  const { transport, rounds, renewed } = fakeTransport((at) => (at === 't-1' ? NOT_LEADER_OR_FOLLOWER : 0));
  await assert.rejects(
    firstValueFrom(engine(transport, { delivery: { kind: 'transaction' } }).write([record('t', 0, 'a'), record('t', 1, 'b')])),
    (error: unknown) => {
      assert.equal((error as { type?: unknown }).type, 'NOT_LEADER_FOR_PARTITION');
      assert.ok(!(error instanceof MirrorflowError), 'not translated: the transaction translates what gives it up');
      return true;
    },
  );
  assert.equal(rounds.length, 1);
  assert.equal(renewed(), 0);
});

test('in a transaction too, a batch too large is split to fit within the write, in order', async () => {
  const { transport, rounds } = fakeTransport((_, __, p) => (p.items.length > 2 ? MESSAGE_TOO_LARGE : 0));
  const items = ['a', 'b', 'c', 'd', 'e'].map((v) => record('t', 0, v.repeat(100)));
  const offsets = await firstValueFrom(engine(transport, { delivery: { kind: 'transaction' } }).write(items));
  assert.deepEqual(Array.from(offsets), [0, 1, 2, 3, 4]);
  assert.deepEqual(
    rounds.flat().map((p) => p.values.map((v) => v[0]).join('')),
    ['abcde', 'ab', 'cd', 'e'],
  );
});

/** A sequence source that stamps each partition's batch with the records sent so far, answering 'again' to the first answer of `again`. */
function countingSource(again?: string): SequenceSource & { places: (SequencePlace | undefined)[] } {
  const next = new Map<string, number>();
  const places: (SequencePlace | undefined)[] = [];
  let held = again;
  const source = {
    places,
    write: (_items: readonly OutboundItem[], place?: SequencePlace): WriteSequences => {
      places.push(place);
      return {
        round: async (partitions, send) => {
          for (const p of partitions) p.stamp = { producerId: 7, producerEpoch: 0, baseSequence: next.get(`${p.topic}-${p.partition}`) ?? 0 };
          await send();
          for (const p of partitions) {
            if (p.answer === undefined) continue;
            const at = `${p.topic}-${p.partition}`;
            if (at === held) {
              held = undefined;
              p.verdict = 'again';
              continue;
            }
            p.verdict = writtenOrFailed(p.answer.errorCode);
            if (p.verdict === 'written') next.set(at, (next.get(at) ?? 0) + p.records);
          }
        },
        place: (p, index) => ({ ticket: { topic: p.topic, partition: p.partition, key: p.items[0]!, total: p.records }, position: index }),
      };
    },
  };
  return source;
}

test('the sequence source stamps each partition, and a partition it answers "again" goes again at once, without a retry', async () => {
  const { transport, rounds, renewed } = fakeTransport();
  const sequences = countingSource('t-0');
  const e = engine(transport, { sequences });
  await firstValueFrom(e.write([record('t', 0, 'a'), record('t', 0, 'b'), record('t', 1, 'c')]));
  await firstValueFrom(e.write([record('t', 0, 'd')]));
  assert.deepEqual(rounds, [
    [
      { at: 't-0', values: ['a', 'b'], baseSequence: 0 },
      { at: 't-1', values: ['c'], baseSequence: 0 },
    ],
    [{ at: 't-0', values: ['a', 'b'], baseSequence: 0 }],
    [{ at: 't-0', values: ['d'], baseSequence: 2 }],
  ]);
  assert.equal(renewed(), 0);
});

test('without a producer id (UNSEQUENCED) the batches go without producer fields', async () => {
  const { transport, rounds } = fakeTransport();
  await firstValueFrom(engine(transport).write([record('t', 0, 'a')]));
  assert.deepEqual(rounds, [[{ at: 't-0', values: ['a'] }]]);
});

test('a forwarded batch refused alone goes again as its records, in the place its sequence source gives them', async () => {
  const bytes = await encodeRecordBatch(
    ['x', 'y', 'z'].map((v) => ({ key: null, value: Buffer.from(v), timestamp: 0 })),
    { compression: 0, crc32c },
  );
  const batch: OutboundItem = { topic: 't', partition: 0, batch: { baseOffset: 40, recordCount: 3, compressed: false, maxTimestamp: 0, bytes } };
  const { transport, rounds } = fakeTransport((_, __, p) => (p.items.some((i) => 'batch' in i) ? MESSAGE_TOO_LARGE : 0));
  const sequences = countingSource();
  const offsets = await firstValueFrom(engine(transport, { sequences }).write([record('t', 1, 'a'), batch]));
  assert.deepEqual(Array.from(offsets), [0, 0], 'the batch at the offset of its first record');
  assert.deepEqual(
    rounds.map((r) => r.map((p) => `${p.at}: ${p.values.join(',')}`)),
    [['t-1: a', 't-0: batch of 3'], ['t-0: x,y,z']],
  );
  assert.deepEqual(
    sequences.places.map((p) => p?.position),
    [undefined, 1],
    "the records' write took the batch's place (item 1 of the write)",
  );
});

test('the learnt limits are the map the engine is given: an engine made with it later splits from its first round', async () => {
  const batchLimits = new Map<string, number>();
  const tooLarge = (_: string, __: number, p: ProducePartition) => (p.items.length > 1 ? MESSAGE_TOO_LARGE : 0);
  const items = [record('t', 0, 'a'), record('t', 0, 'b')];
  const first = fakeTransport(tooLarge);
  await firstValueFrom(engine(first.transport, { batchLimits, delivery: { kind: 'transaction' } }).write(items));
  assert.equal(first.rounds.length, 3);
  const later = fakeTransport(tooLarge);
  await firstValueFrom(engine(later.transport, { batchLimits, delivery: { kind: 'transaction' } }).write(items));
  assert.deepEqual(
    later.rounds.map((r) => r.map((p) => p.values.join(','))),
    [['a'], ['b']],
  );
});

test('a duplicate the broker answers without offsets is written; none of its items gets an offset', async () => {
  const { transport } = fakeTransport();
  const duplicate: ProduceTransport = {
    send: async (partitions, attempt) =>
      (await transport.send(partitions, attempt)).map((a) => ({ ...a, errorCode: DUPLICATE_SEQUENCE_NUMBER, baseOffset: -1 })),
  };
  const offsets = await firstValueFrom(engine(duplicate).write([record('t', 0, 'a'), record('t', 0, 'b'), record('t', 0, 'c')]));
  assert.deepEqual(Array.from(offsets), [-1, -1, -1]);
});
