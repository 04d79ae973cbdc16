import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlowStatusDocument, StatusDocument } from '../../telemetry';
import { renderRates } from './status-watch.action';

function doc(records: number, bytes: number, lag: number): StatusDocument {
  const flow = { name: 'primary->backup', replicating: true, records, bytes, lag } as unknown as FlowStatusDocument;
  return { pipeline: 'p', ready: true, flows: [flow] };
}

function row(text: string): string[] {
  return text
    .split('\n')[1]!
    .trim()
    .split(/\s{2,}/);
}

test('--watch rates: records/s and MB/s between two readings, and the time to catch up at the pace the lag shrinks', () => {
  const earlier = { at: 10_000, document: doc(1000, 1048576, 600) };
  const now = { at: 12_000, document: doc(3000, 5 * 1048576, 200) };
  assert.deepEqual(row(renderRates(now, earlier)), ['primary->backup', '1000', '2.00', '200', '1 s']);
  assert.deepEqual(row(renderRates(now, undefined)), ['primary->backup', '-', '-', '200', '-'], 'no rate from one reading');
  const growing = { at: 14_000, document: doc(3000, 5 * 1048576, 900) };
  assert.equal(row(renderRates(growing, now))[4], 'not catching up');
  const done = { at: 14_000, document: doc(3200, 5 * 1048576, 0) };
  assert.equal(row(renderRates(done, now))[4], 'caught up');
});
