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

test('offsets: preserve: how many partitions are preserved, and each that fell back with its offset and reason', () => {
  const preserving: FlowSnapshot = {
    ...flow,
    preservation: {
      fallbacks: 1,
      partitions: [
        { topic: 'orders', partition: 1, preserved: false, reason: 'the source has no records at offsets 60 to 60', fromOffset: 61, at: 1_000_000 },
        { topic: 'orders', partition: 0, preserved: true, since: 0 },
      ],
    },
  };
  const document = statusDocument('p1', [preserving], 1_005_000);
  assert.deepEqual(document.flows[0]!.offsets, {
    preserved: 1,
    fallbacks: [{ topic: 'orders', partition: 1, fromOffset: 61, reason: 'the source has no records at offsets 60 to 60', at: '1970-01-01T00:16:40.000Z' }],
  });
  const text = renderStatus(document, 1_005_000);
  assert.match(text, /^ {2}offsets preserved on 1 partitions, 1 fell back to translation$/m);
  assert.match(text, /^ {2}offsets not preserved: orders-1 from source offset 61: the source has no records at offsets 60 to 60$/m);
  assert.equal(statusDocument('p1', [flow], 1_005_000).flows[0]!.offsets, null, 'offsets: translate says nothing');
});

test('status URLs: a bare address or base URL means its /status', () => {
  assert.equal(statusUrl('127.0.0.1:9464'), 'http://127.0.0.1:9464/status');
  assert.equal(statusUrl('http://h:1/'), 'http://h:1/status');
  assert.equal(statusUrl('http://h:1/status'), 'http://h:1/status');
});
