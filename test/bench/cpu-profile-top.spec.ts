import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topSelfTime, type CpuProfile } from './cpu-profile-top';

const frame = (functionName: string): { functionName: string; url: string; lineNumber: number; columnNumber: number } => ({
  functionName,
  url: 'file:///app/x.js',
  lineNumber: 0,
  columnNumber: 0,
});

/** One second per sample: `start` for 3 s, then `idle` work for 2 s, then 1 s waiting. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(idle)') },
    { id: 2, callFrame: frame('start') },
    { id: 3, callFrame: frame('poll') },
  ],
  startTime: 0,
  endTime: 6e6,
  samples: [2, 2, 2, 3, 3, 1],
  timeDeltas: [1e6, 1e6, 1e6, 1e6, 1e6, 1e6],
};

test('self time over the whole profile, and over a window of it', () => {
  const names = (r: ReturnType<typeof topSelfTime>): [string, number][] => r.functions.map((f) => [f.name, f.ms]);
  assert.deepEqual(names(topSelfTime(profile, 5)), [
    ['start', 3000],
    ['poll', 2000],
    ['(idle)', 1000],
  ]);
  // Samples at 4, 5 and 6 s since the start (each charged the second before it).
  const late = topSelfTime(profile, 5, { fromS: 3.5 });
  assert.deepEqual(names(late), [
    ['poll', 2000],
    ['(idle)', 1000],
  ]);
  assert.deepEqual([late.totalMs, late.idleMs], [3000, 1000]);
  assert.deepEqual(names(topSelfTime(profile, 5, { fromS: 1.5, toS: 4.5 })), [
    ['start', 2000],
    ['poll', 1000],
  ]);
});
