import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import { KafkaSlotTransactions, type PartitionAnswer, type TransactionalPartition, type TransactionPort } from './slot-transactions';
import { SlotLostError } from '../../core/ports/slot-transactions';
import type { OutboundRecord } from '../../core/record';
import type { ProducerIdentity } from '../producer/producer-sequences';
import { KafkaAuthorizationError, RecordRefusedError } from '../../core/errors';
import { outboundItemBytes, type RefusedRecord } from '../../core/ports/record-writer';

const record = (topic: string, partition: number, value: string): OutboundRecord => ({
  topic,
  partition,
  timestamp: 0,
  key: null,
  value: Buffer.from(value),
  headers: [],
});

/**
 * A broker's transaction coordinator and partition leaders, as far as a producer can tell: epochs
 * per transactional id (a new InitProducerId bumps it and fences the old one), the partitions of
 * the open transaction, and per partition the next sequence and offset.
 */
class FakeBroker implements TransactionPort {
  readonly calls: string[] = [];
  private readonly epochs = new Map<string, number>();
  private readonly open = new Map<string, Set<string>>();
  private readonly sequences = new Map<string, number>();
  private readonly offsets = new Map<string, number>();
  /** Committed values per partition, in order. */
  readonly committed = new Map<string, string[]>();
  private readonly pending = new Map<string, { key: string; values: string[] }[]>();
  /** Answers for the next produce, per partition key; an error thrown instead when 'throw'. */
  nextProduce: 'throw' | Map<string, number> | undefined;
  failEndTxn: Error | undefined;
  /** The next EndTxn is carried out, but its answer is lost: the producer sees this error. */
  loseEndTxnAnswer: Error | undefined;
  /** Every EndTxn from now on goes unanswered. */
  coordinatorDown = false;
  /** Per topic, the most item bytes one partition's batch may have (the topic's max.message.bytes): larger is MESSAGE_TOO_LARGE. */
  readonly maxBatchBytes = new Map<string, number>();

  initProducerId(id: string): Promise<ProducerIdentity> {
    const epoch = (this.epochs.get(id) ?? -1) + 1;
    this.epochs.set(id, epoch);
    // The open transaction of the earlier epoch is aborted.
    this.pending.delete(id);
    this.open.delete(id);
    for (const key of [...this.sequences.keys()]) if (key.startsWith(`${id}|`)) this.sequences.delete(key);
    this.calls.push(`init ${id} epoch ${epoch}`);
    return Promise.resolve({ producerId: 1000 + [...this.epochs.keys()].indexOf(id), producerEpoch: epoch });
  }

  private check(id: string, identity: ProducerIdentity): void {
    if (this.epochs.get(id) !== identity.producerEpoch) throw Object.assign(new Error('Unknown error code 90'), { type: 'KAFKAJS_UNKNOWN_ERROR_CODE' });
  }

  addPartitionsToTxn(id: string, identity: ProducerIdentity, partitions: readonly { topic: string; partitions: readonly number[] }[]): Promise<void> {
    this.check(id, identity);
    const set = this.open.get(id) ?? new Set();
    for (const t of partitions) for (const p of t.partitions) set.add(`${t.topic}-${p}`);
    this.open.set(id, set);
    this.calls.push(`add ${id} ${[...set].sort().join(',')}`);
    return Promise.resolve();
  }

  produce(id: string, identity: ProducerIdentity, parts: readonly TransactionalPartition[]): Promise<PartitionAnswer[]> {
    const answers = this.nextProduce;
    this.nextProduce = undefined;
    if (answers === 'throw')
      return Promise.reject(Object.assign(new Error('Request Produce timed out'), { name: 'KafkaJSRequestTimeoutError', retriable: true }));
    const result: PartitionAnswer[] = [];
    for (const part of parts) {
      const key = `${part.topic}-${part.partition}`;
      const limit = this.maxBatchBytes.get(part.topic);
      const tooLarge = limit !== undefined && part.items.reduce((sum, i) => sum + outboundItemBytes(i), 0) > limit;
      const errorCode = answers?.get(key) ?? (this.epochs.get(id) !== identity.producerEpoch ? 90 : tooLarge ? 10 : 0);
      assert.ok(this.open.get(id)?.has(key) === true || errorCode !== 0, `${key} was added to the transaction before it was written`);
      if (errorCode !== 0) {
        result.push({ topic: part.topic, partition: part.partition, errorCode, baseOffset: -1 });
        continue;
      }
      const seqKey = `${id}|${key}`;
      assert.equal(part.stamp.baseSequence, this.sequences.get(seqKey) ?? 0, `sequence of ${key}`);
      assert.equal(part.stamp.producerEpoch, identity.producerEpoch);
      this.sequences.set(seqKey, part.stamp.baseSequence + part.items.length);
      const base = this.offsets.get(key) ?? 0;
      this.offsets.set(key, base + part.items.length);
      const list = this.pending.get(id) ?? [];
      list.push({ key, values: part.items.map((i) => ('value' in i && i.value ? i.value.toString() : '?')) });
      this.pending.set(id, list);
      result.push({ topic: part.topic, partition: part.partition, errorCode: 0, baseOffset: base });
    }
    this.calls.push(`produce ${id} ${parts.map((p) => `${p.topic}-${p.partition}`).join(',')}`);
    return Promise.resolve(result);
  }

  endTxn(id: string, identity: ProducerIdentity, commit: boolean): Promise<void> {
    if (this.failEndTxn) {
      const error = this.failEndTxn;
      this.failEndTxn = undefined;
      return Promise.reject(error);
    }
    if (this.coordinatorDown)
      return Promise.reject(Object.assign(new Error('Connection error: ECONNREFUSED'), { name: 'KafkaJSConnectionError', retriable: true }));
    this.check(id, identity);
    // A finished transaction asked to commit again (its answer was lost) is answered as done.
    this.calls.push(`end ${id} ${commit ? 'commit' : 'abort'}`);
    if (commit) for (const { key, values } of this.pending.get(id) ?? []) this.committed.set(key, [...(this.committed.get(key) ?? []), ...values]);
    this.pending.delete(id);
    this.open.delete(id);
    const lost = this.loseEndTxnAnswer;
    this.loseEndTxnAnswer = undefined;
    return lost ? Promise.reject(lost) : Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const member = () => Promise.resolve(true);
const make = (broker: FakeBroker, cluster = 'backup') =>
  new KafkaSlotTransactions({ cluster, prefix: 'mirrorflow.p.a-b', transactionTimeoutMs: 60_000 }, broker);

test('a transaction adds the partitions of records and progress, produces them in order, then commits', async () => {
  const broker = new FakeBroker();
  const tx = make(broker);
  await tx.claim([2], member);
  const offsets = await tx.commit(2, [[record('a.t', 0, 'x'), record('a.t', 0, 'y'), record('a.t', 1, 'z')]], [record('mm2-offsets.a.internal', 7, 'p')]);
  assert.deepEqual([...offsets], [0, 1, 0]);
  assert.deepEqual(broker.calls, [
    'init mirrorflow.p.a-b-2 epoch 0',
    'add mirrorflow.p.a-b-2 a.t-0,a.t-1,mm2-offsets.a.internal-7',
    'produce mirrorflow.p.a-b-2 a.t-0,a.t-1',
    'produce mirrorflow.p.a-b-2 mm2-offsets.a.internal-7',
    'end mirrorflow.p.a-b-2 commit',
  ]);
  assert.deepEqual(broker.committed.get('a.t-0'), ['x', 'y']);
  // The next transaction goes on with the sequences (the fake checks them).
  await tx.commit(2, [[record('a.t', 0, 'w')]], []);
  assert.deepEqual(broker.committed.get('a.t-0'), ['x', 'y', 'w']);
});

test('a claim by another process fences this one: nothing of its transaction is committed, and once the group says it moved on the slot is lost', async () => {
  const broker = new FakeBroker();
  const zombie = make(broker);
  const next = make(broker);
  let zombieIsMember = true;
  await zombie.claim([0], () => Promise.resolve(zombieIsMember));
  await next.claim([0], member);
  // The group gave the slot to `next` in a generation without the zombie.
  zombieIsMember = false;
  await assert.rejects(zombie.commit(0, [[record('a.t', 0, 'late')]], []), (error: Error & { retriable?: boolean }) => error.retriable === true);
  assert.equal(broker.committed.get('a.t-0'), undefined);
  const inits = broker.calls.filter((c) => c.startsWith('init')).length;
  await assert.rejects(zombie.commit(0, [[record('a.t', 0, 'later')]], []), SlotLostError);
  // Lost for good: no new producer id is asked for (that would fence the new holder).
  await assert.rejects(zombie.commit(0, [[record('a.t', 0, 'later')]], []), SlotLostError);
  assert.equal(broker.calls.filter((c) => c.startsWith('init')).length, inits);
  await next.commit(0, [[record('a.t', 0, 'new')]], []);
  assert.deepEqual(broker.committed.get('a.t-0'), ['new']);
});

test('fenced while still a member of its generation (the coordinator aborted a transaction past its timeout): written again with a new epoch, not stalled', async () => {
  const broker = new FakeBroker();
  const tx = make(broker);
  await tx.claim([1], member);
  broker.nextProduce = new Map([['a.t-0', 90]]);
  const items = [[record('a.t', 0, 'x')]];
  await assert.rejects(tx.commit(1, items, []), (error: Error & { retriable?: boolean }) => error.retriable === true && !(error instanceof SlotLostError));
  await tx.commit(1, items, []);
  assert.deepEqual(broker.committed.get('a.t-0'), ['x']);
  assert.deepEqual(
    broker.calls.filter((c) => c.startsWith('init')),
    ['init mirrorflow.p.a-b-1 epoch 0', 'init mirrorflow.p.a-b-1 epoch 1'],
  );
});

test('a retriable failure inside a transaction gives it up; the same items go again in a new one, with a new epoch, only while still a group member', async () => {
  const broker = new FakeBroker();
  const tx = make(broker);
  let stillMember = true;
  await tx.claim([0], () => Promise.resolve(stillMember));
  await tx.commit(0, [[record('a.t', 0, 'first')]], []);
  broker.nextProduce = 'throw';
  const items = [[record('a.t', 0, 'second')]];
  await assert.rejects(tx.commit(0, items, []), (error: Error & { retriable?: boolean }) => error.retriable === true && !(error instanceof SlotLostError));
  await tx.commit(0, items, [record('mm2-offsets.a.internal', 3, 'p')]);
  assert.deepEqual(broker.committed.get('a.t-0'), ['first', 'second']);
  assert.deepEqual(
    broker.calls.filter((c) => c.startsWith('init')),
    ['init mirrorflow.p.a-b-0 epoch 0', 'init mirrorflow.p.a-b-0 epoch 1'],
  );
  // A member the group left behind does not reset the producer: that would fence the new holder.
  broker.nextProduce = 'throw';
  await assert.rejects(tx.commit(0, [[record('a.t', 0, 'third')]], []));
  stillMember = false;
  await assert.rejects(tx.commit(0, [[record('a.t', 0, 'third')]], []), SlotLostError);
  assert.equal(broker.calls.filter((c) => c.startsWith('init')).length, 2);
});

test('a commit whose answer was lost is asked again, not given up: its records are committed once', async () => {
  const broker = new FakeBroker();
  const tx = make(broker);
  await tx.claim([0], member);
  broker.loseEndTxnAnswer = Object.assign(new Error('Connection closed'), { name: 'KafkaJSConnectionError', retriable: true });
  const offsets = await tx.commit(0, [[record('a.t', 0, 'once')]], [record('mm2-offsets.a.internal', 3, 'p')]);
  assert.deepEqual([...offsets], [0]);
  assert.deepEqual(broker.committed.get('a.t-0'), ['once']);
  assert.deepEqual(
    broker.calls.filter((c) => !c.startsWith('add')),
    [
      'init mirrorflow.p.a-b-0 epoch 0',
      'produce mirrorflow.p.a-b-0 a.t-0',
      'produce mirrorflow.p.a-b-0 mm2-offsets.a.internal-3',
      'end mirrorflow.p.a-b-0 commit',
      'end mirrorflow.p.a-b-0 commit',
    ],
    'the same transaction is asked to commit again; nothing is produced again and no new producer id is taken',
  );
});

test('a commit left unanswered past its wait ends the flow rather than writing its records again', async () => {
  const broker = new FakeBroker();
  const tx = new KafkaSlotTransactions({ cluster: 'backup', prefix: 'mirrorflow.p.a-b', transactionTimeoutMs: 60_000, commitAnswerWaitMs: 300 }, broker);
  await tx.claim([0], member);
  broker.coordinatorDown = true;
  await assert.rejects(
    tx.commit(0, [[record('a.t', 0, 'x')]], []),
    (error: Error & { retriable?: boolean }) =>
      error.retriable === false && /whether it committed is unknown/.test(error.message) && /backup/.test(error.message),
  );
  assert.equal(broker.calls.filter((c) => c.startsWith('produce')).length, 1, 'the records were written once');
});

test('a transactional id the principal may not use ends the flow (not retried)', async () => {
  const broker = new FakeBroker();
  const tx = make(broker);
  await tx.claim([0], member);
  broker.failEndTxn = Object.assign(new Error('Not authorized to access transactional.id'), {
    type: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
    retriable: false,
  });
  await assert.rejects(tx.commit(0, [[record('a.t', 0, 'x')]], []), KafkaAuthorizationError);
});

test('slots not claimed, or let go before a rejoin, are not this process’s', async () => {
  const broker = new FakeBroker();
  const tx = make(broker);
  await tx.claim([0], member);
  await assert.rejects(tx.commit(1, [[record('a.t', 1, 'x')]], []), SlotLostError);
  tx.release();
  await assert.rejects(tx.commit(0, [[record('a.t', 0, 'x')]], []), SlotLostError);
});

test('fencing slots nobody owns any more bumps their epochs', async () => {
  const broker = new FakeBroker();
  const old = make(broker);
  // A process left out of the group, from before the slot count went down.
  await old.claim([5], () => Promise.resolve(false));
  await make(broker).fence([5]);
  await assert.rejects(old.commit(5, [[record('a.t', 5, 'x')]], []));
  await assert.rejects(old.commit(5, [[record('a.t', 5, 'x')]], []), SlotLostError);
  assert.equal(broker.committed.get('a.t-5'), undefined);
});

test('a transactional id the principal may not use ends the claim naming the TransactionalId ACLs and the prefix to grant them on', async () => {
  const broker = new FakeBroker();
  broker.initProducerId = () =>
    Promise.reject(
      Object.assign(new Error('Transactional Id authorization failed'), {
        name: 'KafkaJSProtocolError',
        type: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
        retriable: false,
      }),
    );
  await assert.rejects(
    make(broker).claim([0], member),
    (error: unknown) =>
      error instanceof KafkaAuthorizationError &&
      error.cluster === 'backup' &&
      /mirrorflow\.p\.a-b-0 .*TRANSACTIONAL_ID_AUTHORIZATION_FAILED/.test(error.message) &&
      error.message.includes('WRITE and DESCRIBE on the TransactionalId resource, for the ids with the prefix "mirrorflow.p.a-b-"'),
  );
});

test('a batch too large for its topic goes again in smaller ones, and a record too large alone goes to the dead letters, all in the one transaction', async () => {
  const broker = new FakeBroker();
  broker.maxBatchBytes.set('a.t', 400);
  const tx = make(broker);
  await tx.claim([0], member);
  const big = record('a.t', 0, 'B'.repeat(500));
  const seen: RefusedRecord[][] = [];
  const offsets = await tx.commit(
    0,
    [[record('a.t', 0, 'x'), big, record('a.t', 0, 'y'), record('a.t', 1, 'z')]],
    [record('mm2-offsets.a.internal', 7, 'p')],
    (refused) => {
      seen.push([...refused]);
      return refused.map((r) => record('dlq', 0, `dead ${r.record.value!.toString().slice(0, 1)} at ${r.index}`));
    },
  );
  assert.deepEqual(broker.committed.get('a.t-0'), ['x', 'y'], 'the records around it, in order (the fake checks their sequences)');
  assert.deepEqual(broker.committed.get('a.t-1'), ['z']);
  assert.deepEqual(broker.committed.get('dlq-0'), ['dead B at 1']);
  assert.deepEqual(broker.committed.get('mm2-offsets.a.internal-7'), ['p']);
  assert.equal(offsets[1], -1, 'the refused record has no offset on the topic');
  assert.deepEqual([offsets[0], offsets[2], offsets[3]], [0, 1, 0]);
  assert.deepEqual(
    seen.map((s) => s.map((r) => r.index)),
    [[], [1]],
    'asked first for the dead letters of the batches, then with the refused record',
  );
  const calls = broker.calls.filter((c) => !c.startsWith('init'));
  const added = calls.findIndex((c) => c.startsWith('add') && c.includes('dlq-0'));
  assert.ok(
    added > 0 && added < calls.indexOf('produce mirrorflow.p.a-b-0 dlq-0'),
    `the dead-letter partition is added before it is written: ${calls.join(' | ')}`,
  );
  assert.equal(calls.filter((c) => c.startsWith('end')).length, 1, 'one commit');
  // The learnt limit holds for the next transaction: one record per request, none refused.
  const before = broker.calls.length;
  await tx.commit(0, [[record('a.t', 0, 'u'.repeat(150)), record('a.t', 0, 'v'.repeat(150)), record('a.t', 0, 'w'.repeat(150))]], [], (refused) =>
    refused.length > 0 ? assert.fail('nothing refused') : [],
  );
  assert.deepEqual(
    broker.committed
      .get('a.t-0')!
      .slice(2)
      .map((v) => v[0]),
    ['u', 'v', 'w'],
  );
  assert.equal(broker.calls.slice(before).filter((c) => c.startsWith('produce')).length, 3);
});

test('a record too large alone without dead letters gives the transaction up with a RecordRefusedError naming it; nothing of it is committed', async () => {
  const broker = new FakeBroker();
  broker.maxBatchBytes.set('a.t', 400);
  const tx = make(broker);
  await tx.claim([0], member);
  await assert.rejects(
    tx.commit(0, [[record('a.t', 0, 'x')], [record('a.t', 0, 'B'.repeat(500))]], [record('mm2-offsets.a.internal', 7, 'p')]),
    (error: unknown) => error instanceof RecordRefusedError && error.index === 1 && /larger than a\.t-0 takes/.test(error.message),
  );
  assert.equal(broker.committed.get('a.t-0'), undefined);
  assert.equal(broker.committed.get('mm2-offsets.a.internal-7'), undefined);
  // The next transaction starts with a new epoch (the old one's open transaction is aborted).
  await tx.commit(0, [[record('a.t', 0, 'y')]], []);
  assert.deepEqual(broker.committed.get('a.t-0'), ['y']);
  assert.equal(broker.calls.filter((c) => c.startsWith('init')).length, 2);
});
