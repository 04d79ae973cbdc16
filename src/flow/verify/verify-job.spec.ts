import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Subject, of } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { silentLogger } from '../../core/ports/logger';
import type { DigestPage, RangeReader } from '../../core/ports/range-reader';
import type { TopicReader } from '../../core/ports/record-source';
import { topicPartitionKey, type TopicPartition } from '../../core/record';
import { VirtualClock } from '../virtual-clock';
import { VerifyJob, type VerifyJobSettings } from './verify-job';
import { VerifyStatus } from './verify-status';

/** A partition as digests: record `offset` of the source has digest (offset + 1, 7); a copy carries its source's digest. */
type Log = { offset: number; hi: number; lo: number }[];
const sourceLog = (count: number, from = 0): Log => Array.from({ length: count }, (_, i) => ({ offset: from + i, hi: from + i + 1, lo: 7 }));
/** Copies of `source`, laid at the target's offsets from `at` on. */
const copies = (source: Log, at: number): Log => source.map((r, i) => ({ offset: at + i, hi: r.hi, lo: r.lo }));

class FakeLogs implements RangeReader {
  readonly logs = new Map<string, Log>();
  constructor(readonly cluster: string) {}
  log(topic: string, partition: number): Log {
    const key = topicPartitionKey({ topic, partition });
    let log = this.logs.get(key);
    if (log === undefined) this.logs.set(key, (log = []));
    return log;
  }
  append(topic: string, partition: number, records: Log): void {
    const log = this.log(topic, partition);
    let next = log.length === 0 ? 0 : log[log.length - 1]!.offset + 1;
    for (const r of records) log.push({ ...r, offset: next++ });
  }
  async *readDigests(topic: string, partition: number, from: number, to: number): AsyncIterable<DigestPage> {
    await Promise.resolve();
    const records = this.log(topic, partition).filter((r) => r.offset >= from && r.offset < to);
    const digests = new Uint32Array(records.length * 2);
    records.forEach((r, i) => {
      digests[2 * i] = r.hi;
      digests[2 * i + 1] = r.lo;
    });
    yield {
      count: records.length,
      offsets: Float64Array.from(records.map((r) => r.offset)),
      digests,
      nextOffset: Math.min(to, (records.at(-1)?.offset ?? from - 1) + 1),
      skipped: 0,
    };
  }
  read(): never {
    throw new Error('not used: no transforms');
  }
  offsetsForTime(): never {
    throw new Error('not used');
  }
  async close(): Promise<void> {}
  admin(topics: readonly { name: string; partitions: number }[]): ClusterAdmin {
    return {
      cluster: this.cluster,
      listTopics: () => of(topics),
      partitionOffsets: (topic: string) =>
        of(
          Array.from({ length: topics.find((t) => t.name === topic)?.partitions ?? 0 }, (_, partition) => {
            const log = this.log(topic, partition);
            return { partition, earliest: log[0]?.offset ?? 0, latest: log.length === 0 ? 0 : log[log.length - 1]!.offset + 1 };
          }),
        ),
    } as unknown as ClusterAdmin;
  }
}

const SETTINGS: VerifyJobSettings = {
  source: 'primary',
  target: 'backup',
  intervalMs: 1000,
  recordsPerInterval: 150,
  isolationLevel: 'read_committed',
  targetIsolationLevel: 'read_uncommitted',
  comparedBy: 'content',
  replicates: (topic) => topic === 'orders',
  remoteTopic: (topic) => `primary.${topic}`,
  offsetSyncsTopic: undefined,
};

function setup() {
  const clock = new VirtualClock();
  const source = new FakeLogs('primary');
  const target = new FakeLogs('backup');
  const progress = new Map<string, number>();
  const status = new VerifyStatus();
  const warnings: { message: string; meta: Record<string, unknown> | undefined }[] = [];
  const logger: Logger = { ...silentLogger, warn: (message: string, meta?: Record<string, unknown>) => warnings.push({ message, meta }), child: () => logger };
  const job = new VerifyJob({
    settings: SETTINGS,
    sourceAdmin: source.admin([{ name: 'orders', partitions: 2 }]),
    targetAdmin: target.admin([{ name: 'primary.orders', partitions: 2 }]),
    sourceReader: source,
    targetReader: target,
    offsetSyncsReader: {} as TopicReader,
    progress: { nextOffset: (tp: TopicPartition) => progress.get(topicPartitionKey(tp)) },
    // Offsets preserved: each window's copy begins at the same offset on the target.
    preservedPartitions: async () => new Set(['primary.orders-0', 'primary.orders-1']),
    scheduler: clock.scheduler,
    logger,
    status,
  });
  const stop$ = new Subject<void>();
  const done = new Promise<void>((resolve) => job.run(stop$).subscribe({ complete: () => resolve() }));
  return { clock, source, target, progress, status, warnings, stop$, done };
}

test('VerifyJob: windows of every partition within the budget, the newest first; the next pass follows on and counts what the budget skipped', async () => {
  const { clock, source, target, progress, status, stop$, done } = setup();
  for (const partition of [0, 1]) {
    source.append('orders', partition, sourceLog(100));
    target.append('primary.orders', partition, copies(sourceLog(100), 0));
    progress.set(`orders-${partition}`, 100);
  }
  assert.equal(status.state, 'starting');
  await clock.advance(999);
  assert.equal(status.passes, 0, 'the first pass comes one interval after the start');

  // 150 records: partition 0 whole, then the newest 50 of partition 1.
  await clock.advance(1);
  assert.equal(status.passes, 1);
  assert.equal(status.state, 'running');
  assert.deepEqual([status.records, status.matched, status.missing, status.duplicates, status.unexpected, status.skipped], [150, 150, 0, 0, 0, 0]);
  assert.deepEqual(
    [...status.partitions.values()].map((p) => [p.partition, p.lastFrom, p.lastTo]),
    [
      [0, 0, 100],
      [1, 50, 100],
    ],
  );

  // 100 more per partition; the pass starts where the last one stopped (partition 0), and partition 1's budget covers its newest 50 only.
  for (const partition of [0, 1]) {
    source.append('orders', partition, sourceLog(100, 100));
    target.append('primary.orders', partition, copies(sourceLog(100, 100), 100));
    progress.set(`orders-${partition}`, 200);
  }
  await clock.advance(1000);
  assert.equal(status.passes, 2);
  assert.deepEqual([status.records, status.matched, status.skipped], [300, 300, 50]);
  assert.deepEqual(
    [...status.partitions.values()].map((p) => [p.partition, p.lastFrom, p.lastTo, p.verifiedTo]),
    [
      [0, 100, 200, 200],
      [1, 150, 200, 200],
    ],
  );
  assert.deepEqual(status.withFindings(), []);
  stop$.next();
  await done;
  assert.equal(status.state, 'stopped');
});

test('VerifyJob: records missing, copied twice or of another writer are counted once each, named per partition and logged', async () => {
  const { clock, source, target, progress, status, warnings, stop$, done } = setup();
  source.append('orders', 0, sourceLog(60));
  source.append('orders', 1, sourceLog(60));
  // Partition 0: records 10 and 11 never arrived. Partition 1: 5 records copied twice, then 3 of another writer.
  target.append('primary.orders', 0, copies(sourceLog(10), 0));
  target.append('primary.orders', 0, copies(sourceLog(48, 12), 10));
  target.append('primary.orders', 1, copies(sourceLog(60), 0));
  target.append('primary.orders', 1, copies(sourceLog(5, 20), 60));
  target.append(
    'primary.orders',
    1,
    [0, 1, 2].map((i) => ({ offset: 0, hi: 9_999 + i, lo: 1 })),
  );
  progress.set('orders-0', 60);
  progress.set('orders-1', 60);
  await clock.advance(1000);
  assert.deepEqual([status.records, status.matched, status.missing, status.duplicates, status.unexpected], [120, 118, 2, 5, 3]);
  assert.deepEqual(
    status.withFindings().map((p) => [p.partition, p.missing, p.duplicates, p.unexpected, p.firstMissing, p.firstDuplicate, p.firstUnexpected]),
    [
      [0, 2, 0, 0, 10, undefined, undefined],
      [1, 0, 5, 3, undefined, 60, 65],
    ],
  );
  assert.deepEqual(
    warnings.map((w) => [w.message, w.meta?.['partition'], w.meta?.['missing'], w.meta?.['duplicates'], w.meta?.['unexpected']]),
    [
      ['Verification found records missing, duplicated or unexpected on the target.', 0, 2, 0, 0],
      ['Verification found records missing, duplicated or unexpected on the target.', 1, 0, 5, 3],
    ],
  );

  // The next windows start where the last ones' judgement ended: what was counted is not counted again.
  source.append('orders', 1, sourceLog(10, 60));
  target.append('primary.orders', 1, copies(sourceLog(10, 60), 68));
  progress.set('orders-1', 70);
  await clock.advance(1000);
  assert.deepEqual([status.records, status.matched, status.missing, status.duplicates, status.unexpected], [130, 128, 2, 5, 3]);
  stop$.next();
  await done;
});

test('VerifyJob: a pass that cannot read a cluster is reported and tried again at the next interval; replication is never waited for', async () => {
  const { clock, source, target, progress, status, stop$, done } = setup();
  source.append('orders', 0, sourceLog(10));
  target.append('primary.orders', 0, copies(sourceLog(10), 0));
  progress.set('orders-0', 10);
  const readDigests = target.readDigests.bind(target);
  target.readDigests = () => ({
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('Topic authorization failed: primary.orders')) }),
  });
  await clock.advance(1000);
  assert.deepEqual([status.state, status.errors, status.lastError, status.passes], ['failing', 1, 'Topic authorization failed: primary.orders', 0]);
  target.readDigests = readDigests;
  await clock.advance(1000);
  assert.deepEqual([status.state, status.errors, status.lastError, status.passes, status.records], ['running', 1, undefined, 1, 10]);
  stop$.next();
  await done;
});
