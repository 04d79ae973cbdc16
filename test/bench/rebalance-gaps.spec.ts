import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventGaps, longestGap, mergeSorted, percentiles } from './rebalance-gaps';

test('the longest gap counts the window ends, so a silent series gives the whole window', () => {
  assert.equal(longestGap([], { from: 100, to: 400 }), 300);
  assert.equal(longestGap([50, 150, 160, 390, 500], { from: 100, to: 400 }), 230);
  // A gap that began before the window counts from the window's start only.
  assert.equal(longestGap([0, 390], { from: 100, to: 400 }), 290);
  assert.equal(longestGap([110, 200, 300], { from: 100, to: 400 }), 100);
});

test('series merge in order; percentiles of nothing are undefined', () => {
  assert.deepEqual(mergeSorted([[1, 5], [2, 3], []]), [1, 2, 3, 5]);
  assert.equal(percentiles([]), undefined);
  assert.deepEqual(percentiles([4, 1, 3, 2]), { count: 4, median: 3, p90: 4, max: 4 });
});

test('an event: kept partitions, moved ones, each process and the whole target', () => {
  const every = (from: number, to: number, step: number): number[] => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);
  // Partitions 0 and 1 stay with a; 2 moves from b to c (a newcomer); 3 stays with b.
  // Everything pauses 1000-1500; partition 2 resumes only at 2500, on its new owner.
  const appends = new Map<number, number[]>([
    [0, [...every(0, 1000, 100), ...every(1500, 4000, 100)]],
    [1, [...every(0, 1000, 100), ...every(1500, 4000, 100)]],
    [2, [...every(0, 1000, 100), ...every(2500, 4000, 100)]],
    [3, [...every(0, 1000, 100), ...every(1500, 4000, 100)]],
  ]);
  const before = new Map([
    ['a', [0, 1]],
    ['b', [2, 3]],
  ]);
  const after = new Map([
    ['a', [0, 1]],
    ['b', [3]],
    ['c', [2]],
  ]);
  const gaps = eventGaps(appends, before, after, { from: 900, to: 4000 }, { from: 0, to: 900 });
  assert.equal(gaps.globalIdleMs, 500);
  assert.deepEqual(gaps.keptPartitions, { count: 3, median: 500, p90: 500, max: 500 });
  assert.deepEqual(gaps.movedPartitions, { count: 1, median: 1500, p90: 1500, max: 1500 });
  assert.equal(gaps.baselinePartitions?.max, 100);
  const byMember = new Map(gaps.processes.map((p) => [p.member, p]));
  assert.deepEqual(byMember.get('a'), { member: 'a', role: 'stayed', partitionsBefore: 2, partitionsAfter: 2, kept: 2, idleMs: 500 });
  assert.deepEqual(byMember.get('b'), { member: 'b', role: 'stayed', partitionsBefore: 2, partitionsAfter: 1, kept: 1, idleMs: 500 });
  assert.deepEqual(byMember.get('c'), { member: 'c', role: 'joined', partitionsBefore: 0, partitionsAfter: 1, kept: 0, idleMs: 1500 });
});
