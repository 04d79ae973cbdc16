import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, type Observable, defer, of, throwError } from 'rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { silentLogger } from '../../core/ports/logger';
import type { PartitionStart, WritePath } from '../../core/ports/write-path';
import type { TopicPartition } from '../../core/record';
import type { ProgressStore } from '../progress/progress-store';
import { FlowStatus } from '../status/flow-status';
import { VirtualClock } from '../virtual-clock';
import { ByteBudget } from './flow-control';
import { LogLifetimes } from './log-lifetimes';
import { ReplicatedPartitions } from './replicated-partitions';

const tp = (partition: number): TopicPartition => ({ topic: 'orders', partition });

function harness(options: { start?: 'earliest' | 'latest'; flushFails?: boolean; stored?: Record<number, number> } = {}) {
  const clock = new VirtualClock();
  const calls = {
    flushes: 0,
    disowned: 0,
    revoked: 0,
    reloaded: [] as number[][],
    starts: [] as PartitionStart[],
    stored: [] as string[],
    warned: [] as string[],
  };
  const progress = {
    reload: (partitions: readonly TopicPartition[]) => defer(() => (calls.reloaded.push(partitions.map((p) => p.partition)), EMPTY)),
    disown: () => void calls.disowned++,
    keep: () => undefined,
    nextOffset: (at: TopicPartition) => options.stored?.[at.partition],
  } as unknown as ProgressStore;
  const writePath = {
    assigning: () => EMPTY,
    assigned: () => EMPTY,
    revoked: () => void calls.revoked++,
    startAt: (start: PartitionStart) => (calls.starts.push(start), start.progress === undefined ? start.bySetting() : Promise.resolve(start.progress)),
    storeStart: async (at: TopicPartition, lastOffset: number, flush: () => Promise<void>) => {
      calls.stored.push(`${at.partition}@${lastOffset}`);
      await flush();
    },
  } as unknown as WritePath;
  const commits = {
    flush: (): Observable<void> => defer(() => (calls.flushes++, options.flushFails ? throwError(() => new Error('the target is down')) : of(undefined))),
  };
  const sourceAdmin = {
    partitionOffsets: () =>
      of([
        { partition: 0, earliest: 3, latest: 10 },
        { partition: 1, earliest: 0, latest: 0 },
      ]),
  } as unknown as ClusterAdmin;
  const status = new FlowStatus('primary', 'backup');
  const budget = new ByteBudget(1000, clock.scheduler);
  const logger = { ...silentLogger, warn: (message: string) => void calls.warned.push(message) } as Logger;
  let ready!: () => void;
  const partitions = new ReplicatedPartitions({
    settings: { start: options.start ?? 'earliest', autoOffsetReset: 'earliest' },
    sourceAdmin,
    progress,
    writePath,
    commits,
    lifetimes: new LogLifetimes(),
    names: { remote: (topic) => `primary.${topic}` },
    budget,
    ready: new Promise((resolve) => (ready = resolve)),
    loading: status.outages.tracker('backup', 'loading progress', silentLogger, () => clock.now),
    scheduler: clock.scheduler,
    logger,
    status,
  });
  return { clock, calls, partitions, budget, status, ready: () => ready() };
}

test('an assignment reads its progress once the flow is ready; a partition starts at its stored progress, else where `start` says', async () => {
  const h = harness({ stored: { 0: 7 } });
  h.partitions.assigned([tp(0), tp(1)], 4, async () => true);
  const first = h.partitions.startOffset(tp(0));
  await h.clock.advance(0);
  assert.deepEqual(h.calls.reloaded, [], 'not before the flow is ready');
  h.ready();
  assert.equal(await first, 7);
  const second = h.partitions.startOffset(tp(1));
  await h.clock.advance(0); // the source's offsets are read on the scheduler's next turn
  assert.equal(await second, 0, 'earliest of an empty partition');
  assert.deepEqual(h.calls.reloaded, [[0, 1]]);
  assert.equal(h.status.partitionsAssigned, 2);
  assert.equal(h.calls.starts[0]!.remote, 'primary.orders');
  assert.deepEqual(await h.calls.starts[1]!.sourceLog(), { partition: 1, earliest: 0, latest: 0 });
  assert.equal(await h.partitions.stillMember!(), true);
});

test('start: latest stores the start of the partitions assigned together in one flush; a position the flow fetched to stays', async () => {
  const h = harness({ start: 'latest' });
  h.ready();
  h.partitions.assigned([tp(0), tp(1)], 1, async () => true);
  const starts = Promise.all([h.partitions.startOffset(tp(0)), h.partitions.startOffset(tp(1))]);
  await h.clock.advance(0);
  assert.deepEqual(await starts, [10, 0]);
  assert.deepEqual(h.calls.stored, ['0@9', '1@-1'], "an empty partition's start is MM2's -1");
  assert.equal(h.calls.flushes, 1);
  assert.equal(await h.partitions.startOffset({ topic: 'orders', partition: 5 }), 0, 'a partition the topic does not list starts at 0');
  h.partitions.fetched({ kind: 'records', topic: 'orders', partition: 0, records: [], nextOffset: 12, highWatermark: 12, bytes: 0 });
  assert.equal(await h.partitions.startOffset(tp(0)), 12);
  h.partitions.close();
});

test('a rebalance waits for what is in flight, stores progress, then forgets the partitions', async () => {
  const h = harness();
  h.ready();
  h.partitions.assigned([tp(0)], 1, async () => true);
  await h.budget.acquire(100);
  const revoked = h.partitions.revoke();
  await h.clock.advance(1_000);
  assert.equal(h.calls.flushes, 0, 'not while bytes are in flight');
  h.budget.release(100);
  await revoked;
  assert.deepEqual([h.calls.flushes, h.calls.disowned, h.calls.revoked], [1, 1, 1]);
  assert.equal(h.status.partitionsAssigned, 0);
  assert.equal(h.partitions.stillMember, undefined);
  assert.deepEqual(h.calls.warned, []);
});

test('a rebalance abandons what is still in flight after 30 s, and goes on when progress cannot be stored', async () => {
  const h = harness({ flushFails: true });
  await h.budget.acquire(100);
  const revoked = h.partitions.revoke();
  await h.clock.advance(30_000);
  await revoked;
  assert.deepEqual(h.calls.warned, [
    'Rebalance: records still in flight are abandoned; the next owner copies them again.',
    'Rebalance: storing progress failed; the next owner copies those records again.',
  ]);
  assert.equal(h.calls.disowned, 1);
});
