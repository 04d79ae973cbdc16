/**
 * What a rebalance costs, from the target's append times (the remote topic is LogAppendTime, so a
 * record's timestamp is when the target took it): for an event (a process added or removed), the
 * longest time in which nothing was copied at all, nothing by each process, and nothing to each
 * partition, split by whether the partition kept its owner. Pure: rebalance-run.ts measures.
 */

/** A consumer group's assignment: member id → partitions of the one topic. */
export type GroupAssignment = ReadonlyMap<string, readonly number[]>;

export interface GapWindow {
  readonly from: number;
  readonly to: number;
}

/**
 * The longest interval within [from, to] that holds none of `times` (sorted, ms): the window's
 * ends count as points, so a series silent through the whole window gives its whole length.
 */
export function longestGap(times: readonly number[], window: GapWindow): number {
  let previous = window.from;
  let longest = 0;
  for (const t of times.slice(firstAtOrAfter(times, window.from))) {
    if (t > window.to) break;
    longest = Math.max(longest, t - previous);
    previous = t;
  }
  return Math.max(longest, window.to - previous);
}

function firstAtOrAfter(times: readonly number[], at: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (times[mid]! < at) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Several sorted series as one sorted series. */
export function mergeSorted(series: readonly (readonly number[])[]): number[] {
  return series.flat().sort((a, b) => a - b);
}

export interface Percentiles {
  readonly count: number;
  readonly median: number;
  readonly p90: number;
  readonly max: number;
}

export function percentiles(values: readonly number[]): Percentiles | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { count: sorted.length, median: at(0.5), p90: at(0.9), max: sorted[sorted.length - 1]! };
}

export interface ProcessGap {
  readonly member: string;
  /** Stayed through the event, joined in it, or left in it. */
  readonly role: 'stayed' | 'joined' | 'left';
  readonly partitionsBefore: number;
  readonly partitionsAfter: number;
  /** Partitions it owned before and after. */
  readonly kept: number;
  /** Longest time in the event window in which none of its partitions (before or after) took a record. */
  readonly idleMs: number;
}

export interface EventGaps {
  /** Longest time in the window in which the target took no record at all. */
  readonly globalIdleMs: number;
  readonly processes: readonly ProcessGap[];
  /** Each partition's longest gap in the window, for partitions whose owner stayed the same. */
  readonly keptPartitions: Percentiles | undefined;
  /** The same for partitions that moved to another member (or whose owner left). */
  readonly movedPartitions: Percentiles | undefined;
  /** Each partition's longest gap in the steady time before the event: what no event costs. */
  readonly baselinePartitions: Percentiles | undefined;
}

/**
 * `appends`: each partition's append times, sorted. `before` and `after`: the group's
 * assignment before the event and once it settled (a member keeps its id through rejoins).
 */
export function eventGaps(
  appends: ReadonlyMap<number, readonly number[]>,
  before: GroupAssignment,
  after: GroupAssignment,
  window: GapWindow,
  baseline: GapWindow,
): EventGaps {
  const ownerBefore = owners(before);
  const ownerAfter = owners(after);
  const partitions = [...new Set([...ownerBefore.keys(), ...ownerAfter.keys()])];
  const gapOf = (p: number): number => longestGap(appends.get(p) ?? [], window);
  const kept = partitions.filter((p) => ownerBefore.get(p) !== undefined && ownerBefore.get(p) === ownerAfter.get(p));
  const moved = partitions.filter((p) => !kept.includes(p));
  const members = [...new Set([...before.keys(), ...after.keys()])];
  const processes = members.map((member): ProcessGap => {
    const had = before.get(member) ?? [];
    const has = after.get(member) ?? [];
    const all = [...new Set([...had, ...has])];
    return {
      member,
      role: before.has(member) && after.has(member) ? 'stayed' : after.has(member) ? 'joined' : 'left',
      partitionsBefore: had.length,
      partitionsAfter: has.length,
      kept: had.filter((p) => has.includes(p)).length,
      idleMs: longestGap(mergeSorted(all.map((p) => appends.get(p) ?? [])), window),
    };
  });
  return {
    globalIdleMs: longestGap(mergeSorted([...appends.values()]), window),
    processes,
    keptPartitions: percentiles(kept.map(gapOf)),
    movedPartitions: percentiles(moved.map(gapOf)),
    baselinePartitions: percentiles(partitions.map((p) => longestGap(appends.get(p) ?? [], baseline))),
  };
}

function owners(assignment: GroupAssignment): Map<number, string> {
  const out = new Map<number, string>();
  for (const [member, partitions] of assignment) for (const p of partitions) out.set(p, member);
  return out;
}
