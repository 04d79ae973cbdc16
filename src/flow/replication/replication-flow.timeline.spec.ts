/**
 * ReplicationFlow on a timeline: the real flow against fake ports, in virtual time (VirtualClock),
 * so batching, the flush timer, a stop during a write, retries through an outage and the reuse
 * of a topic's offsets are asserted at the moments they happen, without waiting on a clock.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, Observable, Subject, defer, map, of, throwError, timer, type Subscriber } from 'rxjs';
import { KafkaTransportError } from '../../core/errors';
import { silentLogger } from '../../core/ports/logger';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { ConsumeOptions, RecordSource } from '../../core/ports/record-source';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import { topicPartitionKey, type KafkaRecord, type SourceBatch, type TopicPartition } from '../../core/record';
import { FlowStatus } from '../status/flow-status';
import type { ProgressStore } from '../progress/progress-store';
import { ReplicationFlow, type ReplicationFlowSettings } from './replication-flow';
import type { TopicSync } from '../topics/topic-sync';
import { VirtualClock } from '../virtual-clock';

interface Options {
  /** Virtual ms each write to the target takes. */
  readonly writeMs?: number;
  /** The first writes that fail with a retriable error (a target broker down). */
  readonly failingWrites?: number;
  readonly settings?: Partial<ReplicationFlowSettings>;
}

/** The flow with fakes behind its ports, all on one virtual clock; what each fake saw, with its time. */
function harness(options: Options = {}) {
  const clock = new VirtualClock();
  const { scheduler } = clock;
  const writes: { at: number; values: string[] }[] = [];
  const flushes: { at: number; stored: Record<string, number> }[] = [];
  const offsetQueries: { at: number; topic: string }[] = [];
  const consumers: { options: ConsumeOptions; subscriber: Subscriber<SourceBatch>; closedAt?: number }[] = [];
  let failing = options.failingWrites ?? 0;
  let targetOffset = 0;

  const marked = new Map<string, number>();
  let stored: Record<string, number> = {};
  const progress = {
    load: () => EMPTY,
    nextOffset: (tp: TopicPartition) => {
      const last = marked.get(topicPartitionKey(tp));
      return last === undefined ? undefined : last + 1;
    },
    markReplicated: (tp: TopicPartition, offset: number) => void marked.set(topicPartitionKey(tp), offset),
    flush: () =>
      defer(() => {
        stored = Object.fromEntries(marked);
        flushes.push({ at: clock.now, stored });
        return EMPTY;
      }),
  } as unknown as ProgressStore;

  const writer: RecordWriter = {
    cluster: 'backup',
    write: (items) =>
      defer(() => {
        writes.push({ at: clock.now, values: items.map((i) => (i as OutboundRecord).value!.toString()) });
        if (failing > 0) {
          failing--;
          return throwError(() => new KafkaTransportError('backup', 'Connection refused', true));
        }
        return timer(options.writeMs ?? 10, scheduler).pipe(map(() => Float64Array.from(items, () => targetOffset++)));
      }),
    close: async () => undefined,
  };

  const source: RecordSource = {
    cluster: 'primary',
    consume: (consumeOptions) =>
      new Observable<SourceBatch>((subscriber) => {
        const consumer: (typeof consumers)[number] = { options: consumeOptions, subscriber };
        consumers.push(consumer);
        return () => (consumer.closedAt = clock.now);
      }),
  };

  const admin = {
    cluster: 'primary',
    partitionOffsets: (topic: string) =>
      defer(() => {
        offsetQueries.push({ at: clock.now, topic });
        return of([0, 1, 2, 3, 4].map((partition) => ({ partition, earliest: 100 + partition, latest: 500 })));
      }),
  } as unknown as ClusterAdmin;

  const status = new FlowStatus('primary', 'backup');
  const flow = new ReplicationFlow({
    settings: {
      source: 'primary',
      target: 'backup',
      groupId: 'g',
      start: 'earliest',
      autoOffsetReset: 'earliest',
      refreshTopics: true,
      refreshIntervalMs: 60_000,
      flushIntervalMs: 5_000,
      batching: { maxRecords: 100, maxBytes: 1 << 20, maxWaitMs: 0, maxPartitionBytes: 1 << 20 },
      maxInFlightBytes: 1 << 20,
      errorTolerance: 'none',
      ...options.settings,
    },
    sourceRecords: source,
    sourceAdmin: admin,
    writer,
    topicSync: { refresh: () => of([{ source: 'orders', target: 'primary.orders', partitions: 5 }]) } as unknown as TopicSync,
    progress,
    offsetSyncEmitter: undefined,
    remoteTopic: (topic) => `primary.${topic}`,
    transform: (records) => records,
    scheduler,
    logger: silentLogger,
    status,
  });

  /** Fetches `count` records of orders-`partition` from `from` on, as the source would hand them over. */
  const fetch = (partition: number, from: number, count: number): void => {
    const records: KafkaRecord[] = Array.from({ length: count }, (_, i) => ({
      topic: 'orders',
      partition,
      offset: from + i,
      timestamp: 0,
      key: null,
      value: Buffer.from(`${partition}:${from + i}`),
      headers: [],
    }));
    const consumer = consumers.at(-1)!;
    const bytes = count * 10;
    void consumer.options.flowControl.acquire(bytes);
    consumer.subscriber.next({ kind: 'records', topic: 'orders', partition, records, nextOffset: from + count, highWatermark: from + count, bytes });
  };

  const stop$ = new Subject<void>();
  const run = { completedAt: undefined as number | undefined, error: undefined as unknown };
  const start = async (): Promise<void> => {
    flow.run(stop$).subscribe({ complete: () => (run.completedAt = clock.now), error: (error: unknown) => (run.error = error) });
    await clock.advance(0);
  };
  const stop = (): void => stop$.next();
  return { clock, flow, status, writes, flushes, offsetQueries, consumers, fetch, start, stop, run, stored: () => stored };
}

const sizes = (writes: readonly { values: string[] }[]): number[] => writes.map((w) => w.values.length);
const times = (events: readonly { at: number }[]): number[] => events.map((e) => e.at);

describe('ReplicationFlow in virtual time', () => {
  test('under load, what arrives during a write goes out together when it returns, up to max_records', async () => {
    const h = harness({ writeMs: 50 });
    await h.start();
    h.fetch(0, 0, 10); // the target is idle: written at once
    for (const at of [10, 20, 30]) {
      await h.clock.advanceTo(at);
      h.fetch(0, at, 10);
    }
    await h.clock.advanceTo(60);
    for (let i = 0; i < 15; i++) h.fetch(1, i * 10, 10);
    await h.clock.advanceTo(1_000);
    assert.deepEqual(sizes(h.writes), [10, 30, 100, 50]);
    assert.deepEqual(times(h.writes), [0, 50, 100, 150]);
    assert.equal(h.status.recordsReplicated, 190);
    assert.equal(h.status.bufferedBytes, 0, 'every acknowledged batch gives its bytes back');
    // A batch commits whole and is never split, so the source is asked for none larger than a write.
    assert.deepEqual(h.consumers[0]!.options.maxBatch, { records: 100, bytes: 1 << 20 });
  });

  test('with batching.max_wait_ms unset, an idle target gets a batch at once; while a write is out, the next waits for more', async () => {
    const h = harness({
      writeMs: 500,
      settings: { batching: { maxRecords: 100, maxBytes: 1 << 20, maxWaitMs: 200, waitWhenIdle: false, maxPartitionBytes: 1 << 20, maxInFlight: 2 } },
    });
    await h.start();
    h.fetch(0, 0, 1);
    await h.clock.advanceTo(100);
    assert.deepEqual(h.writes, [{ at: 0, values: ['0:0'] }], 'nothing was out: written at once');
    h.fetch(0, 1, 1);
    await h.clock.advanceTo(150);
    h.fetch(0, 2, 1);
    await h.clock.advanceTo(1_000);
    assert.deepEqual(h.writes, [
      { at: 0, values: ['0:0'] },
      { at: 300, values: ['0:1', '0:2'] },
    ]);
  });

  test('with batching.max_wait_ms set, a batch waits that long for more even while the target is idle', async () => {
    const h = harness({ settings: { batching: { maxRecords: 100, maxBytes: 1 << 20, maxWaitMs: 200, waitWhenIdle: true, maxPartitionBytes: 1 << 20 } } });
    await h.start();
    h.fetch(0, 0, 1);
    await h.clock.advanceTo(150);
    h.fetch(0, 1, 1);
    assert.deepEqual(h.writes, [], 'nothing is written before max_wait_ms');
    await h.clock.advanceTo(1_000);
    assert.deepEqual(h.writes, [{ at: 200, values: ['0:0', '0:1'] }]);
  });

  test('the flush timer stores every flush_interval_ms what the target acknowledged by then, never what is still in flight', async () => {
    const h = harness({ writeMs: 100 });
    await h.start();
    h.fetch(0, 0, 10);
    await h.clock.advanceTo(4_950);
    h.fetch(0, 10, 5); // acknowledged at 5_050, after the first flush
    await h.clock.advanceTo(10_000);
    assert.deepEqual(h.flushes, [
      { at: 5_000, stored: { 'orders-0': 9 } },
      { at: 10_000, stored: { 'orders-0': 14 } },
    ]);
  });

  test('a stop during a write stops fetching at once, waits for the acknowledgement, stores it and completes', async () => {
    const h = harness({ writeMs: 1_000 });
    await h.start();
    h.fetch(0, 0, 10);
    await h.clock.advanceTo(100);
    h.stop();
    await h.clock.advanceTo(100);
    assert.equal(h.consumers[0]!.closedAt, 100, 'the consumer is closed when the stop comes');
    assert.equal(h.status.state, 'draining');
    await h.clock.advanceTo(999);
    assert.equal(h.run.completedAt, undefined, 'the flow waits for the write in flight');
    assert.deepEqual(h.flushes, []);
    await h.clock.advanceTo(2_000);
    assert.deepEqual(h.flushes, [{ at: 1_000, stored: { 'orders-0': 9 } }]);
    assert.equal(h.run.completedAt, 1_000);
    assert.equal(h.status.state, 'stopped');
    assert.equal(h.clock.pendingTimers, 0, 'a stopped flow leaves no timer behind');
  });

  test('a write that fails retriably is retried with growing waits up to 5 s, reported as an outage until it succeeds', async () => {
    const h = harness({ failingWrites: 6, writeMs: 10 });
    await h.start();
    h.fetch(0, 0, 3);
    await h.clock.advanceTo(3_000);
    assert.deepEqual(
      h.status.outages.current.map((o) => [o.cluster, o.operation, o.since]),
      [['backup', 'writing records', 0]],
    );
    assert.equal(h.flushes.length, 0);
    await h.clock.advanceTo(60_000);
    const gaps = times(h.writes)
      .slice(1)
      .map((at, i) => at - h.writes[i]!.at);
    // 500 ms doubling up to 5 s, each spread by ±20 %.
    const expected = [500, 1_000, 2_000, 4_000, 5_000, 5_000];
    assert.equal(gaps.length, expected.length, `tries at ${times(h.writes).join(', ')}`);
    gaps.forEach((gap, i) => assert.ok(gap >= expected[i]! * 0.8 && gap <= expected[i]! * 1.2, `wait ${i + 1}: ${gap} ms, expected ${expected[i]} ±20 %`));
    assert.deepEqual(h.status.outages.current, [], 'the outage ends with the write that worked');
    assert.equal(h.status.recordsReplicated, 3, 'the records count once');
    assert.deepEqual(h.flushes.at(-1)?.stored, { 'orders-0': 2 });
  });

  test("partitions assigned together share one answer about their topic's offsets for 2 s; later ones ask again", async () => {
    const h = harness();
    await h.start();
    const { lifecycle } = h.consumers[0]!.options;
    const pending = Promise.all([0, 1, 2].map((partition) => lifecycle.startOffset({ topic: 'orders', partition })));
    await h.clock.advance(0); // the topics asked about in one turn are read together on the next
    const starts = await pending;
    assert.deepEqual(starts, [100, 101, 102], 'start: earliest begins at each log start');
    await h.clock.advanceTo(1_999);
    assert.equal(await lifecycle.startOffset({ topic: 'orders', partition: 3 }), 103);
    assert.deepEqual(h.offsetQueries, [{ at: 0, topic: 'orders' }]);
    await h.clock.advanceTo(2_000);
    const fourth = lifecycle.startOffset({ topic: 'orders', partition: 4 });
    await h.clock.advance(0);
    assert.equal(await fourth, 104);
    assert.deepEqual(times(h.offsetQueries), [0, 2_000]);
    h.stop();
    await h.clock.advance(0);
    assert.equal(h.status.state, 'stopped');
    assert.equal(h.clock.pendingTimers, 0, 'the pending forget timer is cancelled with the flow');
  });

  test("a partition's start is its stored progress when there is some, without asking the source", async () => {
    const h = harness({ settings: { start: 'latest' } });
    await h.start();
    const { lifecycle } = h.consumers[0]!.options;
    // start: latest begins at the log end and stores it as progress before the partition is read
    // (MM2's offset -1 when empty), so a next owner after a rebalance skips nothing.
    const first = lifecycle.startOffset({ topic: 'orders', partition: 0 });
    await h.clock.advance(0);
    assert.equal(await first, 500);
    assert.deepEqual(h.flushes, [{ at: 0, stored: { 'orders-0': 499 } }]);
    await h.clock.advanceTo(5_000);
    h.fetch(0, 500, 2);
    await h.clock.advanceTo(6_000);
    assert.equal(await lifecycle.startOffset({ topic: 'orders', partition: 0 }), 502, 'a partition fetched before resumes where the flow is');
    assert.equal(h.offsetQueries.length, 1);
  });
});
