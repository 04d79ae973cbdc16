import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slotOf, unheldSlots } from './slots';
import { murmur2, toPositive } from '../../formats';

test("a partition's slot is (murmur2(topic) + partition) mod the slot count: stable, and a topic's partitions take consecutive slots", () => {
  const base = toPositive(murmur2(Buffer.from('orders')));
  for (let p = 0; p < 10; p++) assert.equal(slotOf({ topic: 'orders', partition: p }, 4), (base + p) % 4);
  assert.equal(slotOf({ topic: 'orders', partition: 3 }, 4), slotOf({ topic: 'orders', partition: 3 }, 4));
  const slots = new Set(Array.from({ length: 4 }, (_, partition) => slotOf({ topic: 'orders', partition }, 4)));
  assert.equal(slots.size, 4, 'four partitions of one topic fill four slots');
});

test('one slot: everything in slot 0', () => {
  assert.equal(slotOf({ topic: 'x', partition: 17 }, 1), 0);
});

test('unheldSlots: nothing while the count is the stored one', () => {
  assert.deepEqual(unheldSlots(4, 4, [{ topic: 'orders', partition: 0 }]), []);
});

test('unheldSlots: a smaller count fences the ids beyond it and the ids below it that no partition maps to', () => {
  const partitions = [0, 1].map((partition) => ({ topic: 'orders', partition }));
  const held = new Set(partitions.map((tp) => slotOf(tp, 6)));
  const unheld = unheldSlots(8, 6, partitions);
  assert.deepEqual(
    unheld,
    [0, 1, 2, 3, 4, 5, 6, 7].filter((s) => !held.has(s)),
  );
  assert.ok(unheld.includes(6) && unheld.includes(7), 'ids beyond the new count');
  assert.equal(unheld.filter((s) => s < 6).length, 4, 'the four ids below the new count that neither partition maps to');
});

test('unheldSlots: a larger count, or none stored yet, fences every id below the count without partitions', () => {
  const partitions = [{ topic: 'orders', partition: 0 }];
  const held = slotOf(partitions[0]!, 8);
  assert.deepEqual(
    unheldSlots(4, 8, partitions),
    [0, 1, 2, 3, 4, 5, 6, 7].filter((s) => s !== held),
  );
  assert.deepEqual(unheldSlots(undefined, 8, partitions), unheldSlots(4, 8, partitions));
  assert.deepEqual(unheldSlots(undefined, 1, partitions), [], 'one slot: held by the one partition');
});
