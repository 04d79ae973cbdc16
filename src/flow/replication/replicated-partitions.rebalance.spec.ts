/**
 * ReplicatedPartitions through rebalances: which partitions a member keeps from one generation to
 * the next (their positions, no progress read for them), and when it keeps none.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, Observable, defer, of, throwError } from '#rxjs';
import { silentLogger } from '../../core/ports/logger';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { WritePath } from '../../core/ports/write-path';
import { topicPartitionKey, type SourceBatch, type TopicPartition } from '../../core/record';
import type { ProgressStore } from '../progress/progress-store';
import { FlowStatus } from '../status/flow-status';
import { OutageStatus, OutageTracker } from '../status/outage-status';
import { VirtualClock } from '../virtual-clock';
import { ByteBudget } from './flow-control';
import { LogLifetimes } from './log-lifetimes';
import { ReplicatedPartitions } from './replicated-partitions';

const tp = (partition: number): TopicPartition => ({ topic: 't', partition });
const batch = (partition: number, nextOffset: number): SourceBatch => ({
  kind: 'records',
  topic: 't',
  partition,
  records: [],
  nextOffset,
  highWatermark: nextOffset,
  bytes: 0,
});

function harness(options: { flushFails?: boolean; claim?: Observable<never> } = {}) {
  const clock = new VirtualClock();
  const reloads: string[][] = [];
  const kept: string[][] = [];
  const stored = new Map<string, number>([
    ['t-0', 10],
    ['t-1', 20],
    ['t-2', 30],
    ['t-3', 40],
  ]);
  let reloading: Promise<void> = Promise.resolve();
  const progress = {
    reload: (partitions: readonly TopicPartition[]) =>
      defer(async () => {
        reloads.push(partitions.map(topicPartitionKey));
        await reloading;
      }),
    keep: (partitions: readonly TopicPartition[]) => void kept.push(partitions.map(topicPartitionKey)),
    disown: () => undefined,
    nextOffset: (p: TopicPartition) => stored.get(topicPartitionKey(p)),
  } as unknown as ProgressStore;
  const writePath = {
    assigning: () => options.claim ?? EMPTY,
    assigned: () => EMPTY,
    revoked: () => undefined,
    startAt: (start: { progress: number | undefined }) => Promise.resolve(start.progress ?? 0),
  } as unknown as WritePath;
  const budget = new ByteBudget(1 << 20, clock.scheduler);
  const status = new FlowStatus('primary', 'backup');
  const partitions = new ReplicatedPartitions({
    settings: { start: 'earliest', autoOffsetReset: 'earliest', drainTimeoutMs: 5_000 },
    sourceAdmin: { partitionOffsets: () => of([]) } as unknown as ClusterAdmin,
    progress,
    writePath,
    commits: { flush: () => (options.flushFails ? throwError(() => new Error('target down')) : EMPTY) },
    lifetimes: new LogLifetimes(),
    names: { remote: (topic) => `primary.${topic}` },
    budget,
    ready: Promise.resolve(),
    loading: new OutageTracker(new OutageStatus(), 'backup', 'Loading progress', silentLogger, () => clock.now),
    scheduler: clock.scheduler,
    logger: silentLogger,
    status,
  });
  const member = () => Promise.resolve(true);
  return {
    clock,
    partitions,
    budget,
    reloads,
    kept,
    member,
    /** Progress reads of what is assigned next stay open until the returned function is called. */
    holdReloads: (): (() => void) => {
      let release!: () => void;
      reloading = new Promise((resolve) => (release = resolve));
      return release;
    },
  };
}

describe('ReplicatedPartitions through rebalances', () => {
  test('a clean revoke, then the next generation: the partitions it keeps read on from their positions, no progress read', async () => {
    const h = harness();
    assert.deepEqual(h.partitions.assigned([tp(0), tp(1), tp(2)], 4, h.member), []);
    await h.clock.advance(0);
    assert.deepEqual(h.reloads, [['t-0', 't-1', 't-2']]);
    h.partitions.fetched(batch(0, 15));
    h.partitions.fetched(batch(2, 33));
    await h.partitions.revoke();
    // Partition 2 moved away; 0 and 1 stay.
    const kept = h.partitions.assigned([tp(0), tp(1)], 5, h.member);
    assert.deepEqual(kept, [{ topic: 't', partition: 0, nextOffset: 15 }], 'only a partition with a position is fetched from there');
    assert.deepEqual(h.kept.at(-1), ['t-0', 't-1']);
    await h.clock.advance(0);
    assert.equal(h.reloads.length, 1, 'nothing new: progress is not read again');
    assert.equal(await h.partitions.startOffset(tp(0)), 15);
    assert.equal(await h.partitions.startOffset(tp(1)), 20, 'kept without a position: its stored progress, as this member knows it');
  });

  test('kept partitions do not wait for the progress of the partitions that came with them', async () => {
    const h = harness();
    h.partitions.assigned([tp(0), tp(1)], 1, h.member);
    h.partitions.fetched(batch(0, 12));
    await h.partitions.revoke();
    const release = h.holdReloads();
    h.partitions.assigned([tp(0), tp(3)], 2, h.member);
    await h.clock.advance(0);
    assert.deepEqual(h.reloads.at(-1), ['t-0', 't-3'], 'the new partition is read for');
    assert.equal(await h.partitions.startOffset(tp(0)), 12, 'the kept one starts at once');
    let newStarted = false;
    const started = h.partitions.startOffset(tp(3)).then((offset) => ((newStarted = true), offset));
    await h.clock.advance(0);
    assert.equal(newStarted, false, 'the new one waits for its progress');
    release();
    assert.equal(await started, 40);
  });

  test('nothing is kept when the next generation does not follow on, the drain timed out or progress was not stored', async () => {
    const jump = harness();
    jump.partitions.assigned([tp(0)], 1, jump.member);
    jump.partitions.fetched(batch(0, 12));
    await jump.partitions.revoke();
    assert.deepEqual(jump.partitions.assigned([tp(0)], 3, jump.member), [], 'a generation went by without this member');
    await jump.clock.advance(0);
    assert.equal(jump.reloads.length, 2);
    assert.equal(await jump.partitions.startOffset(tp(0)), 10, 'from stored progress, not the old position');

    const stuck = harness();
    stuck.partitions.assigned([tp(0)], 1, stuck.member);
    stuck.partitions.fetched(batch(0, 12));
    await stuck.budget.acquire(100);
    const revoked = stuck.partitions.revoke();
    await stuck.clock.advance(5_000);
    await revoked;
    assert.deepEqual(stuck.partitions.assigned([tp(0)], 2, stuck.member), [], 'records in flight were abandoned');
    assert.equal(await stuck.partitions.startOffset(tp(0)), 10);

    const unstored = harness({ flushFails: true });
    unstored.partitions.assigned([tp(0)], 1, unstored.member);
    unstored.partitions.fetched(batch(0, 12));
    await unstored.partitions.revoke();
    assert.deepEqual(unstored.partitions.assigned([tp(0)], 2, unstored.member), []);
  });

  test('a second revoke without an assignment between keeps what the first found; a new consumer keeps nothing', async () => {
    const h = harness();
    h.partitions.assigned([tp(0)], 1, h.member);
    h.partitions.fetched(batch(0, 12));
    await h.partitions.revoke();
    await h.partitions.revoke();
    // The join that failed formed generation 2 without this member's assignment: 3 does not follow on.
    assert.deepEqual(h.partitions.assigned([tp(0)], 3, h.member), []);

    const restarted = harness();
    restarted.partitions.assigned([tp(0)], 1, restarted.member);
    restarted.partitions.fetched(batch(0, 12));
    await restarted.partitions.revoke();
    restarted.partitions.following([{ source: 't', target: 'primary.t', partitions: 4 }]);
    assert.deepEqual(restarted.partitions.assigned([tp(0)], 2, restarted.member), [], 'another member of the group now');
  });

  test('exactly-once: a kept partition starts once the write path claimed the assignment', async () => {
    let claimed!: () => void;
    const claim = new Observable<never>((subscriber) => {
      claimed = () => subscriber.complete();
    });
    const h = harness({ claim });
    h.partitions.assigned([tp(0)], 1, h.member);
    await h.clock.advance(0);
    claimed();
    h.partitions.fetched(batch(0, 12));
    await h.partitions.revoke();
    assert.deepEqual(h.partitions.assigned([tp(0)], 2, h.member), [{ topic: 't', partition: 0, nextOffset: 12 }]);
    let started = false;
    const start = h.partitions.startOffset(tp(0)).then((offset) => ((started = true), offset));
    await h.clock.advance(0);
    assert.equal(started, false, 'not before its slot is claimed again');
    claimed();
    assert.equal(await start, 12);
  });
});
