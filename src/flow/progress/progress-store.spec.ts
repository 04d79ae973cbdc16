import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Observable, Subject, defer, firstValueFrom, from, lastValueFrom, of, throwError } from '#rxjs';
import type { ClusterAdmin, NewTopic } from '../../core/ports/cluster-admin';
import type { TopicReader } from '../../core/ports/record-source';
import type { OutboundItem, OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import type { KafkaRecord, DecodedSourceBatch } from '../../core/record';
import { silentLogger } from '../../core/ports/logger';
import { connectOffsetsPartition, decodeConnectOffsetValue, encodeConnectOffsetValue, encodeSourceOffsetKey } from '../../formats';
import { ProgressStore } from './progress-store';

const TOPIC = 'mm2-offsets.primary.internal';

const stored = (key: Buffer | string, value: Buffer | null, offset: number): KafkaRecord => ({
  topic: TOPIC,
  partition: 0,
  offset,
  timestamp: 0,
  key: typeof key === 'string' ? Buffer.from(key) : key,
  value,
  headers: [],
});

function harness(records: KafkaRecord[], options: { partitions?: number; failWrites?: number } = {}) {
  const created: NewTopic[] = [];
  const writes: OutboundRecord[][] = [];
  let failures = options.failWrites ?? 0;
  const targetAdmin = {
    cluster: 'backup',
    createTopics: (topics: readonly NewTopic[]) => defer(() => (created.push(...topics), of([]))),
    describeTopics: (names: readonly string[]) => of(names.includes(TOPIC) ? [{ name: TOPIC, partitions: options.partitions ?? 25 }] : []),
  } as unknown as ClusterAdmin;
  const reader = {
    cluster: 'backup',
    readToEnd: (): Observable<DecodedSourceBatch> =>
      from([{ kind: 'records' as const, topic: TOPIC, partition: 0, records, nextOffset: records.length, highWatermark: records.length, bytes: 0 }]),
  } as unknown as TopicReader;
  const writer: RecordWriter = {
    cluster: 'backup',
    write: (items: readonly OutboundItem[]) =>
      defer(() => {
        if (failures-- > 0) return throwError(() => new Error('NOT_ENOUGH_REPLICAS'));
        writes.push(items as OutboundRecord[]);
        return of(new Float64Array(items.length));
      }),
    close: async () => undefined,
  };
  const store = new ProgressStore({ sourceAlias: 'primary', topic: TOPIC, replicationFactor: -1, targetAdmin, reader, writer, logger: silentLogger });
  return { store, created, writes };
}

const key = (topic: string, partition: number, cluster = 'primary') => encodeSourceOffsetKey({ sourceClusterAlias: cluster, topic, partition });

describe('ProgressStore', () => {
  it("loads this source's MirrorSourceConnector offsets as MM2 stored them, the last one per partition winning, and resumes after them", async () => {
    const h = harness([
      stored(key('orders', 0), encodeConnectOffsetValue(41), 0),
      stored(key('orders', 0), encodeConnectOffsetValue(99), 1),
      stored(key('orders', 1, 'other'), encodeConnectOffsetValue(7), 2), // another source's flow
      stored('["MirrorCheckpointConnector",{"cluster":"primary","partition":2,"topic":"orders"}]', encodeConnectOffsetValue(5), 3),
      stored(key('payments', 0), encodeConnectOffsetValue(3), 4),
      stored(key('payments', 0), null, 5), // a tombstone forgets the partition
      stored('not json', Buffer.from('{'), 6), // malformed: skipped, not fatal
    ]);
    await lastValueFrom(h.store.load(), { defaultValue: undefined });
    assert.deepEqual(h.created, [{ name: TOPIC, partitions: 25, replicationFactor: -1, configs: { 'cleanup.policy': 'compact' } }]);
    assert.equal(h.store.nextOffset({ topic: 'orders', partition: 0 }), 100);
    assert.equal(h.store.nextOffset({ topic: 'orders', partition: 1 }), undefined);
    assert.equal(h.store.nextOffset({ topic: 'orders', partition: 2 }), undefined);
    assert.equal(h.store.nextOffset({ topic: 'payments', partition: 0 }), undefined);
  });

  it('writes each changed partition once per flush, with MM2 key, value and partitioning, and never moves an offset back', async () => {
    const h = harness([], { partitions: 5 });
    await lastValueFrom(h.store.load(), { defaultValue: undefined });
    h.store.markReplicated({ topic: 'orders', partition: 0 }, 10);
    h.store.markReplicated({ topic: 'orders', partition: 0 }, 12);
    h.store.markReplicated({ topic: 'orders', partition: 0 }, 11); // late acknowledgement of an older batch
    h.store.markReplicated({ topic: 'orders', partition: 3 }, 0);
    await firstValueFrom(h.store.flush());
    assert.equal(h.writes.length, 1);
    assert.deepEqual(
      h.writes[0]!.map((r) => [r.topic, r.partition, r.key!.toString(), r.value!.toString()]),
      [
        [TOPIC, connectOffsetsPartition(key('orders', 0), 5), key('orders', 0).toString(), encodeConnectOffsetValue(12).toString()],
        [TOPIC, connectOffsetsPartition(key('orders', 3), 5), key('orders', 3).toString(), encodeConnectOffsetValue(0).toString()],
      ],
    );
    assert.equal(h.store.nextOffset({ topic: 'orders', partition: 0 }), 13);
    await firstValueFrom(h.store.flush());
    assert.equal(h.writes.length, 1, 'nothing changed, nothing written');
  });

  it('keeps offsets whose write failed for the next flush', async () => {
    const h = harness([], { failWrites: 1 });
    await lastValueFrom(h.store.load(), { defaultValue: undefined });
    h.store.markReplicated({ topic: 'orders', partition: 0 }, 5);
    await assert.rejects(firstValueFrom(h.store.flush()), /NOT_ENOUGH_REPLICAS/);
    assert.equal(h.store.pendingFlush, 1);
    h.store.markReplicated({ topic: 'orders', partition: 0 }, 8);
    await firstValueFrom(h.store.flush());
    assert.deepEqual(
      h.writes.map((w) => w.map((r) => r.value!.toString())),
      [[encodeConnectOffsetValue(8).toString()]],
    );
    assert.equal(h.store.pendingFlush, 0);
  });

  it('a flush dropped while its write is out (a stop) still counts: the next flush waits for that write, and writes again only what it failed to store', async () => {
    const answers: Subject<Float64Array>[] = [];
    const writes: string[][] = [];
    const writer: RecordWriter = {
      cluster: 'backup',
      write: (items: readonly OutboundItem[]) =>
        defer(() => {
          writes.push((items as OutboundRecord[]).map((r) => r.value!.toString()));
          const answer = new Subject<Float64Array>();
          answers.push(answer);
          return answer;
        }),
      close: async () => undefined,
    };
    const store = new ProgressStore({
      sourceAlias: 'primary',
      topic: TOPIC,
      replicationFactor: 1,
      targetAdmin: {} as ClusterAdmin,
      reader: {} as TopicReader,
      writer,
      logger: silentLogger,
    });
    const offset = (n: number): string => encodeConnectOffsetValue(n).toString();

    store.markReplicated(tp, 5);
    const dropped = store.flush().subscribe();
    await until(() => answers.length === 1);
    dropped.unsubscribe();
    store.markReplicated(tp, 7);
    const next = firstValueFrom(store.flush());
    await tick();
    assert.equal(writes.length, 1, 'no second write while the first is unanswered: progress lands in the order it was taken');
    answers[0]!.next(new Float64Array(1));
    answers[0]!.complete();
    await until(() => answers.length === 2);
    assert.deepEqual(writes, [[offset(5)], [offset(7)]]);
    answers[1]!.next(new Float64Array(1));
    answers[1]!.complete();
    await next;

    // The dropped write fails after its flush was given up: the final flush stores its offset.
    store.markReplicated(tp, 9);
    const failing = store.flush().subscribe({ error: () => undefined });
    await until(() => answers.length === 3);
    failing.unsubscribe();
    const final = firstValueFrom(store.flush());
    answers[2]!.error(new Error('REQUEST_TIMED_OUT'));
    await until(() => answers.length === 4);
    assert.deepEqual(writes.at(-1), [offset(9)]);
    answers[3]!.next(new Float64Array(1));
    answers[3]!.complete();
    await final;
    assert.equal(store.pendingFlush, 0);
  });
});

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await tick();
  assert.ok(condition(), 'the condition never held');
}

function store(): { progress: ProgressStore; written: OutboundRecord[] } {
  const written: OutboundRecord[] = [];
  const writer: RecordWriter = {
    cluster: 'backup',
    write(records: readonly OutboundRecord[]): Observable<Float64Array> {
      written.push(...records);
      return of(new Float64Array(records.length));
    },
    close: async () => {},
  };
  const progress = new ProgressStore({
    sourceAlias: 'primary',
    topic: 'mm2-offsets.primary.internal',
    replicationFactor: 1,
    targetAdmin: {} as ClusterAdmin,
    reader: {} as TopicReader,
    writer,
    logger: silentLogger,
  });
  return { progress, written };
}

const tp = { topic: 'orders', partition: 0 };

test('progress never goes backwards through acknowledgements, only through a rewind for a restarted source log', async () => {
  const { progress, written } = store();
  progress.markReplicated(tp, 9);
  progress.markReplicated(tp, 4); // a late acknowledgement of older records
  assert.equal(progress.nextOffset(tp), 10);
  progress.rewind(tp, 0);
  assert.equal(progress.nextOffset(tp), 0, 'the new log is read from its start');
  await lastValueFrom(progress.flush(), { defaultValue: undefined });
  assert.deepEqual(
    written.map((r) => decodeConnectOffsetValue(r.value)),
    [-1],
    'stored as MM2 stores "nothing replicated yet": the last offset done, -1',
  );
});

test('a new assignment reads the topic again (what the previous owner stored last), owns only its partitions, and a revoke forgets them', async () => {
  const records = [stored(key('orders', 0), encodeConnectOffsetValue(10), 0)];
  const h = harness(records);
  await lastValueFrom(h.store.load(), { defaultValue: undefined });
  assert.equal(h.store.nextOffset({ topic: 'orders', partition: 0 }), 11);
  // Another member stored a newer position since this one loaded.
  records.push(stored(key('orders', 0), encodeConnectOffsetValue(50), 1));
  await lastValueFrom(h.store.reload([{ topic: 'orders', partition: 0 }]), { defaultValue: undefined });
  assert.equal(h.store.nextOffset({ topic: 'orders', partition: 0 }), 51, 'the stored position as it is now, not the start snapshot');
  h.store.markReplicated({ topic: 'orders', partition: 1 }, 5); // not this member's
  h.store.markReplicated({ topic: 'orders', partition: 0 }, 60);
  await lastValueFrom(h.store.flush(), { defaultValue: undefined });
  assert.deepEqual(
    h.writes.flat().map((r) => decodeConnectOffsetValue(r.value)),
    [60],
  );
  h.store.disown();
  h.store.markReplicated({ topic: 'orders', partition: 0 }, 70);
  assert.equal(h.store.pendingFlush, 0, 'a revoked partition records nothing more');
  assert.equal(h.store.nextOffset({ topic: 'orders', partition: 0 }), undefined);
  await lastValueFrom(h.store.reload([{ topic: 'orders', partition: 0 }]), { defaultValue: undefined });
  assert.equal(h.store.nextOffset({ topic: 'orders', partition: 0 }), 71, 'assigned here again: what it acknowledged after the revoke counts');
});

test('a stale owner (the group moved on without it) writes nothing but remembers what it copied for when it owns the partition again; a current one writes', async () => {
  const h = harness([]);
  await lastValueFrom(h.store.reload([{ topic: 'orders', partition: 0 }]), { defaultValue: undefined });
  h.store.markReplicated({ topic: 'orders', partition: 0 }, 7);
  await lastValueFrom(
    h.store.flush(async () => true),
    { defaultValue: undefined },
  );
  assert.equal(h.writes.length, 1);
  h.store.markReplicated({ topic: 'orders', partition: 0 }, 9);
  await lastValueFrom(
    h.store.flush(async () => false),
    { defaultValue: undefined },
  );
  assert.equal(h.writes.length, 1, 'fenced: nothing written over the new owner');
  assert.equal(h.store.pendingFlush, 0);
  // Copied on while it did not know it was out (the write was in flight, or fetched before kafkajs
  // heard it was no member any more): remembered, not written.
  h.store.markReplicated({ topic: 'orders', partition: 0 }, 11);
  assert.equal(h.store.pendingFlush, 0, 'and nothing written until a new assignment');
  // Assigned the partition again: what it had acknowledged (11) is newer than what is stored (7).
  await lastValueFrom(h.store.reload([{ topic: 'orders', partition: 0 }]), { defaultValue: undefined });
  assert.equal(h.store.nextOffset({ topic: 'orders', partition: 0 }), 12, 'it does not copy again what it already copied, fenced or not');
  assert.equal(h.store.pendingFlush, 1, 'and it stores that now, as the owner');
});

describe('ProgressStore, exactly-once', () => {
  it("writes no progress of its own for a transaction's records: progressRecords are MM2's records, the newest per partition", () => {
    const { store } = harness([]);
    const records = store.progressRecords([
      { tp: { topic: 'orders', partition: 0 }, offset: 9 },
      { tp: { topic: 'orders', partition: 0 }, offset: 19 },
      { tp: { topic: 'orders', partition: 1 }, offset: 4 },
    ]);
    assert.deepEqual(
      records.map((r) => [r.key?.toString(), decodeConnectOffsetValue(r.value), r.partition]),
      [
        [key('orders', 0).toString(), 19, connectOffsetsPartition(key('orders', 0), 25)],
        [key('orders', 1).toString(), 4, connectOffsetsPartition(key('orders', 1), 25)],
      ],
    );
  });

  it('reads back the slot count it stored, and only its own source’s', async () => {
    const { store } = harness([]);
    const record = store.slotCountRecord(8);
    const other = harness([]).store;
    const h = harness([
      stored(record.key!, record.value, 0),
      stored(encodeSourceOffsetKey({ sourceClusterAlias: 'elsewhere', topic: '', partition: 0 }, 'MirrorflowSlots'), encodeConnectOffsetValue(3), 1),
    ]);
    await lastValueFrom(h.store.load(), { defaultValue: undefined });
    assert.equal(h.store.storedSlotCount, 8);
    assert.equal(other.storedSlotCount, undefined);
    assert.equal(h.store.nextOffset({ topic: '', partition: 0 }), undefined, 'the slot count is not progress');
  });
});

test("alter writes the offsets it is given, backwards too, and a tombstone for null, as Connect's PATCH and DELETE …/offsets do; stored() lists what is kept", async () => {
  const h = harness([stored(key('orders', 0), encodeConnectOffsetValue(41), 0), stored(key('orders', 1), encodeConnectOffsetValue(7), 1)]);
  await lastValueFrom(h.store.load(), { defaultValue: undefined });
  assert.deepEqual(
    h.store.stored().map((e) => [e.tp.partition, e.offset]),
    [
      [0, 41],
      [1, 7],
    ],
  );
  await h.store.alter([
    { tp: { topic: 'orders', partition: 0 }, offset: 9 },
    { tp: { topic: 'orders', partition: 1 }, offset: null },
  ]);
  const written = h.writes.flat();
  assert.deepEqual(
    written.map((r) => [r.key?.toString(), r.value === null ? null : decodeConnectOffsetValue(r.value), r.partition]),
    [
      [key('orders', 0).toString(), 9, connectOffsetsPartition(key('orders', 0), 25)],
      [key('orders', 1).toString(), null, connectOffsetsPartition(key('orders', 1), 25)],
    ],
    "MM2's keys on the partitions Java's producer picks; null is a tombstone",
  );
  assert.equal(h.store.nextOffset({ topic: 'orders', partition: 0 }), 10, 'the flow resumes after the altered offset');
  assert.equal(h.store.nextOffset({ topic: 'orders', partition: 1 }), undefined, 'a reset partition starts as a new one');
  assert.deepEqual(
    h.store.stored().map((e) => [e.tp.partition, e.offset]),
    [[0, 9]],
  );
});
