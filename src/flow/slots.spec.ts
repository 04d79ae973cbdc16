import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slotOf } from './slots';
import { murmur2, toPositive } from '../formats';

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
