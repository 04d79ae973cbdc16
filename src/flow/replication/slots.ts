/**
 * Slots of an exactly-once flow (`delivery: exactly_once`, `tasks`: MM2's `tasks.max`): a source
 * partition's slot is `(toPositive(murmur2(topic)) + partition) mod tasks`, so it never moves
 * while the slot count stays, and a topic's partitions spread over consecutive slots. Each slot
 * is one transactional producer, transactional id `<group>-<slot>`.
 */
import type { TopicPartition } from '../../core/record';
import { murmur2, toPositive } from '../../formats';

export function slotOf(tp: TopicPartition, slots: number): number {
  return (toPositive(murmur2(Buffer.from(tp.topic, 'utf8'))) + tp.partition) % slots;
}

/**
 * The transactional ids that no member holds under `count` but a process may still hold from
 * before (a zombie: stopped or cut off, left behind by its group): while the slot count is not
 * the one stored (`stored`; undefined before a count was first stored), every id below
 * `max(stored, count)` that none of the flow's `partitions` maps to. Nobody owns them, so fencing
 * them (an InitProducerId each) disturbs no one; an id a partition maps to is fenced by the claim
 * of the member it is assigned to. Empty while the count is the stored one: then a zombie's id is
 * its partitions' slot still, claimed by their owner.
 */
export function unheldSlots(stored: number | undefined, count: number, partitions: readonly TopicPartition[]): number[] {
  if (stored === count) return [];
  const held = new Set(partitions.map((tp) => slotOf(tp, count)));
  const unheld: number[] = [];
  for (let slot = 0; slot < Math.max(stored ?? 0, count); slot++) if (!held.has(slot)) unheld.push(slot);
  return unheld;
}
