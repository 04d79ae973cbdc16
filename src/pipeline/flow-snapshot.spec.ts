import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowBatch, MirrorRecord } from '../core/record';
import { FlowStatus } from '../flow/flow-status';
import { toFlowSnapshot } from './flow-snapshot';

function batch(partition: number, nextOffset: number, count: number, bytes: number): FlowBatch {
  const records = Array.from({ length: count }, (_, i): MirrorRecord => {
    const offset = nextOffset - count + i;
    return { source: { topic: 'orders', partition, offset }, topic: 'primary.orders', partition, timestamp: Date.now(), key: null, value: null, headers: [] };
  });
  return { source: { topic: 'orders', partition }, records, nextOffset, highWatermark: nextOffset + 5, bytes, sourceRecords: count };
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
  assert.equal('sourceResets' in snap, false, 'fields the status does not have are not made up');
  assert.equal('outage' in snap, false);
});

test('a heartbeats-only flow reports its heartbeats\' state, not replication\'s (which never starts)', () => {
  const status = new FlowStatus('backup', 'primary');
  status.heartbeats.state = 'running';
  assert.equal(status.state, 'starting');
  const snap = toFlowSnapshot(status, false);
  assert.equal(snap.replicating, false);
  assert.equal(snap.state, 'running');
});

test('fields some flow statuses add (source resets, dead letters, outage) are read when present', () => {
  const status = new FlowStatus('primary', 'backup');
  Object.assign(status, { sourceResets: 3, recordsDeadLettered: 7, outage: undefined });
  let snap = toFlowSnapshot(status, true);
  assert.equal(snap.sourceResets, 3);
  assert.equal(snap.recordsDeadLettered, 7);
  assert.equal('outage' in snap && snap.outage === undefined, true, 'tracked, and no outage now');
  Object.assign(status, { outage: { since: 1000, reason: 'NOT_ENOUGH_REPLICAS' } });
  snap = toFlowSnapshot(status, true);
  assert.deepEqual(snap.outage, { since: 1000, reason: 'NOT_ENOUGH_REPLICAS' });
});
