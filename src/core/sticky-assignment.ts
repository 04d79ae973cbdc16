/**
 * A sticky assignment of a flow's source partitions to the processes of its group: each member
 * keeps what it held in the group's last generation as far as balance allows, and only what must
 * move moves (to a member that joined, from one that left, or off one above its share). Kafka's
 * StickyAssignor does the same for Java consumers; here the units are single partitions
 * (at-least-once) or an exactly-once flow's slots, whose partitions move together.
 */
import type { TopicPartition } from './record';

/** A member of the group as the leader sees it: what it says it held, and in which generation. */
export interface StickyMember {
  readonly id: string;
  /** The partitions it held in `generation` (none for a member that held nothing yet). */
  readonly owned: readonly TopicPartition[];
  /** The generation it held them in; -1 when it held none. */
  readonly generation: number;
}

interface Unit {
  readonly key: string | number;
  readonly partitions: TopicPartition[];
}

/**
 * The partitions of `partitions` to `members`, grouped in units by `unitOf` (every partition its
 * own by default; a slot for exactly-once) that are never split.
 *
 * Shares: the partitions divided evenly; where they do not divide, the members that held the most
 * get the one more. A member keeps the units it held while they fit its share, largest first (then
 * in key order); the rest, and every unit nobody held, go largest first to the member furthest
 * below its share (then the one holding least, then the first by id). With single partitions every
 * share is met exactly: counts differ by at most one. A unit two members say they held belongs to
 * the one that held it in the later generation (the other was left behind by the group), then to
 * the first by id. Deterministic: every leader computes the same from the same members.
 */
export function assignSticky(
  members: readonly StickyMember[],
  partitions: readonly TopicPartition[],
  unitOf: (tp: TopicPartition) => string | number = (tp) => `${tp.topic}\u0000${tp.partition}`,
): Map<string, TopicPartition[]> {
  const ordered = [...members].sort((a, b) => compare(a.id, b.id));
  const result = new Map<string, TopicPartition[]>(ordered.map((m) => [m.id, []]));
  if (ordered.length === 0) return result;

  const units = new Map<string | number, Unit>();
  for (const tp of partitions) {
    const key = unitOf(tp);
    let unit = units.get(key);
    if (unit === undefined) units.set(key, (unit = { key, partitions: [] }));
    unit.partitions.push(tp);
  }
  // Who held each unit: the claim of the latest generation wins.
  const holder = new Map<string | number, StickyMember>();
  for (const member of ordered) {
    for (const tp of member.owned) {
      const key = unitOf(tp);
      if (!units.has(key)) continue;
      const other = holder.get(key);
      if (other === undefined || member.generation > other.generation) holder.set(key, member);
    }
  }
  const claimed = new Map<string, Unit[]>(ordered.map((m) => [m.id, []]));
  for (const [key, member] of holder) claimed.get(member.id)!.push(units.get(key)!);

  // Shares: the members that held the most take the remainder, so fewer partitions move.
  const total = partitions.length;
  const base = Math.floor(total / ordered.length);
  const weightOf = (list: readonly Unit[]): number => list.reduce((sum, u) => sum + u.partitions.length, 0);
  const byClaims = [...ordered].sort((a, b) => weightOf(claimed.get(b.id)!) - weightOf(claimed.get(a.id)!) || compare(a.id, b.id));
  const share = new Map(byClaims.map((m, i) => [m.id, base + (i < total % ordered.length ? 1 : 0)]));

  const load = new Map(ordered.map((m) => [m.id, 0]));
  const give = (member: string, unit: Unit): void => {
    result.get(member)!.push(...unit.partitions);
    load.set(member, load.get(member)! + unit.partitions.length);
  };
  const pool: Unit[] = [...units.values()].filter((u) => !holder.has(u.key));
  for (const member of ordered) {
    for (const unit of claimed.get(member.id)!.sort(largestFirst)) {
      if (load.get(member.id)! + unit.partitions.length <= share.get(member.id)!) give(member.id, unit);
      else pool.push(unit);
    }
  }
  const room = (id: string): number => share.get(id)! - load.get(id)!;
  for (const unit of pool.sort(largestFirst)) {
    let best = ordered[0]!.id;
    for (const { id } of ordered) {
      if (room(id) > room(best) || (room(id) === room(best) && load.get(id)! < load.get(best)!)) best = id;
    }
    // A unit of several partitions that fits nowhere whole stays with its holder when that costs
    // the balance less than one more partition than the move would: a slot is not moved to make
    // two members' counts differ by a partition less.
    const held = holder.get(unit.key)?.id;
    if (held !== undefined && held !== best && room(held) >= room(best) - (unit.partitions.length - 1)) best = held;
    give(best, unit);
  }
  for (const tps of result.values()) tps.sort((a, b) => compare(a.topic, b.topic) || a.partition - b.partition);
  return result;
}

function largestFirst(a: Unit, b: Unit): number {
  return b.partitions.length - a.partitions.length || compare(a.key, b.key);
}

function compare(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
