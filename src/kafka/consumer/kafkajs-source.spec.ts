import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Subscription } from '#rxjs';
import type { EachBatchPayload, Kafka } from '../kafkajs';
import type { ConsumeOptions, LogRestart, PartitionLifecycle } from '../../core/ports/record-source';
import type { TopicPartition } from '../../core/record';
import type { SourceBatch } from '../../core/record';
import { silentLogger } from '../../core/ports/logger';
import { KafkaTransportError } from '../../core/errors';
import { KafkajsSource } from './kafkajs-source';
import type { DecodedMessage } from './split-fetch';

type Handler = (event: { payload: Record<string, unknown> }) => void;

/** A kafkajs consumer the test drives: its group events, and the batches kafkajs would hand `eachBatch`. */
class FakeConsumer {
  readonly events = { GROUP_JOIN: 'group-join', END_BATCH_PROCESS: 'end-batch', CRASH: 'crash' };
  readonly handlers = new Map<string, Handler>();
  readonly seeks: { topic: string; partition: number; offset: string }[] = [];
  config: Record<string, unknown> | undefined;
  subscribed: readonly string[] = [];
  eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
  disconnects = 0;
  connectFails: Error | undefined;

  on(event: string, handler: Handler): void {
    this.handlers.set(event, handler);
  }
  emit(event: string, payload: Record<string, unknown>): void {
    this.handlers.get(event)!({ payload });
  }
  async connect(): Promise<void> {
    if (this.connectFails) throw this.connectFails;
  }
  async subscribe({ topics }: { topics: string[] }): Promise<void> {
    this.subscribed = topics;
  }
  async run({ eachBatch }: { eachBatch: (payload: EachBatchPayload) => Promise<void> }): Promise<void> {
    this.eachBatch = eachBatch;
  }
  seek(position: { topic: string; partition: number; offset: string }): void {
    this.seeks.push(position);
  }
  // New partitions wait, paused, until their start is known; kept ones read on.
  pause(): void {}
  resume(): void {}
  async disconnect(): Promise<void> {
    this.disconnects++;
  }

  /** Hands `eachBatch` a fetch of `partition` of `orders` with the records at `offsets`. */
  fetch(partition: number, offsets: readonly number[], highWatermark: number, running = true): Promise<void> {
    const messages = offsets.map(
      (offset) =>
        ({ offset: String(offset), timestamp: '1700000000000', key: null, value: Buffer.from(`v${offset}`), headers: [] }) as unknown as DecodedMessage,
    );
    const batch = { topic: 'orders', partition, highWatermark: String(highWatermark), lastOffset: () => String(offsets.at(-1)!), messages };
    return this.eachBatch!({ batch, heartbeat: async () => undefined, isRunning: () => running, isStale: () => false } as unknown as EachBatchPayload);
  }
}

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function harness(starts: Record<number, number>, restartTo?: number) {
  const consumer = new FakeConsumer();
  const forwarded: unknown[] = [];
  const kafka = (forward: unknown) => {
    forwarded.push(forward);
    return {
      consumer: (config: Record<string, unknown>) => {
        consumer.config = config;
        return consumer;
      },
    } as unknown as Kafka;
  };
  const source = new KafkajsSource(
    'primary',
    kafka,
    { role: 'source', isolationLevel: 'read_committed', maxBytesPerPartition: 1024, maxWaitMs: 100 },
    silentLogger,
  );
  const calls = { assigned: [] as (readonly TopicPartition[])[], revoked: 0, restarts: [] as LogRestart[], acquired: [] as number[], released: [] as number[] };
  const lifecycle: PartitionLifecycle = {
    revoke: async () => void calls.revoked++,
    assigned: (partitions) => {
      calls.assigned.push(partitions);
      return [];
    },
    startOffset: async ({ partition }) => starts[partition]!,
    logRestarted: async (_tp, restart) => {
      calls.restarts.push(restart);
      return restartTo!;
    },
    fetchedPast: () => undefined,
  };
  const options = (more: Partial<ConsumeOptions> = {}): ConsumeOptions => ({
    topics: ['orders'],
    groupId: 'mirrorflow.p.primary-backup',
    lifecycle,
    flowControl: { acquire: async (bytes) => void calls.acquired.push(bytes), release: (bytes) => void calls.released.push(bytes) },
    ...more,
  });
  const batches: SourceBatch[] = [];
  const failure: { error?: unknown } = {};
  let subscription: Subscription | undefined;
  const consume = async (more?: Partial<ConsumeOptions>): Promise<void> => {
    subscription = source.consume(options(more)).subscribe({ next: (b) => batches.push(b), error: (error: unknown) => (failure.error = error) });
    await settled();
  };
  const assign = (partitions: readonly number[]): void => consumer.emit(consumer.events.GROUP_JOIN, { memberAssignment: { orders: partitions } });
  return { consumer, source, calls, batches, failure, forwarded, consume, assign, stop: () => subscription?.unsubscribe() };
}

const shape = (batches: readonly SourceBatch[]) =>
  batches.map((b) => (b.kind === 'records' ? `${b.partition}: ${b.records.map((r) => r.offset).join(',')} next ${b.nextOffset}` : `${b.partition}: batches`));

test('a consumer that never commits joins the group, subscribes from the beginning, and hands over fetches from where the flow starts each partition', async () => {
  const h = harness({ 0: 5, 1: 0 });
  await h.consume();
  assert.deepEqual(h.consumer.subscribed, ['orders']);
  assert.equal(h.consumer.config!['groupId'], 'mirrorflow.p.primary-backup');
  assert.equal(h.consumer.config!['readUncommitted'], false);
  assert.deepEqual(h.forwarded, [undefined], 'no forwarding asked for');
  h.assign([0, 1]);
  assert.deepEqual(h.calls.assigned, [
    [
      { topic: 'orders', partition: 0 },
      { topic: 'orders', partition: 1 },
    ],
  ]);
  await h.consumer.fetch(0, [3, 4, 5, 6], 7);
  await h.consumer.fetch(1, [0, 1], 2);
  await h.consumer.fetch(0, [7], 8);
  assert.deepEqual(shape(h.batches), ['0: 5,6 next 7', '1: 0,1 next 2', '0: 7 next 8']);
  assert.equal(h.calls.acquired.length, 3, 'every fetch takes its bytes from the flow first');
  h.stop();
  await h.source.stopped();
  assert.equal(h.consumer.disconnects, 1, 'it leaves its group once stopped');
});

test('a fetch before the start seeks there and hands nothing over; a restarted log goes where the flow says', async () => {
  const h = harness({ 0: 10 }, 2);
  await h.consume();
  h.assign([0]);
  await h.consumer.fetch(0, [0, 1, 2], 20);
  assert.deepEqual(h.consumer.seeks, [{ topic: 'orders', partition: 0, offset: '10' }]);
  assert.deepEqual(h.batches, []);
  // The log now ends at 4, before offset 10: recreated; the flow resumes it at 2.
  await h.consumer.fetch(0, [0, 1], 4);
  assert.deepEqual(h.calls.restarts, [{ expected: 10, logEnd: 4 }]);
  assert.deepEqual(h.consumer.seeks.at(-1), { topic: 'orders', partition: 0, offset: '2' });
  await h.consumer.fetch(0, [2, 3], 4);
  assert.deepEqual(shape(h.batches), ['0: 2,3 next 4']);
  h.stop();
});

test('a fetch whose records were all filtered out moves the position past them', async () => {
  const h = harness({ 0: 5 });
  await h.consume();
  h.assign([0]);
  h.consumer.emit(h.consumer.events.END_BATCH_PROCESS, { topic: 'orders', partition: 0, batchSize: 0, lastOffset: '8', highWatermark: '9' });
  h.consumer.emit(h.consumer.events.END_BATCH_PROCESS, { topic: 'orders', partition: 0, batchSize: 2, lastOffset: '10', highWatermark: '11' });
  h.consumer.emit(h.consumer.events.END_BATCH_PROCESS, { topic: 'orders', partition: 3, batchSize: 0, lastOffset: '1', highWatermark: '2' });
  await settled();
  assert.deepEqual(h.batches, [{ kind: 'records', topic: 'orders', partition: 0, records: [], nextOffset: 9, highWatermark: 9, bytes: 0 }]);
  h.stop();
});

test('a fetch after the consumer stopped running gives its bytes back and hands nothing over', async () => {
  const h = harness({ 0: 0 });
  await h.consume();
  h.assign([0]);
  await h.consumer.fetch(0, [0, 1], 2, false);
  assert.deepEqual(h.batches, []);
  h.stop();
});

test('a partition not in the assignment still asks the flow where it starts', async () => {
  const h = harness({ 2: 1 });
  await h.consume();
  await h.consumer.fetch(2, [0, 1], 2);
  assert.deepEqual(shape(h.batches), ['2: 1 next 2']);
  h.stop();
});

test('a consumer that cannot start fails the flow with a transport error; a crash kafkajs will not restart fails it too', async () => {
  const h = harness({});
  h.consumer.connectFails = Object.assign(new Error('Connection error: connect ECONNREFUSED'), { name: 'KafkaJSConnectionError', retriable: true });
  await h.consume();
  assert.ok(h.failure.error instanceof KafkaTransportError, String(h.failure.error));
  assert.match(String(h.failure.error), /Starting the consumer/);

  const crashed = harness({});
  await crashed.consume({ topics: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] });
  crashed.consumer.emit(crashed.consumer.events.CRASH, { restart: false, error: new Error('boom') });
  assert.match(String(crashed.failure.error), /topics "a", "b", "c", "d", "e" and 2 more/);
});

test('a forwarding consumer asks for connections that forward record batches, with the codec of the target compression', async () => {
  const h = harness({});
  await h.consume({ forwardRecordBatches: { minCompressedBytes: 100, maxBytes: 1000, compression: 'gzip' } });
  assert.deepEqual(h.forwarded, [{ minCompressedBytes: 100, maxBytes: 1000, codec: 1 }]);
  h.stop();
});
