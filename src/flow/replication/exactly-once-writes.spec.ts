import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asyncScheduler, lastValueFrom } from '#rxjs';
import { silentLogger } from '../../core/ports/logger';
import type { OutboundRecord } from '../../core/ports/record-writer';
import type { SlotTransactions } from '../../core/ports/slot-transactions';
import type { FlowBatch, TopicPartition } from '../../core/record';
import type { ProgressStore } from '../progress/progress-store';
import { FlowStatus } from '../status/flow-status';
import { ExactlyOnceWrites } from './exactly-once-writes';
import { RemoteNames } from './remote-names';

const tp = (partition: number): TopicPartition => ({ topic: 'orders', partition });

/** Slot transactions that record what they were asked: claims, fences, releases, and each commit's progress. */
function fakeTransactions() {
  const calls = { claimed: [] as number[][], fenced: [] as number[][], released: 0, commits: [] as { slot: number; progress: string[] }[] };
  const transactions: SlotTransactions = {
    cluster: 'backup',
    claim: async (slots) => void calls.claimed.push([...slots]),
    release: () => void calls.released++,
    fence: async (slots) => void calls.fenced.push([...slots]),
    close: async () => undefined,
    commit: async (slot, _rounds, progress) => {
      calls.commits.push({ slot, progress: progress.map((r) => r.value!.toString()) });
      return new Float64Array(0);
    },
  };
  return { calls, transactions };
}

function writes(storedSlotCount: number | undefined) {
  const { calls, transactions } = fakeTransactions();
  const replicated: string[] = [];
  const progress = {
    storedSlotCount,
    progressRecords: (entries: readonly { tp: TopicPartition; offset: number }[]) =>
      entries.map((e) => ({ topic: 'mm2-offsets', partition: 0, timestamp: 0, key: null, value: Buffer.from(`${e.tp.partition}@${e.offset}`), headers: [] })),
    slotCountRecord: (slots: number) =>
      ({ topic: 'mm2-offsets', partition: 0, timestamp: 0, key: null, value: Buffer.from(`slots ${slots}`), headers: [] }) as OutboundRecord,
    markReplicated: (at: TopicPartition, offset: number) => void replicated.push(`${at.partition}@${offset}`),
  } as unknown as ProgressStore;
  const status = new FlowStatus('primary', 'backup');
  const tracker = status.outages.tracker('backup', 'writing records', silentLogger, () => 0);
  const path = new ExactlyOnceWrites({
    slots: 2,
    transactions,
    progress,
    maxPartitionBytes: 1 << 20,
    lifetimes: { current: () => true },
    names: new RemoteNames((topic) => `primary.${topic}`),
    outages: { writing: tracker, loading: tracker },
    status,
    scheduler: asyncScheduler,
    logger: silentLogger,
  });
  return { path, calls, replicated };
}

test('an assignment claims the slots of its partitions first, then fences the ids of a slot count no process holds now', async () => {
  const { path, calls } = writes(4);
  const partitions = [tp(0), tp(1), tp(2)];
  const slots = [...new Set(partitions.map((p) => path.slots.of(p)))].sort();
  await lastValueFrom(path.assigning({ partitions, stillMember: async () => true, subscribed: () => partitions }), { defaultValue: undefined });
  assert.deepEqual(
    calls.claimed.map((c) => [...c].sort()),
    [slots],
  );
  assert.deepEqual(calls.fenced, [[2, 3]], 'the ids of slots 2 and 3 of the stored count of 4');
  assert.equal(path.slots.count, 2);
});

test('a changed slot count is stored once assigned, in a transaction of the lowest slot held; an unchanged one is not', async () => {
  const changed = writes(4);
  await lastValueFrom(changed.path.assigned([tp(0), tp(1)]), { defaultValue: undefined });
  assert.deepEqual(changed.calls.commits, [{ slot: Math.min(changed.path.slots.of(tp(0)), changed.path.slots.of(tp(1))), progress: ['slots 2'] }]);
  const same = writes(2);
  await lastValueFrom(same.path.assigned([tp(0)]), { defaultValue: undefined });
  assert.deepEqual(same.calls.commits, []);
});

test("a partition starts at its stored progress, else where the flow's start puts it; a start stored goes in a transaction of its slot", async () => {
  const { path, calls, replicated } = writes(2);
  const start = { tp: tp(1), remote: 'primary.orders', sourceLog: async () => undefined, bySetting: async () => 42 };
  assert.equal(await path.startAt({ ...start, progress: 7 }), 7);
  assert.equal(await path.startAt({ ...start, progress: undefined }), 42);
  await path.storeStart(tp(1), 42);
  assert.deepEqual(calls.commits, [{ slot: path.slots.of(tp(1)), progress: ['1@42'] }]);
  assert.deepEqual(replicated, ['1@42']);
});

test('revoked partitions release the slots; dead letters, acknowledgements and flushes are the transactions’ own', async () => {
  const { path, calls } = writes(2);
  path.revoked();
  assert.equal(calls.released, 1);
  const batch = { kind: 'records', source: tp(0), records: [], nextOffset: 1, highWatermark: 1, bytes: 0, sourceRecords: 0 } as FlowBatch;
  const written = { batches: [batch], offsets: new Float64Array(0) };
  assert.equal(await lastValueFrom(path.deadLetter(written as never)), written);
  assert.equal(await lastValueFrom(path.flush(), { defaultValue: 'nothing' }), 'nothing');
  assert.equal(path.commits(batch), true, 'a batch whose slot was not lost commits');
  path.fetched({} as never, 'primary.orders');
  path.acknowledged(batch, new Float64Array(0), 0);
  assert.equal(path.writesWhole, true);
});
