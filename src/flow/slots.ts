/**
 * Slots of an exactly-once flow (`delivery: exactly_once`, `tasks`: MM2's `tasks.max`): a source
 * partition's slot is `(toPositive(murmur2(topic)) + partition) mod tasks`, so it never moves
 * while the slot count stays, and a topic's partitions spread over consecutive slots. Each slot
 * is one transactional producer, transactional id `<group>-<slot>`.
 */
import type { TopicPartition } from '../core/record';
import { murmur2, toPositive } from '../formats';

export function slotOf(tp: TopicPartition, slots: number): number {
  return (toPositive(murmur2(Buffer.from(tp.topic, 'utf8'))) + tp.partition) % slots;
}
