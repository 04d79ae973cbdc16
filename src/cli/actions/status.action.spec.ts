import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowSnapshot } from '../../telemetry';
import { statusDocument } from '../../telemetry/status-document';
import { renderStatus, statusUrl } from './status.action';

const flow: FlowSnapshot = {
  source: 'primary',
  target: 'backup',
  replicating: true,
  state: 'running',
  topics: 1,
  partitionsAssigned: 1,
  elected: true,
  recordsReplicated: 70,
  recordsDropped: 0,
  bytesReplicated: 700,
  recordBatchesForwarded: 0,
  recordsReencoded: 5,
  topicsCreated: 1,
  writes: 2,
  lastReplicationLatencyMs: 9,
  lastRecordAgeMs: 15,
  transformCounters: [],
  failure: undefined,
  partitions: [{ topic: 'orders', partition: 0, nextOffset: 70, highWatermark: 75, records: 70, bytes: 700, lagSince: 0 }],
  buffer: undefined,
  sourceResets: 0,
  recordsDeadLettered: 0,
  outages: [],
  retries: [],
  checkpoints: {
    state: 'running',
    groups: 2,
    checkpointsWritten: 4,
    lastPassAt: 1_000_000,
    lastCheckpointLatencyMs: 3,
    errors: 0,
    translationLag: [],
    groupSync: { enabled: true, groupsSynced: 0, offsetsCommitted: 0, skippedActive: 1, activeGroups: ['billing'], errors: 0 },
  },
  heartbeats: { state: 'running', written: 10, lastAt: 1_004_000, errors: 0 },
  acls: { state: 'disabled', created: 0, skipped: {}, errors: 0, lastPassAt: undefined },
};

test('the table shows each flow with its lag, then its partitions and the groups skipped as active', () => {
  const text = renderStatus(statusDocument('p1', [flow], 1_005_000), 1_005_000);
  assert.match(text, /^Pipeline p1: ready$/m);
  assert.match(
    text,
    /^primary->backup\s+running\s+1\s+70\s+5\s+9 ms\s+running, 2 groups, last 1970-01-01T00:16:40.000Z \(5s ago\)\s+running, last .*\(1s ago\)$/m,
  );
  assert.match(text, /^\s+orders\s+0\s+70\s+75\s+5\s+70$/m);
  assert.match(text, /groups not synced because active on backup: billing/);
});

test('status URLs: a bare address or base URL means its /status', () => {
  assert.equal(statusUrl('127.0.0.1:9464'), 'http://127.0.0.1:9464/status');
  assert.equal(statusUrl('http://h:1/'), 'http://h:1/status');
  assert.equal(statusUrl('http://h:1/status'), 'http://h:1/status');
});
