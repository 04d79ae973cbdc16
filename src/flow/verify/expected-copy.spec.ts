import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KafkaRecord, MirrorRecord, RecordFailure } from '../../core/record';
import { recordDigest } from '../../core/record-digest';
import { expectedDigest } from './expected-copy';

const record = (value: string, offset = 0): KafkaRecord => ({
  topic: 'orders',
  partition: 2,
  offset,
  timestamp: 5,
  key: null,
  value: Buffer.from(value),
  headers: [],
});
const digestOf = (r: Pick<KafkaRecord, 'timestamp' | 'key' | 'value' | 'headers'>): number[] => {
  const out = new Uint32Array(2);
  recordDigest(r, out, 0);
  return [...out];
};

/** A chain as the flow builds one: drops "skip", renames "to-b" records to topic b, fails on "bad", appends a header to the rest. */
const chain = (records: readonly MirrorRecord[], failures?: RecordFailure[]): readonly MirrorRecord[] =>
  records.flatMap((r) => {
    const value = r.value?.toString();
    if (value === 'skip') return [];
    if (value === 'bad') {
      failures?.push({ record: r, error: new Error('bad') } as unknown as RecordFailure);
      return [];
    }
    if (value === 'to-b') return [{ ...r, topic: 'b' }];
    return [{ ...r, topic: r.topic, headers: [...r.headers, { key: 'via', value: Buffer.from('mf') }] }];
  });

test("a source record's expected copy is the flow's transforms' output under the compared topic, or none", () => {
  const expected = expectedDigest({ by: 'content', remoteTopic: 'primary.orders', comparedTopic: 'primary.orders', transform: chain });
  const out = new Uint32Array(2);
  assert.equal(expected(record('a'), out, 0), true);
  assert.deepEqual([...out], digestOf({ ...record('a'), headers: [{ key: 'via', value: Buffer.from('mf') }] }));
  for (const dropped of ['skip', 'bad', 'to-b']) assert.equal(expected(record(dropped), out, 0), false, dropped);
});

test('compared by count: every kept record the same digest, dropped ones still dropped', () => {
  const expected = expectedDigest({ by: 'count', remoteTopic: 'primary.orders', comparedTopic: 'primary.orders', transform: chain });
  const out = new Uint32Array([9, 9]);
  assert.equal(expected(record('a'), out, 0), true);
  assert.deepEqual([...out], [0, 0]);
  assert.equal(expected(record('skip'), out, 0), false);
});
