import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowStatus } from './flow-status';
import type { FlowBatch } from '../core/record';

const tp = { topic: 'orders', partition: 0 };

function written(nextOffset: number, highWatermark: number, count: number): FlowBatch {
  return { kind: 'records', source: tp, records: [], nextOffset, highWatermark, bytes: 0, sourceRecords: count };
}

test('lag counts a fetched partition before the target acknowledged anything of it', () => {
  const status = new FlowStatus('a', 'b');
  status.recordFetch(tp, 100, 1100);
  assert.equal(status.lag, 1000, 'a target refusing every write must not show a lag of 0');
  status.recordFetch(tp, 400, 1500);
  assert.equal(status.lag, 1400, 'later fetches raise the end, not the replicated position');
  status.recordWrite([written(600, 1500, 500)], Date.now());
  assert.equal(status.lag, 900, 'acknowledged records leave the lag');
});
