import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asyncScheduler, lastValueFrom } from '#rxjs';
import { silentLogger } from '../../core/ports/logger';
import type { OutboundItem, OutboundRecord } from '../../core/ports/record-writer';
import { SlotLostError, type SlotTransactions } from '../../core/ports/slot-transactions';
import type { DecodedFlowBatch, FlowBatch, MirrorRecord } from '../../core/record';
import { FlowStatus } from '../status/flow-status';
import { DeadLetterSink } from './dead-letter-sink';
import { RecordFailedError, RecordRefusedError } from '../../core/errors';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { RecordWriter } from '../../core/ports/record-writer';
import type { ProgressStore } from '../progress/progress-store';
import { SlotWrites, groupBySlot, roundOffsetsInItemOrder } from './slot-writes';

const record = (partition: number, offset: number): MirrorRecord => ({
  source: { topic: 'orders', partition, offset },
  topic: 'primary.orders',
  partition,
  timestamp: 0,
  key: null,
  value: Buffer.from(`p${partition}o${offset}`),
  headers: [],
});

const batch = (partition: number, offsets: readonly number[]): FlowBatch => ({
  kind: 'records',
  source: { topic: 'orders', partition },
  records: offsets.map((o) => record(partition, o)),
  nextOffset: offsets[offsets.length - 1]! + 1,
  highWatermark: 100,
  bytes: 10,
  sourceRecords: offsets.length,
});

test('groupBySlot: each slot gets the indices of its batches’ items in the write, in order', () => {
  const batches = [batch(0, [0, 1]), batch(1, [5]), batch(2, [7, 8, 9])];
  const groups = groupBySlot(
    batches,
    (b) => (b.kind === 'records' ? b.records.length : 0),
    (b) => b.source.partition % 2,
  );
  assert.deepEqual([...groups.keys()], [0, 1]);
  assert.deepEqual(groups.get(0)!.indices, [0, 1, 3, 4, 5]);
  assert.deepEqual(groups.get(0)!.batches, [batches[0], batches[2]]);
  assert.deepEqual(groups.get(1)!.indices, [2]);
});

test('roundOffsetsInItemOrder: the offsets of the rounds, in round order, land at their items', () => {
  const out = roundOffsetsInItemOrder([{ indices: [0, 2] }, { indices: [1] }], Float64Array.from([10, 11, 20]), 3);
  assert.deepEqual([...out], [10, 20, 11]);
});

/** Transactions that commit every slot but those in `lost`; what each commit held. */
function fakeTransactions(lost: ReadonlySet<number>) {
  const commits: { slot: number; values: string[]; progress: number }[] = [];
  const fenced: number[][] = [];
  const transactions: SlotTransactions = {
    cluster: 'backup',
    claim: async () => undefined,
    release: () => undefined,
    fence: async (slots) => void fenced.push([...slots]),
    close: async () => undefined,
    commit: async (slot, rounds, progress) => {
      if (lost.has(slot)) throw new SlotLostError('backup', slot, 'fenced by another process');
      const items = rounds.flat();
      commits.push({ slot, values: items.map((i) => (i as OutboundRecord).value!.toString()), progress: progress.length });
      return Float64Array.from(items, (_, i) => 100 * slot + i);
    },
  };
  return { commits, fenced, transactions };
}

function slotWrites(
  transactions: SlotTransactions,
  current: (b: FlowBatch) => boolean = () => true,
  storedSlotCount?: number,
  status = new FlowStatus('primary', 'backup'),
  deadLetters?: DeadLetterSink,
): SlotWrites {
  const tracker = status.outages.tracker('backup', 'writing records', silentLogger, () => Date.now());
  const progress = {
    progressRecords: (entries: readonly unknown[]) => entries.map(() => ({}) as OutboundRecord),
    storedSlotCount,
    slotCountRecord: (slots: number) => ({ topic: 'mm2-offsets', partition: 0, timestamp: 0, key: null, value: Buffer.from(`slots ${slots}`), headers: [] }),
  } as unknown as ProgressStore;
  return new SlotWrites({
    slots: 2,
    transactions,
    progress,
    maxPartitionBytes: 1 << 20,
    current,
    outages: { writing: tracker, loading: tracker },
    ...(deadLetters === undefined ? {} : { deadLetters }),
    refusedFailure: (items, error) => {
      const record = items[error.index] as MirrorRecord;
      return { record, error: new RecordFailedError(record.source, { kind: 'write' }, error.message) };
    },
    status,
    scheduler: asyncScheduler,
    logger: silentLogger,
  });
}

const itemsOf = (batches: readonly FlowBatch[]): OutboundItem[] => batches.flatMap((b) => (b.kind === 'records' ? b.records : []));

test('write: one transaction per slot, with the progress of its batches; every item gets its offset back', async () => {
  const { commits, transactions } = fakeTransactions(new Set());
  const writes = slotWrites(transactions);
  const batches = [batch(0, [0, 1]), batch(1, [0])];
  const slotOfOne = writes.slotOf({ topic: 'orders', partition: 1 });
  const offsets = await lastValueFrom(writes.write(itemsOf(batches), batches));
  assert.equal(commits.length, 2);
  const one = commits.find((c) => c.slot === slotOfOne)!;
  assert.deepEqual(one.values, ['p1o0']);
  assert.equal(one.progress, 1);
  assert.equal(offsets[2], 100 * slotOfOne);
  assert.equal(writes.dropped.has(batches[0]!) || writes.dropped.has(batches[1]!), false);
});

test('write: a lost slot drops its batches (offsets -1) and the other slot still commits', async () => {
  const probe = slotWrites(fakeTransactions(new Set()).transactions);
  const lostSlot = probe.slotOf({ topic: 'orders', partition: 0 });
  const { commits, transactions } = fakeTransactions(new Set([lostSlot]));
  const writes = slotWrites(transactions);
  const batches = [batch(0, [0, 1]), batch(1, [0])];
  const offsets = await lastValueFrom(writes.write(itemsOf(batches), batches));
  assert.deepEqual([...offsets.subarray(0, 2)], [-1, -1]);
  assert.ok(writes.dropped.has(batches[0]!));
  assert.ok(!writes.dropped.has(batches[1]!));
  assert.deepEqual(
    commits.map((c) => c.values),
    [['p1o0']],
  );
});

test('write: a batch of a log that restarted since it was fetched is written, but stores no progress', async () => {
  const { commits, transactions } = fakeTransactions(new Set());
  const stale = batch(0, [3]);
  const writes = slotWrites(transactions, (b) => b !== stale);
  await lastValueFrom(writes.write(itemsOf([stale]), [stale]));
  assert.deepEqual(commits, [{ slot: writes.slotOf({ topic: 'orders', partition: 0 }), values: ['p0o3'], progress: 0 }]);
});

test('fenceUnheld: with the slot count changed, the ids no partition maps to now are fenced; with it unchanged, none', async () => {
  const partitions = [0, 1].map((partition) => ({ topic: 'orders', partition }));
  const changed = fakeTransactions(new Set());
  await lastValueFrom(slotWrites(changed.transactions, undefined, 4).fenceUnheld(partitions), { defaultValue: undefined });
  assert.deepEqual(changed.fenced, [[2, 3]], 'the two partitions hold slots 0 and 1 of 2; ids 2 and 3 of the count 4 before are fenced');
  const same = fakeTransactions(new Set());
  await lastValueFrom(slotWrites(same.transactions, undefined, 2).fenceUnheld(partitions), { defaultValue: undefined });
  assert.deepEqual(same.fenced, []);
});

test('storeSlotCount: a member with partitions stores a changed count in a transaction of its lowest slot, even without slot 0', async () => {
  const { commits, transactions } = fakeTransactions(new Set());
  const writes = slotWrites(transactions, undefined, 4);
  const tp = { topic: 'orders', partition: 1 };
  assert.notEqual(writes.slotOf(tp), 0);
  await lastValueFrom(writes.storeSlotCount([tp]), { defaultValue: undefined });
  assert.deepEqual(commits, [{ slot: writes.slotOf(tp), values: [], progress: 1 }], 'one transaction: the count record alone');
  const none = fakeTransactions(new Set());
  await lastValueFrom(slotWrites(none.transactions, undefined, 2).storeSlotCount([tp]), { defaultValue: undefined });
  assert.deepEqual(none.commits, [], 'the count stored already');
});

test('write: a transform failure and a record the target refuses go to the dead-letter topic in the slot’s transaction, counted once it committed', async () => {
  const status = new FlowStatus('primary', 'backup');
  const sink = new DeadLetterSink({
    flow: 'primary->backup',
    topic: 'dlq',
    replicationFactor: 1,
    admin: {} as ClusterAdmin,
    writer: { write: () => assert.fail('dead letters go in the transaction, not through the writer') } as unknown as RecordWriter,
    scheduler: asyncScheduler,
    logger: silentLogger,
    status,
  });
  const asked: number[] = [];
  const letters: string[][] = [];
  const transactions: SlotTransactions = {
    ...fakeTransactions(new Set()).transactions,
    commit: async (_slot, rounds, _progress, deadLetters) => {
      const first = deadLetters!([]);
      asked.push(first.length);
      const refused = rounds[0]![0]! as OutboundRecord;
      const all = deadLetters!([{ index: 0, offsetInBatch: 0, record: refused, error: new RecordRefusedError('backup', 0, 0, 'too large') }]);
      letters.push(all.map((r) => `${r.topic}:${r.value!.toString()}`));
      return Float64Array.from(rounds.flat(), (_, i) => (i === 0 ? -1 : i));
    },
  };
  const writes = slotWrites(transactions, undefined, undefined, status, sink);
  const failedInTransform = record(0, 1);
  const withFailure: DecodedFlowBatch = {
    ...(batch(0, [0, 2]) as DecodedFlowBatch),
    deadLetters: [{ record: failedInTransform, error: new RecordFailedError(failedInTransform.source, { kind: 'transform', plugin: 'x', step: 's' }, 'bad') }],
  };
  assert.equal(status.recordsDeadLettered, 0);
  const offsets = await lastValueFrom(writes.write(itemsOf([withFailure]), [withFailure]));
  assert.deepEqual(asked, [1], 'asked first for the transform failure alone');
  assert.deepEqual(letters, [['dlq:p0o1', 'dlq:p0o0']], 'then with the refused record too');
  assert.equal(offsets[0], -1);
  assert.equal(status.recordsDeadLettered, 2, 'both counted once the transaction committed');
});
