/**
 * The exactly-once assignment of a flow's source partitions: whole slots to group members. A
 * slot (one transactional producer) is never split between members, so two members never write
 * through the same transactional id, and a slot's partitions move together.
 */
import type { TopicPartition } from './record';

/**
 * Each slot's partitions to one member: slots by partition count, largest first (then by slot
 * number), each to the member holding the fewest partitions so far (then the first by member id,
 * sorted, so every leader computes the same). Members are returned in id order, each with its
 * partitions in topic, partition order; a member may get none.
 */
export function assignSlots(
  memberIds: readonly string[],
  partitions: readonly TopicPartition[],
  slotOf: (tp: TopicPartition) => number,
): Map<string, TopicPartition[]> {
  const members = [...memberIds].sort();
  const result = new Map<string, TopicPartition[]>(members.map((m) => [m, []]));
  if (members.length === 0) return result;
  const slots = new Map<number, TopicPartition[]>();
  for (const tp of partitions) {
    const slot = slotOf(tp);
    let list = slots.get(slot);
    if (!list) slots.set(slot, (list = []));
    list.push(tp);
  }
  const ordered = [...slots].sort(([a, pa], [b, pb]) => pb.length - pa.length || a - b);
  for (const [, tps] of ordered) {
    let least = members[0]!;
    for (const m of members) if (result.get(m)!.length < result.get(least)!.length) least = m;
    result.get(least)!.push(...tps);
  }
  for (const tps of result.values()) tps.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  return result;
}
