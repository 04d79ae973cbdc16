import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assignSticky, type StickyMember } from './sticky-assignment';
import type { TopicPartition } from './record';

const partitions = (topic: string, count: number): TopicPartition[] => Array.from({ length: count }, (_, partition) => ({ topic, partition }));
const key = (tp: TopicPartition): string => `${tp.topic}-${tp.partition}`;

/** Members that say they held what `assignment` gave them, in `generation`. */
function claims(assignment: ReadonlyMap<string, readonly TopicPartition[]>, generation: number): StickyMember[] {
  return [...assignment].map(([id, owned]) => ({ id, owned, generation }));
}

function fresh(...ids: string[]): StickyMember[] {
  return ids.map((id) => ({ id, owned: [], generation: -1 }));
}

/** Every partition once, and member counts within one of each other. */
function assertBalanced(assignment: ReadonlyMap<string, readonly TopicPartition[]>, all: readonly TopicPartition[]): void {
  const given = [...assignment.values()].flat().map(key);
  assert.equal(given.length, all.length, 'every partition assigned');
  assert.equal(new Set(given).size, all.length, 'no partition twice');
  const counts = [...assignment.values()].map((tps) => tps.length);
  assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `balanced: ${counts.join(', ')}`);
}

/** Partitions whose owner in `after` differs from their owner in `before`. */
function moved(before: ReadonlyMap<string, readonly TopicPartition[]>, after: ReadonlyMap<string, readonly TopicPartition[]>): string[] {
  const owner = new Map<string, string>();
  for (const [m, tps] of before) for (const tp of tps) owner.set(key(tp), m);
  return [...after].flatMap(([m, tps]) => tps.filter((tp) => owner.get(key(tp)) !== m).map(key));
}

const all = [...partitions('a', 150), ...partitions('b', 50)];

test('a new group: every partition once, members within one partition of each other', () => {
  assertBalanced(assignSticky(fresh('m1', 'm2', 'm3'), all), all);
  assertBalanced(assignSticky(fresh('m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'), partitions('t', 3)), partitions('t', 3));
});

test('the same members with what they held: nothing moves', () => {
  const first = assignSticky(fresh('m1', 'm2', 'm3'), all);
  const again = assignSticky(claims(first, 1), all);
  assert.deepEqual(moved(first, again), []);
  assert.deepEqual([...again], [...first]);
});

test('a member joins: it gets its share, taken from the others; nothing else moves', () => {
  const three = assignSticky(fresh('m1', 'm2', 'm3'), all);
  const four = assignSticky([...claims(three, 5), ...fresh('m4')], all);
  assertBalanced(four, all);
  assert.equal(four.get('m4')!.length, 50);
  // Only what the newcomer took moved: the fewest moves a balanced assignment allows.
  assert.deepEqual(moved(three, four).sort(), four.get('m4')!.map(key).sort());
  for (const m of ['m1', 'm2', 'm3']) {
    const before = new Set(three.get(m)!.map(key));
    assert.ok(
      four.get(m)!.every((tp) => before.has(key(tp))),
      `${m} only gave partitions up`,
    );
  }
});

test('a member leaves: only its partitions move, spread over the others', () => {
  const four = assignSticky(fresh('m1', 'm2', 'm3', 'm4'), all);
  const three = assignSticky(
    claims(four, 7).filter((m) => m.id !== 'm2'),
    all,
  );
  assertBalanced(three, all);
  assert.deepEqual(moved(four, three).sort(), four.get('m2')!.map(key).sort());
  for (const m of ['m1', 'm3', 'm4']) {
    const now = new Set(three.get(m)!.map(key));
    assert.ok(
      four.get(m)!.every((tp) => now.has(key(tp))),
      `${m} kept everything it had`,
    );
  }
});

test('a member replaced (one leaves, one joins in the same rebalance): the newcomer takes over what was left', () => {
  const three = assignSticky(fresh('m1', 'm2', 'm3'), all);
  const next = assignSticky([...claims(three, 2).filter((m) => m.id !== 'm1'), ...fresh('m9')], all);
  assertBalanced(next, all);
  assert.deepEqual(moved(three, next).sort(), three.get('m1')!.map(key).sort());
});

test('the same on every leader, whatever the order of the members', () => {
  const three = assignSticky(fresh('m1', 'm2', 'm3'), all);
  const members = [...claims(three, 3), ...fresh('m4', 'm0')];
  assert.deepEqual([...assignSticky(members, all)], [...assignSticky([...members].reverse(), all)]);
});

test('two members say they held a partition: the later generation wins', () => {
  const tp = { topic: 't', partition: 0 };
  const assignment = assignSticky(
    [
      { id: 'stale', owned: [tp], generation: 3 },
      { id: 'current', owned: [tp], generation: 4 },
    ],
    partitions('t', 2),
  );
  assert.deepEqual(assignment.get('current'), [tp]);
  assert.deepEqual(assignment.get('stale'), [{ topic: 't', partition: 1 }]);
});

test('claims of partitions that are gone are ignored; new partitions are shared out', () => {
  const assignment = assignSticky(
    [
      { id: 'm1', owned: [...partitions('gone', 5), ...partitions('t', 2)], generation: 1 },
      { id: 'm2', owned: [{ topic: 't', partition: 2 }], generation: 1 },
    ],
    partitions('t', 6),
  );
  assertBalanced(assignment, partitions('t', 6));
  assert.deepEqual(assignment.get('m1')!.slice(0, 2), partitions('t', 2));
  assert.ok(assignment.get('m2')!.some((tp) => tp.partition === 2));
});

test('slots: never split, kept by their holder, balanced by partition count', () => {
  const slotOf = (tp: TopicPartition): number => tp.partition % 10;
  const tps = partitions('t', 40);
  const two = assignSticky(fresh('m1', 'm2'), tps, slotOf);
  const three = assignSticky([...claims(two, 1), ...fresh('m3')], tps, slotOf);
  for (const assignment of [two, three]) {
    const owner = new Map<number, string>();
    for (const [m, owned] of assignment) {
      for (const tp of owned) {
        assert.equal(owner.get(slotOf(tp)) ?? m, m, `slot ${slotOf(tp)} split`);
        owner.set(slotOf(tp), m);
      }
    }
  }
  assert.deepEqual(
    [...three.values()].map((t) => t.length),
    [16, 12, 12],
  );
  // The newcomer's slots came from the others; no slot moved between the two that stayed.
  assert.deepEqual(moved(two, three).sort(), three.get('m3')!.map(key).sort());
});

test('no members: nothing assigned', () => {
  assert.equal(assignSticky([], all).size, 0);
});
