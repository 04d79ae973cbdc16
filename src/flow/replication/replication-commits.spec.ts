import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, asyncScheduler, lastValueFrom, throwError } from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import { silentLogger } from '../../core/ports/logger';
import type { WritePath } from '../../core/ports/write-path';
import type { FlowBatch, MirrorRecord, TopicPartition } from '../../core/record';
import type { OffsetSyncEmitter } from '../progress/offset-sync-emitter';
import type { ProgressStore } from '../progress/progress-store';
import { FlowStatus } from '../status/flow-status';
import { ByteBudget } from './flow-control';
import { ReplicationCommits } from './replication-commits';

const record = (partition: number, offset: number): MirrorRecord => ({
  source: { topic: 'orders', partition, offset },
  topic: 'primary.orders',
  partition,
  timestamp: 0,
  key: null,
  value: Buffer.from('v'),
  headers: [],
});

const batch = (partition: number, offsets: readonly number[]): FlowBatch => ({
  kind: 'records',
  source: { topic: 'orders', partition },
  records: offsets.map((o) => record(partition, o)),
  nextOffset: offsets.at(-1)! + 1,
  highWatermark: 100,
  bytes: 10,
  sourceRecords: offsets.length,
});

function harness(options: { lost?: FlowBatch; oldLog?: FlowBatch; syncsFail?: boolean } = {}) {
  const marked: string[] = [];
  const syncs: string[] = [];
  const debug: string[] = [];
  const progress = { markReplicated: (tp: TopicPartition, offset: number) => void marked.push(`${tp.partition}@${offset}`) } as unknown as ProgressStore;
  const writePath = {
    commits: (b: FlowBatch) => b !== options.lost,
    acknowledged: () => undefined,
  } as unknown as WritePath;
  const emitter = {
    record: (tp: TopicPartition, sourceOffset: number, targetOffset: number) => void syncs.push(`${tp.partition}: ${sourceOffset}→${targetOffset}`),
    emitPending: () => (options.syncsFail ? throwError(() => new Error('the target is down')) : EMPTY),
  } as unknown as OffsetSyncEmitter;
  const budget = new ByteBudget(1000);
  const status = new FlowStatus('primary', 'backup');
  const logger = { ...silentLogger, debug: (message: string) => void debug.push(message) } as Logger;
  const tracker = status.outages.tracker('backup', 'writing progress', silentLogger, () => 0);
  const commits = new ReplicationCommits({
    progress,
    offsetSyncEmitter: emitter,
    writePath,
    lifetimes: { current: (b) => b !== options.oldLog },
    budget,
    outages: { progress: tracker, offsetSyncs: tracker },
    status,
    scheduler: asyncScheduler,
    logger,
  });
  return { commits, marked, syncs, debug, budget, status };
}

test('a write acknowledged: each batch marks its progress, feeds the offset syncs and gives its bytes back', async () => {
  const h = harness();
  const batches = [batch(0, [3, 4]), batch(1, [9])];
  await h.budget.acquire(20);
  await lastValueFrom(h.commits.commit({ batches, offsets: Float64Array.from([30, 31, 90]) }), { defaultValue: undefined });
  assert.deepEqual(h.marked, ['0@4', '1@9']);
  assert.deepEqual(h.syncs, ['0: 3→30', '0: 4→31', '1: 9→90']);
  assert.equal(h.budget.inFlightBytes, 0);
  assert.equal(h.status.recordsReplicated, 3);
});

test('a batch whose slot was lost, or of a log that restarted since, gives its bytes back but stores no progress', async () => {
  const lost = batch(0, [3, 4]);
  const oldLog = batch(1, [9]);
  const kept = batch(2, [5]);
  const h = harness({ lost, oldLog });
  await h.budget.acquire(30);
  await lastValueFrom(h.commits.commit({ batches: [lost, oldLog, kept], offsets: Float64Array.from([30, 31, 90, 50]) }), { defaultValue: undefined });
  assert.deepEqual(h.marked, ['2@5']);
  assert.deepEqual(h.syncs, ['2: 5→50'], 'each batch skipped keeps the offsets of the next one in line');
  assert.equal(h.budget.inFlightBytes, 0);
  assert.equal(h.status.recordsReplicated, 2, 'the lost batch is not counted as copied; the old log’s copy is on the target');
});

test('offset syncs that cannot be written now wait for the next flush: the commit does not fail', async () => {
  const h = harness({ syncsFail: true });
  await h.budget.acquire(10);
  await lastValueFrom(h.commits.commit({ batches: [batch(0, [1])], offsets: Float64Array.from([10]) }), { defaultValue: undefined });
  assert.deepEqual(h.marked, ['0@1']);
  assert.deepEqual(h.debug, ['Writing offset syncs failed; they go with the next flush.']);
});
