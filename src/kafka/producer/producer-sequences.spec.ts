import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProducerSequences, incrementSequence } from './producer-sequences';

const ID = { producerId: 7, producerEpoch: 0 };
const started = (): ProducerSequences => {
  const sequences = new ProducerSequences();
  sequences.start(ID);
  return sequences;
};

test('each partition counts its own sequences from 0, moving on by the records acknowledged', () => {
  const s = started();
  const a = {};
  const b = {};
  assert.deepEqual(s.stamp('t', 0, 5, a), { ...ID, baseSequence: 0 });
  assert.deepEqual(s.stamp('t', 1, 3, b), { ...ID, baseSequence: 0 });
  s.acknowledged('t', 0);
  s.acknowledged('t', 1);
  assert.deepEqual(s.stamp('t', 0, 2, {}), { ...ID, baseSequence: 5 });
  assert.deepEqual(s.stamp('u', 0, 2, {}), { ...ID, baseSequence: 0 }, 'another topic, its own count');
});

test('a send not answered goes again with the same sequences; anything else sent there is in doubt', () => {
  const s = started();
  const first = {};
  s.stamp('t', 0, 5, first);
  assert.deepEqual(s.stamp('t', 0, 5, first), { ...ID, baseSequence: 0 }, 'the same write again');
  assert.equal(s.stamp('t', 0, 5, {}), 'in-doubt', 'another write of the same size');
  assert.equal(s.stamp('t', 0, 4, first), 'in-doubt', 'fewer records');
  assert.deepEqual(s.doubtful(), ['t-0']);
  s.acknowledged('t', 0);
  assert.deepEqual(s.doubtful(), []);
  assert.deepEqual(s.stamp('t', 0, 1, {}), { ...ID, baseSequence: 5 });
});

test('a send the broker answered as not written frees its sequences for whatever goes next', () => {
  const s = started();
  s.stamp('t', 0, 20, {});
  s.notWritten('t', 0);
  assert.deepEqual(s.stamp('t', 0, 10, {}), { ...ID, baseSequence: 0 });
});

test('a new producer id starts every partition at 0 with nothing in doubt; forget drops it', () => {
  const s = started();
  s.stamp('t', 0, 5, {});
  s.acknowledged('t', 0);
  s.stamp('t', 1, 5, {});
  s.start({ producerId: 8, producerEpoch: 0 });
  assert.deepEqual(s.doubtful(), []);
  assert.deepEqual(s.stamp('t', 0, 1, {}), { producerId: 8, producerEpoch: 0, baseSequence: 0 });
  s.forget();
  assert.equal(s.identity, undefined);
  assert.throws(() => s.stamp('t', 0, 1, {}), /No producer id/);
});

test("sequences wrap past int32's maximum to 0, as Kafka's", () => {
  assert.equal(incrementSequence(0, 5), 5);
  assert.equal(incrementSequence(0x7fffffff - 5, 5), 0x7fffffff);
  assert.equal(incrementSequence(0x7fffffff - 5, 6), 0);
  assert.equal(incrementSequence(0x7fffffff, 3), 2);
});
