import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordDigest, type RecordContent } from './record-digest';

const digest = (record: RecordContent): string => {
  const out = new Uint32Array(2);
  recordDigest(record, out, 0);
  return `${out[0]}:${out[1]}`;
};
const base: RecordContent = {
  timestamp: 1_700_000_000_123,
  key: Buffer.from('k'),
  value: Buffer.from('value'),
  headers: [{ key: 'h', value: Buffer.from('1') }],
};

test('the same content gives the same digest; any field that differs gives another', () => {
  const same = digest({ ...base, key: Buffer.from('k'), headers: [{ key: 'h', value: Buffer.from('1') }] });
  assert.equal(digest(base), same);
  const others = [
    { ...base, timestamp: base.timestamp + 1 },
    { ...base, timestamp: base.timestamp + 2 ** 32 },
    { ...base, key: null },
    { ...base, key: Buffer.alloc(0) },
    { ...base, value: null },
    { ...base, value: Buffer.alloc(0) },
    { ...base, value: Buffer.from('valuf') },
    { ...base, value: Buffer.from('value\0') },
    { ...base, headers: [] },
    { ...base, headers: [{ key: 'h', value: null }] },
    { ...base, headers: [{ key: 'h', value: Buffer.alloc(0) }] },
    { ...base, headers: [...base.headers, { key: 'h', value: Buffer.from('1') }] },
    { ...base, headers: [{ key: 'x', value: Buffer.from('1') }] },
    // A header moved into the key's place, and headers in another order.
    { ...base, key: Buffer.from('kh'), headers: [] },
    {
      ...base,
      headers: [
        { key: 'a', value: null },
        { key: 'b', value: null },
      ],
    },
    {
      ...base,
      headers: [
        { key: 'b', value: null },
        { key: 'a', value: null },
      ],
    },
  ];
  const digests = new Set([digest(base), ...others.map(digest)]);
  assert.equal(digests.size, others.length + 1);
});

test('100,000 distinct records give 100,000 distinct digests', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 100_000; i++)
    seen.add(digest({ timestamp: 1_700_000_000_000, key: Buffer.from(i.toString(16).padStart(16, '0')), value: Buffer.from('v'), headers: [] }));
  assert.equal(seen.size, 100_000);
});
