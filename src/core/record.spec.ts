import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  type DecodedFlowBatch,
  type ForwardedFlowBatch,
  type MirrorRecord,
  type OutboundItem,
  type RawRecordBatch,
  type SourceBatch,
  flowBatchDeadLetters,
  flowBatchFailure,
  flowBatchForwardedCount,
  flowBatchItemCount,
  flowBatchNewestTimestamp,
  flowBatchRecordCount,
  forEachOffsetPair,
  pushFlowBatchItems,
  sourceBatchFirstOffset,
  sourceBatchRecordCount,
} from './record';
import { RecordFailedError } from './errors';

const source = { topic: 'orders', partition: 2 };

function raw(baseOffset: number, recordCount: number, maxTimestamp = 0): RawRecordBatch {
  return { baseOffset, recordCount, compressed: false, maxTimestamp, bytes: Buffer.alloc(10) };
}

function mirrored(offset: number, timestamp = 0): MirrorRecord {
  return { source: { ...source, offset }, topic: 'primary.orders', partition: 2, timestamp, key: null, value: null, headers: [] };
}

function decoded(records: MirrorRecord[], extra: Partial<DecodedFlowBatch> = {}): DecodedFlowBatch {
  return { kind: 'records', source, records, nextOffset: 100, highWatermark: 100, bytes: 0, sourceRecords: records.length, ...extra };
}

function forwarded(batches: RawRecordBatch[]): ForwardedFlowBatch {
  const recordBatches = batches.map((batch) => ({ topic: 'primary.orders', partition: 2, batch }));
  return { kind: 'batches', source, recordBatches, nextOffset: 100, highWatermark: 100, bytes: 0, sourceRecords: 0 };
}

test('a source batch counts and starts at its records, decoded or whole', () => {
  const record = { ...source, offset: 7, timestamp: 0, key: null, value: null, headers: [] };
  const records: SourceBatch = { kind: 'records', ...source, records: [record, { ...record, offset: 8 }], nextOffset: 9, highWatermark: 9, bytes: 0 };
  const whole: SourceBatch = { kind: 'batches', ...source, recordBatches: [raw(20, 3), raw(23, 4)], nextOffset: 27, highWatermark: 27, bytes: 0 };
  const empty: SourceBatch = { kind: 'records', ...source, records: [], nextOffset: 42, highWatermark: 42, bytes: 0 };
  assert.deepEqual([sourceBatchRecordCount(records), sourceBatchRecordCount(whole), sourceBatchRecordCount(empty)], [2, 7, 0]);
  assert.deepEqual(
    [sourceBatchFirstOffset(records), sourceBatchFirstOffset(whole), sourceBatchFirstOffset(empty)],
    [7, 20, 42],
    'a batch without records starts where the fetch ended',
  );
});

test('a flow batch counts records and write items by its kind', () => {
  const records = decoded([mirrored(1), mirrored(2), mirrored(3)]);
  const whole = forwarded([raw(10, 5), raw(15, 2)]);
  assert.deepEqual([flowBatchRecordCount(records), flowBatchItemCount(records), flowBatchForwardedCount(records)], [3, 3, 0]);
  assert.deepEqual(
    [flowBatchRecordCount(whole), flowBatchItemCount(whole), flowBatchForwardedCount(whole)],
    [7, 2, 2],
    'one item per forwarded batch, its records counted',
  );
  const items: OutboundItem[] = [];
  pushFlowBatchItems(records, items);
  pushFlowBatchItems(whole, items);
  assert.deepEqual(items, [...records.records, ...whole.recordBatches], 'records, then forwarded batches, each in order');
});

test("the newest timestamp comes from the records or from each forwarded batch's maximum", () => {
  assert.equal(flowBatchNewestTimestamp(decoded([mirrored(1, 500), mirrored(2, 900), mirrored(3, 700)])), 900);
  assert.equal(flowBatchNewestTimestamp(forwarded([raw(0, 1, 300), raw(1, 1, 800), raw(2, 1, 100)])), 800);
  assert.equal(flowBatchNewestTimestamp(decoded([])), Number.NEGATIVE_INFINITY, 'no records: no latency to report');
});

test('offset pairs map each record to where the target put it, skipping refused items', () => {
  const pairs: [number, number][] = [];
  const sync = (tp: { topic: string; partition: number }, s: number, t: number): void => {
    assert.deepEqual(tp, source, 'pairs name the source partition');
    pairs.push([s, t]);
  };
  // Items 0-1 belong to an earlier batch of the same write.
  const offsets = Float64Array.from([0, 0, 50, -1, 52, 200, -1, 300]);
  let next = forEachOffsetPair(decoded([mirrored(5), mirrored(6), mirrored(7)]), offsets, 2, sync);
  assert.equal(next, 5);
  next = forEachOffsetPair(forwarded([raw(10, 3), raw(13, 2), raw(15, 2)]), offsets, next, sync);
  assert.equal(next, 8, 'one offset per forwarded batch');
  assert.deepEqual(pairs, [
    [5, 50],
    [7, 52],
    [10, 200],
    [11, 201],
    [12, 202],
    [15, 300],
    [16, 301],
  ]);
});

test('only decoded batches carry dead letters and failures', () => {
  const error = new RecordFailedError({ ...source, offset: 3 }, { kind: 'write' }, 'too large');
  const dead = [{ record: mirrored(3), error }];
  assert.equal(flowBatchDeadLetters(decoded([], { deadLetters: dead })), dead);
  assert.equal(flowBatchFailure(decoded([], { failure: error })), error);
  assert.equal(flowBatchDeadLetters(decoded([])), undefined);
  assert.equal(flowBatchFailure(forwarded([raw(0, 1)])), undefined);
  assert.equal(flowBatchDeadLetters(forwarded([raw(0, 1)])), undefined);
});
