import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowBatch, MirrorRecord } from '../core/record';
import { FlowStatus } from '../flow/status/flow-status';
import { toFlowSnapshot } from './flow-snapshot';
import { silentLogger } from '../core/ports/logger';

function batch(partition: number, nextOffset: number, count: number, bytes: number): FlowBatch {
  const records = Array.from({ length: count }, (_, i): MirrorRecord => {
    const offset = nextOffset - count + i;
    return { source: { topic: 'orders', partition, offset }, topic: 'primary.orders', partition, timestamp: Date.now(), key: null, value: null, headers: [] };
  });
  return { kind: 'records', source: { topic: 'orders', partition }, records, nextOffset, highWatermark: nextOffset + 5, bytes, sourceRecords: count };
}

test('a snapshot carries per-partition positions with the records and bytes replicated from each', () => {
  const status = new FlowStatus('primary', 'backup');
  status.state = 'running';
  status.recordWrite([batch(0, 10, 10, 100), batch(1, 4, 4, 40)], Date.now());
  status.recordWrite([batch(0, 15, 5, 50)], Date.now());
  const snap = toFlowSnapshot(status, true);
  assert.equal(snap.state, 'running');
  assert.deepEqual(
    snap.partitions.map((p) => [p.partition, p.nextOffset, p.highWatermark, p.records, p.bytes]),
    [
      [0, 15, 20, 15, 150],
      [1, 4, 9, 4, 40],
    ],
  );
  assert.equal('outage' in snap, false);
});

test("a heartbeats-only flow reports its heartbeats' state, not replication's (which never starts)", () => {
  const status = new FlowStatus('backup', 'primary');
  status.heartbeats.state = 'running';
  assert.equal(status.state, 'starting');
  const snap = toFlowSnapshot(status, false);
  assert.equal(snap.replicating, false);
  assert.equal(snap.state, 'running');
});

test('source resets, dead letters and ongoing outages are copied', () => {
  const status = new FlowStatus('primary', 'backup');
  status.sourceResets = 3;
  status.recordsDeadLettered = 7;
  assert.deepEqual(toFlowSnapshot(status, true).outages, [], 'no outage now');
  let now = 1000;
  const tracker = status.outages.tracker('backup', 'writing records', silentLogger, () => now);
  tracker.failed(new Error('NOT_ENOUGH_REPLICAS'));
  now = 5000;
  tracker.failed(new Error('NOT_ENOUGH_REPLICAS'));
  const snap = toFlowSnapshot(status, true);
  assert.equal(snap.sourceResets, 3);
  assert.equal(snap.recordsDeadLettered, 7);
  assert.deepEqual(snap.outages, [{ cluster: 'backup', operation: 'writing records', since: 1000, failures: 2, lastError: 'NOT_ENOUGH_REPLICAS' }]);
});

test('a heartbeats-only flow on a process standing by for election is running (its heartbeats run elsewhere); elected, it reports them', () => {
  const status = new FlowStatus('backup', 'primary');
  status.campaigning = true;
  status.partitionsAssigned = 3;
  let snap = toFlowSnapshot(status, false);
  assert.equal(snap.state, 'running');
  assert.equal(snap.elected, false);
  assert.equal(snap.partitionsAssigned, 3);
  status.elected = true;
  status.heartbeats.state = 'failed';
  snap = toFlowSnapshot(status, false);
  assert.equal(snap.state, 'failed');
  assert.equal(snap.elected, true);
});
