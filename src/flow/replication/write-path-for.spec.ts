/**
 * The three write paths behind one interface: what each does at the flow's steps (writePathFor
 * picks one from the settings). The flow's own specs run them end to end.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, asyncScheduler, defer, identity, lastValueFrom, of, toArray } from '#rxjs';
import { silentLogger } from '../../core/ports/logger';
import type { OutboundItem, OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import { SlotLostError, type SlotTransactions } from '../../core/ports/slot-transactions';
import type { WrittenBatches } from '../../core/ports/write-path';
import type { FlowBatch, TopicPartition } from '../../core/record';
import { flowBatch, sourceBatch } from '../batch-fixtures';
import type { ProgressStore } from '../progress/progress-store';
import { FlowStatus } from '../status/flow-status';
import type { DeadLetterSink } from './dead-letter-sink';
import { LogLifetimes } from './log-lifetimes';
import type { OffsetPreservation } from './offset-preservation';
import { RemoteNames } from './remote-names';
import { replicationOutages } from './replication-outages';
import { writePathFor, type WritePathParts } from './write-path-for';
import { AtLeastOnceWrites } from './at-least-once-writes';
import { ExactlyOnceWrites } from './exactly-once-writes';
import { PreservedOffsetsWrites } from './preserved-offsets-writes';

/** What the fakes saw, in order. */
function harness(over: Partial<WritePathParts> = {}) {
  const seen: string[] = [];
  const status = new FlowStatus('primary', 'backup');
  const values = (items: readonly OutboundItem[]) => items.map((i) => (i as OutboundRecord).value!.toString()).join(',');
  const writer: RecordWriter = {
    cluster: 'backup',
    write: (items) => defer(() => (seen.push(`write ${values(items)}`), of(Float64Array.from(items, (_, i) => i)))),
    close: async () => undefined,
  };
  const progress = {
    markReplicated: (tp: TopicPartition, offset: number) => seen.push(`mark ${tp.topic}-${tp.partition}@${offset}`),
    flush: () => defer(() => (seen.push('store progress'), EMPTY)),
    progressRecords: () => [],
  } as unknown as ProgressStore;
  const deadLetters = {
    write: (failures: readonly unknown[]) => defer(() => (seen.push(`dead letters ${failures.length}`), of(undefined))),
  } as unknown as DeadLetterSink;
  const parts: WritePathParts = {
    flow: 'primary->backup',
    exactlyOnce: undefined,
    maxPartitionBytes: 1 << 20,
    writer,
    transactions: undefined,
    progress,
    deadLetters,
    preservation: undefined,
    names: new RemoteNames((topic) => `primary.${topic}`),
    lifetimes: new LogLifetimes(),
    outages: replicationOutages({
      source: 'primary',
      target: 'backup',
      offsetSyncsCluster: undefined,
      status,
      logger: silentLogger,
      scheduler: asyncScheduler,
    }),
    status,
    scheduler: asyncScheduler,
    logger: silentLogger,
    ...over,
  };
  return { path: writePathFor(parts), seen };
}

/** The records a decoded batch writes. */
const items = (batch: FlowBatch): readonly OutboundItem[] => (batch.kind === 'records' ? batch.records : []);
const withFailures: WrittenBatches = { batches: [flowBatch(sourceBatch('orders', 0, 2), { deadLetters: ['bad'] })], offsets: Float64Array.from([7, 8]) };

describe('write paths', () => {
  test('at-least-once: records, then their transform failures on the dead-letter topic, then progress on its own', async () => {
    const { path, seen } = harness();
    assert.equal(path instanceof AtLeastOnceWrites, true);
    assert.equal(path.slots, undefined);
    const orders = flowBatch(sourceBatch('orders', 0, 2));
    await lastValueFrom(path.write(items(orders), [orders]));
    assert.equal(await lastValueFrom(path.deadLetter(withFailures)), withFailures);
    assert.equal(path.commits(withFailures.batches[0]!), true);
    await lastValueFrom(path.flush(undefined, identity).pipe(toArray()));
    assert.deepEqual(seen, ['write orders:0,orders:1', 'dead letters 1', 'store progress']);
  });

  test('at-least-once: a `start: latest` position is marked, then stored with the progress flush', async () => {
    const { path, seen } = harness();
    await path.storeStart({ topic: 'orders', partition: 0 }, 499, async () => void seen.push('flush'));
    assert.deepEqual(seen, ['mark orders-0@499', 'flush']);
  });

  test('exactly-once: dead letters and progress go in the slot transactions; a batch whose slot was lost commits nothing', async () => {
    const commits: number[] = [];
    const transactions: SlotTransactions = {
      cluster: 'backup',
      claim: async () => undefined,
      release: () => undefined,
      commit: async (slot) => {
        commits.push(slot);
        throw new SlotLostError('backup', slot, 'fenced by another process');
      },
      fence: async () => undefined,
      close: async () => undefined,
    };
    const { path, seen } = harness({ exactlyOnce: { slots: 1 }, transactions });
    assert.equal(path instanceof ExactlyOnceWrites, true);
    assert.equal(path.slots?.count, 1);
    assert.equal(path.writesWhole, true);
    const batch = withFailures.batches[0]!;
    const offsets = await lastValueFrom(path.write(items(batch), [batch]));
    assert.deepEqual([...offsets], [-1, -1], 'nothing of a lost slot is on the target');
    assert.deepEqual(commits, [0]);
    assert.equal(path.commits(batch), false);
    assert.equal(await lastValueFrom(path.deadLetter(withFailures)), withFailures);
    assert.deepEqual(await lastValueFrom(path.flush(undefined, identity).pipe(toArray())), []);
    assert.deepEqual(seen, [], 'no write, no dead letter, no progress outside the transactions');
  });

  test('exactly-once without the transactional writer is refused', () => {
    assert.throws(() => harness({ exactlyOnce: { slots: 1 } }), /delivery exactly_once needs the transactional writer/);
  });

  test('preserved offsets: the markers go before each write and before progress; the acknowledgements are checked', async () => {
    const checked: string[] = [];
    const preservation = {
      flush: () => defer(() => (checked.push('markers'), of(undefined))),
      preserved: () => true,
      verify: (_batch: unknown, remote: string, _offsets: Float64Array, from: number) => (checked.push(`verify ${remote} from ${from}`), from),
      reload: () => checked.push('reload'),
    } as unknown as OffsetPreservation;
    const { path, seen } = harness({ preservation });
    assert.equal(path instanceof PreservedOffsetsWrites, true);
    await lastValueFrom(path.assigning({ partitions: [], stillMember: async () => true, subscribed: () => [] }).pipe(toArray()));
    await lastValueFrom(path.write([], []));
    path.acknowledged(withFailures.batches[0]!, withFailures.offsets, 0);
    await lastValueFrom(path.flush(undefined, identity).pipe(toArray()));
    assert.deepEqual(checked, ['reload', 'markers', 'verify primary.orders from 0', 'markers']);
    assert.deepEqual(seen, ['write ', 'store progress']);
  });
});
