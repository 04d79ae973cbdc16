import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assignSlots } from './slot-assignment';
import type { TopicPartition } from './record';

const partitions = (topic: string, count: number): TopicPartition[] => Array.from({ length: count }, (_, partition) => ({ topic, partition }));
const bySlot = (slots: number) => (tp: TopicPartition) => tp.partition % slots;

test('a slot is never split: every partition of a slot goes to one member', () => {
  const tps = [...partitions('a', 12), ...partitions('b', 7)];
  const assignment = assignSlots(['m3', 'm1', 'm2'], tps, bySlot(5));
  const owner = new Map<number, string>();
  for (const [member, owned] of assignment) {
    for (const tp of owned) {
      const slot = tp.partition % 5;
      assert.equal(owner.get(slot) ?? member, member, `slot ${slot} has two owners`);
      owner.set(slot, member);
    }
  }
  assert.equal([...assignment.values()].flat().length, tps.length, 'every partition assigned once');
});

test('slots are balanced by partition count, largest first', () => {
  // Slot sizes 4, 3, 3, 2 over two members: 4+2 and 3+3.
  const slotOf = (tp: TopicPartition) => [0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3][tp.partition]!;
  const assignment = assignSlots(['b', 'a'], partitions('t', 12), slotOf);
  assert.deepEqual(
    [...assignment].map(([m, tps]) => [m, tps.length]),
    [
      ['a', 6],
      ['b', 6],
    ],
  );
});

test('the same on every leader: member order does not matter; extra members get nothing', () => {
  const tps = partitions('t', 6);
  const one = assignSlots(['x', 'y', 'z', 'w'], tps, bySlot(3));
  const two = assignSlots(['w', 'z', 'y', 'x'], tps, bySlot(3));
  assert.deepEqual([...one], [...two]);
  assert.equal([...one.values()].filter((owned) => owned.length === 0).length, 1, 'three slots, four members: one idle');
});

test('no members: nothing assigned', () => {
  assert.equal(assignSlots([], partitions('t', 3), bySlot(2)).size, 0);
});
