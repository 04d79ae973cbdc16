import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecordFailedError, RecordRefusedError } from '../../core/errors';
import type { MirrorRecord, OutboundRecordBatch } from '../../core/record';
import { RemoteNames } from './remote-names';

const refusal = (index: number, offsetInBatch = 0) => new RecordRefusedError('backup', index, offsetInBatch, 'the record is too large');

test('a remote name is asked of the policy once per source topic', () => {
  const asked: string[] = [];
  const names = new RemoteNames((topic) => (asked.push(topic), `primary.${topic}`));
  assert.equal(names.remote('orders'), 'primary.orders');
  assert.equal(names.remote('orders'), 'primary.orders');
  assert.equal(names.remote('payments'), 'primary.payments');
  assert.deepEqual(asked, ['orders', 'payments']);
});

test('a refused record of a forwarded batch is named by its source topic and offset, with the record the writer decoded', () => {
  const names = new RemoteNames((topic) => `primary.${topic}`);
  names.remote('orders');
  const batch: OutboundRecordBatch = {
    topic: 'primary.orders',
    partition: 2,
    batch: { baseOffset: 100, recordCount: 5, compressed: false, maxTimestamp: 7, bytes: Buffer.alloc(0) },
  };
  const record = { topic: 'primary.orders', partition: 2, timestamp: 5, key: Buffer.from('k'), value: Buffer.from('v'), headers: [{ key: 'h', value: null }] };
  const error = refusal(0, 3);
  const failure = names.refused([batch], error, { index: 0, offsetInBatch: 3, record, error });
  assert.deepEqual(failure.record, { source: { topic: 'orders', partition: 2, offset: 103 }, ...record });
  assert.ok(failure.error instanceof RecordFailedError);
  assert.deepEqual(failure.error.source, { topic: 'orders', partition: 2, offset: 103 });
  assert.equal(failure.error.cause, error);
});

test('without the decoded record, a refused record of a forwarded batch keeps its place; a topic never named keeps its own name', () => {
  const names = new RemoteNames((topic) => `primary.${topic}`);
  const batch: OutboundRecordBatch = {
    topic: 'elsewhere',
    partition: 0,
    batch: { baseOffset: 10, recordCount: 2, compressed: true, maxTimestamp: 7, bytes: Buffer.alloc(0) },
  };
  const failure = names.refused([batch], refusal(0, 1));
  assert.deepEqual(failure.record, {
    source: { topic: 'elsewhere', partition: 0, offset: 11 },
    topic: 'elsewhere',
    partition: 0,
    timestamp: -1,
    key: null,
    value: null,
    headers: [],
  });
});

test('a refused record item is the mirrored record itself', () => {
  const names = new RemoteNames((topic) => `primary.${topic}`);
  const mirrored: MirrorRecord = {
    source: { topic: 'orders', partition: 1, offset: 42 },
    topic: 'primary.orders',
    partition: 1,
    timestamp: 1,
    key: null,
    value: Buffer.from('x'),
    headers: [],
  };
  const other: MirrorRecord = { ...mirrored, source: { ...mirrored.source, offset: 41 } };
  const failure = names.refused([other, mirrored], refusal(1));
  assert.equal(failure.record, mirrored);
  assert.deepEqual(failure.error.source, mirrored.source);
  assert.match(failure.error.message, /too large/);
});
