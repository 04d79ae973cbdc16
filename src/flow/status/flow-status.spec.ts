import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowStatus } from './flow-status';
import type { FlowBatch, MirrorRecord } from '../../core/record';
import { KafkaTransportError, RecordFailedError } from '../../core/errors';
import { silentLogger } from '../../core/ports/logger';

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

function at(nextOffset: number, highWatermark: number, timestamp: number): FlowBatch {
  const record = { topic: 'a.orders', key: null, value: null, headers: [], timestamp } as unknown as MirrorRecord;
  return { kind: 'records', source: tp, records: [record], nextOffset, highWatermark, bytes: 1, sourceRecords: 1 };
}

test('lag in time counts from the newest record replicated, or from when the partition was last caught up', () => {
  const status = new FlowStatus('a', 'b');
  const p = (): { lagSince: number } => status.partitions.get('orders-0')!;
  status.recordFetch(tp, 0, 100, 1_000);
  assert.equal(p().lagSince, 1_000, 'a backlog from the start: since the first fetch');
  status.recordWrite([at(50, 100, 900)], 2_000);
  assert.equal(p().lagSince, 1_000, 'a record older than the first fetch does not move it back');
  status.recordWrite([at(80, 100, 1_500)], 3_000);
  assert.equal(p().lagSince, 1_500, 'what came after the newest replicated record is what waits');
  status.recordWrite([at(100, 100, 1_600)], 4_000);
  assert.equal(p().lagSince, 4_000, 'caught up');
  status.recordFetch(tp, 100, 110, 9_000, 8_500);
  assert.equal(p().lagSince, 8_500, 'a fetch that finds a caught-up partition behind: its first record is the oldest waiting');
  status.recordFetch(tp, 110, 120, 9_500, 9_400);
  assert.equal(p().lagSince, 8_500, 'a later fetch of a lagging partition does not make the lag younger');
});

test("errors are counted by kind and by the cluster they concern: a transform's on the source, a refusal on the target", () => {
  const status = new FlowStatus('a', 'b');
  const source = { topic: 'orders', partition: 0, offset: 3 };
  status.recordError(new RecordFailedError(source, { kind: 'transform', plugin: 'mask', step: '0' }, 'boom'));
  status.recordError(new RecordFailedError(source, { kind: 'transform', plugin: 'mask', step: '0' }, 'boom'));
  status.recordError(new RecordFailedError(source, { kind: 'write' }, 'too large'));
  status.outages.tracker('b', 'writing records', silentLogger, () => 0).failed(new KafkaTransportError('b', 'timed out', true));
  assert.deepEqual(status.errors.values(), [
    { kind: 'record-refused', cluster: 'b', count: 1 },
    { kind: 'transform-failed', cluster: 'a', count: 2 },
    { kind: 'transport-retriable', cluster: 'b', count: 1 },
  ]);
});
