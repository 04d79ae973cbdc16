import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowSnapshot } from '../../telemetry';
import { LiveTerminal, type LiveSample, renderLiveView } from './live-view';

const NOW = 1_000_000;

function flow(overrides: Partial<FlowSnapshot> = {}): FlowSnapshot {
  return {
    source: 'primary',
    target: 'backup',
    replicating: true,
    state: 'running',
    topics: 1,
    partitionsAssigned: 1,
    elected: true,
    recordsReplicated: 1000,
    recordsDropped: 0,
    bytesReplicated: 1048576,
    recordBatchesForwarded: 0,
    recordsReencoded: 0,
    topicsCreated: 0,
    writes: 1,
    lastReplicationLatencyMs: undefined,
    lastRecordAgeMs: undefined,
    partitions: [{ topic: 'orders', partition: 0, nextOffset: 1000, highWatermark: 1600, records: 1000, bytes: 1048576, lagSince: NOW - 12_000 }],
    buffer: undefined,
    checkpoints: {
      state: 'running',
      groups: 1,
      checkpointsWritten: 1,
      lastPassAt: NOW - 3000,
      lastCheckpointLatencyMs: 1,
      errors: 0,
      translationLag: [],
      groupSync: { enabled: false, groupsSynced: 0, offsetsCommitted: 0, skippedActive: 0, activeGroups: [], errors: 0 },
    },
    heartbeats: { state: 'running', written: 1, lastAt: NOW - 800, errors: 0 },
    acls: { state: 'disabled', created: 0, skipped: {}, errors: 0, lastPassAt: undefined },
    sourceResets: 0,
    recordsExpired: 0,
    recordsDeadLettered: 0,
    outages: [],
    retries: [],
    transformCounters: [],
    failure: undefined,
    ...overrides,
  };
}

function row(text: string, name = 'primary->backup'): string[] | undefined {
  return text
    .split('\n')
    .find((l) => l.startsWith(name))
    ?.split(/\s{2,}/)
    .slice(1);
}

test('live view: rates, lag, catch-up time and checkpoint and heartbeat age from two samples', () => {
  const before: LiveSample = {
    at: NOW - 2000,
    flows: [flow({ recordsReplicated: 0, bytesReplicated: 0, partitions: [{ ...flow().partitions[0]!, nextOffset: 0, highWatermark: 1000 }] })],
  };
  const now: LiveSample = { at: NOW, flows: [flow()] };
  const text = renderLiveView('mirrorflow run p', now, before);
  assert.equal(text.split('\n')[0], 'mirrorflow run p');
  assert.match(text, /^FLOW\s+STATE\s+RECORDS\s+RECORDS\/S\s+MB\/S\s+LAG\s+LAG-TIME\s+CATCH-UP\s+CHECKPOINT\s+HEARTBEAT$/m);
  // 1000 records and 1 MiB in 2 s; the lag shrank from 1000 to 600 (200/s), so 3 s to go.
  assert.deepEqual(row(text), ['running', '1000', '500', '0.50', '600', '12 s', '3 s', '3 s ago', '800 ms ago']);
});

test('live view: caught up, not catching up, the first sample, a heartbeats-only flow, and outages under way', () => {
  const caughtUp = flow({ partitions: [{ ...flow().partitions[0]!, nextOffset: 1600 }] });
  assert.deepEqual(row(renderLiveView('t', { at: NOW, flows: [caughtUp] }, undefined)), [
    'running',
    '1000',
    '-',
    '-',
    '0',
    '0 ms',
    'caught up',
    '3 s ago',
    '800 ms ago',
  ]);
  assert.deepEqual(row(renderLiveView('t', { at: NOW, flows: [flow()] }, { at: NOW - 1000, flows: [flow()] }))?.slice(2, 7), [
    '0',
    '0.00',
    '600',
    '12 s',
    'not catching up',
  ]);
  const outage = { cluster: 'backup', operation: 'writing records', since: NOW - 30_000, failures: 4, lastError: 'timed out' };
  const hbOnly = flow({ source: 'backup', target: 'primary', replicating: false, checkpoints: { ...flow().checkpoints, state: 'disabled' } });
  const text = renderLiveView('t', { at: NOW, flows: [flow({ outages: [outage] }), hbOnly] }, undefined);
  assert.deepEqual(row(text, 'backup->primary'), ['running', '-', '-', '-', '-', '-', '-', 'off', '800 ms ago']);
  assert.match(text, /^Failing, retrying:\n {2}primary->backup: backup: writing records for 30 s$/m);
});

test('live terminal: each frame replaces the last in place; text goes above the frame, which is drawn again', () => {
  let written = '';
  const out = Object.assign({ write: (chunk: string): boolean => ((written += chunk), true) }, { columns: 12 }) as unknown as NodeJS.WritableStream & {
    columns: number;
  };
  const terminal = new LiveTerminal(out);
  terminal.draw('one\ntwo\n');
  assert.equal(written, 'one\ntwo\n', 'nothing to erase the first time');
  written = '';
  terminal.draw('three\nfour is longer than the terminal\nfive\n');
  assert.equal(written, '\r\u001b[2A\u001b[Jthree\nfour is lon\nfive\n', 'up two lines, clear, draw; long lines cut');
  written = '';
  terminal.above('WARN something');
  assert.equal(written, '\r\u001b[3A\u001b[JWARN something\nthree\nfour is lon\nfive\n');
});
