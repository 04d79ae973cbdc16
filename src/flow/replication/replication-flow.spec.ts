import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, NEVER, Subject, asyncScheduler, concat, defer, ignoreElements, lastValueFrom, of, tap, throwError, toArray, type Observable } from '#rxjs';
import { RecordFailedError } from '../../core/errors';
import { SlotLostError, type SlotTransactions } from '../../core/ports/slot-transactions';
import { silentLogger } from '../../core/ports/logger';
import type { ClusterAdmin, NewTopic } from '../../core/ports/cluster-admin';
import type { RecordSource } from '../../core/ports/record-source';
import type { OutboundItem, OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import type { KafkaRecord, MirrorRecord, RecordFailure, TopicPartition } from '../../core/record';
import { DeadLetterSink } from './dead-letter-sink';
import { FlowStatus } from '../status/flow-status';
import type { ProgressStore } from '../progress/progress-store';
import { ReplicationFlow } from './replication-flow';
import type { ReplicatedTopic, TopicSync } from '../topics/topic-sync';

/** What the fakes saw, in order: writes to the target, writes to the dead-letter topic, progress marks. */
type Event = readonly ['target', string[]] | readonly ['dlq', string[]] | readonly ['progress', number];

/**
 * Offsets 0..4 of orders-0, values `v0`..`v4`; the chain throws on `v1` and `v3` (`failing`).
 * With `transactions`, the flow is exactly-once with one slot, written through them.
 */
function harness(
  tolerance: 'none' | 'all',
  options: {
    transactions?: SlotTransactions;
    failing?: readonly string[];
    /** Progress loading and topic refreshes as the test has them (by default: at once). */
    load?: () => Observable<never>;
    refresh?: (listed?: (topics: readonly ReplicatedTopic[]) => void) => Observable<readonly ReplicatedTopic[]>;
  } = {},
) {
  const failing = options.failing ?? ['v1', 'v3'];
  const events: Event[] = [];
  /** When the source was first consumed, among the test's own steps. */
  const steps: string[] = [];
  const values = (items: readonly OutboundItem[]): string[] => items.map((i) => (i as OutboundRecord).value!.toString());
  const writerOf = (name: 'target' | 'dlq'): RecordWriter => ({
    cluster: 'backup',
    write: (items) =>
      defer(() => {
        events.push([name, values(items)]);
        return of(Float64Array.from(items, (_, i) => i));
      }),
    close: async () => undefined,
  });
  const records: KafkaRecord[] = [0, 1, 2, 3, 4].map((offset) => ({
    topic: 'orders',
    partition: 0,
    offset,
    timestamp: 1000 + offset,
    key: null,
    value: Buffer.from(`v${offset}`),
    headers: [],
  }));
  // As a consumer does: joined at subscription, the partition read once the flow gives its start.
  const source: RecordSource = {
    cluster: 'primary',
    consume: (consumeOptions) =>
      concat(
        defer(() => (steps.push('consume'), EMPTY)),
        defer(() => consumeOptions.lifecycle.startOffset({ topic: 'orders', partition: 0 })).pipe(
          tap(() => steps.push('start')),
          ignoreElements(),
        ),
        of({ kind: 'records' as const, topic: 'orders', partition: 0, records, nextOffset: 5, highWatermark: 5, bytes: 10 }),
        NEVER,
      ),
  };
  const progress = {
    load: options.load ?? (() => EMPTY),
    flush: () => EMPTY,
    nextOffset: () => 0,
    progressRecords: () => [],
    markReplicated: (_tp: TopicPartition, offset: number) => events.push(['progress', offset]),
  } as unknown as ProgressStore;
  const created: NewTopic[] = [];
  const admin = {
    cluster: 'backup',
    createTopics: (topics: readonly NewTopic[]) => defer(() => (created.push(...topics), of([]))),
    describeTopics: (names: readonly string[]) => of(names.includes('orders-dlq') ? [{ name: 'orders-dlq', partitions: 1 }] : []),
  } as unknown as ClusterAdmin;
  const status = new FlowStatus('primary', 'backup');
  const deadLetters =
    tolerance === 'all'
      ? new DeadLetterSink({
          flow: 'primary->backup',
          topic: 'orders-dlq',
          replicationFactor: 1,
          admin,
          writer: writerOf('dlq'),
          scheduler: asyncScheduler,
          logger: silentLogger,
          status,
        })
      : undefined;
  const transform = (batch: readonly MirrorRecord[], failures?: RecordFailure[]): readonly MirrorRecord[] =>
    batch.filter((record) => {
      const value = record.value!.toString();
      if (!failing.includes(value)) return true;
      const error = new RecordFailedError(record.source, { kind: 'transform', plugin: 'explode', step: 'flows[0].transforms[0]' }, 'Error thrown');
      if (failures === undefined) throw error;
      failures.push({ record, error });
      return false;
    });
  const flow = new ReplicationFlow({
    settings: {
      source: 'primary',
      target: 'backup',
      groupId: 'g',
      start: 'earliest',
      refreshTopics: true,
      refreshIntervalMs: 60_000,
      flushIntervalMs: 60_000,
      batching: { maxRecords: 100, maxBytes: 1 << 20, maxWaitMs: 0, maxPartitionBytes: 1 << 20 },
      maxInFlightBytes: 1 << 20,
      errorTolerance: tolerance,
      autoOffsetReset: 'earliest',
      ...(options.transactions ? { exactlyOnce: { slots: 1 } } : {}),
    },
    ...(options.transactions ? { transactions: options.transactions } : {}),
    sourceRecords: source,
    sourceAdmin: admin,
    writer: writerOf('target'),
    topicSync: { refresh: options.refresh ?? (() => of([{ source: 'orders', target: 'primary.orders', partitions: 1 }])) } as unknown as TopicSync,
    progress,
    offsetSyncEmitter: undefined,
    remoteTopic: (topic) => `primary.${topic}`,
    transform,
    ...(deadLetters ? { deadLetters } : {}),
    scheduler: asyncScheduler,
    logger: silentLogger,
    status,
  });
  return { flow, events, status, created, steps };
}

/** Runs the flow until the events settle, then stops it; the outcome of the run. */
async function runUntil(flow: ReplicationFlow, events: Event[], done: (events: Event[]) => boolean): Promise<unknown> {
  const stop$ = new Subject<void>();
  const run: Observable<never> = flow.run(stop$);
  const ended = lastValueFrom(run.pipe(toArray())).then(
    () => undefined,
    (error: unknown) => error,
  );
  for (let i = 0; i < 200 && !done(events); i++) await new Promise((r) => setImmediate(r));
  stop$.next();
  return ended;
}

test('tolerance none: the records before the failing one are written and their progress marked, then the flow fails naming it', async () => {
  const { flow, events, status } = harness('none');
  const outcome = await runUntil(flow, events, () => false);
  assert.ok(outcome instanceof RecordFailedError, String(outcome));
  assert.deepEqual(outcome.source, { topic: 'orders', partition: 0, offset: 1 });
  assert.deepEqual(events, [
    ['target', ['v0']],
    ['progress', 0],
  ]);
  assert.equal(status.state, 'failed');
});

test('tolerance all: the failing records go to the dead-letter topic before progress moves past them; the others to the target', async () => {
  const { flow, events, status, created } = harness('all');
  const outcome = await runUntil(flow, events, (e) => e.some(([kind]) => kind === 'progress'));
  assert.equal(outcome, undefined);
  assert.deepEqual(
    created.map((t) => [t.name, t.partitions, t.replicationFactor]),
    [['orders-dlq', 1, 1]],
  );
  assert.equal(events.length, 3);
  assert.deepEqual(events[0], ['target', ['v0', 'v2', 'v4']]);
  assert.equal(events[1]![0], 'dlq');
  assert.deepEqual(events[1]![1], ['v1', 'v3']);
  assert.deepEqual(events[2], ['progress', 4]);
  assert.equal(status.recordsDeadLettered, 2);
  assert.equal(status.recordsReplicated, 3);
  assert.equal(status.recordsDropped, 0);
});

test('exactly-once: a batch whose slot another process took commits nothing, and counts as nothing copied (records, progress, partition position)', async () => {
  let commits = 0;
  const transactions: SlotTransactions = {
    cluster: 'backup',
    claim: async () => undefined,
    release: () => undefined,
    commit: async (slot) => {
      commits++;
      throw new SlotLostError('backup', slot, 'fenced by another process');
    },
    fence: async () => undefined,
    close: async () => undefined,
  };
  const { flow, events, status } = harness('none', { transactions, failing: [] });
  const outcome = await runUntil(flow, events, () => commits > 0 && status.writes > 0);
  assert.equal(outcome, undefined);
  assert.equal(commits, 1);
  assert.deepEqual(events, [], 'no progress marked');
  assert.equal(status.recordsReplicated, 0, 'nothing of the batch is on the target for a read_committed consumer');
  assert.equal(status.bytesReplicated, 0);
  assert.equal(status.partitions.get('orders-0')?.nextOffset ?? 0, 0, 'the partition still lags by its 5 records');
});

const ORDERS: readonly ReplicatedTopic[] = [{ source: 'orders', target: 'primary.orders', partitions: 1 }];

/** Lets pending promises and asap work run, `rounds` times. */
async function settle(rounds = 50): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

test('the consumer joins once the source topics are listed, while progress loads and remote topics are created; no partition starts before both are done', async () => {
  const loaded = new Subject<never>();
  const refreshed = new Subject<readonly ReplicatedTopic[]>();
  const { flow, events, steps } = harness('all', {
    load: () => defer(() => (steps.push('load'), loaded)),
    refresh: (listed) =>
      defer(() => {
        steps.push('refresh');
        listed?.(ORDERS);
        return refreshed;
      }),
  });
  const run = runUntil(flow, events, (seen) => seen.some((e) => e[0] === 'target'));
  for (let i = 0; i < 200 && !steps.includes('consume'); i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual([...steps].sort(), ['consume', 'load', 'refresh'], 'joined while both are under way');

  loaded.complete();
  await settle();
  assert.ok(!steps.includes('start'), 'progress is loaded, but the remote topic is not created yet');
  assert.deepEqual(events, [], 'nothing written');

  refreshed.next(ORDERS);
  refreshed.complete();
  assert.equal(await run, undefined);
  assert.deepEqual(steps.slice(0, 3).sort(), ['consume', 'load', 'refresh']);
  assert.deepEqual(steps.slice(3), ['start'], 'the partition started last, the first refresh made once');
  assert.deepEqual(events[0], ['target', ['v0', 'v2', 'v4']]);
});

test('remote topics created before progress is loaded: the partition starts only once it is loaded', async () => {
  const loaded = new Subject<never>();
  const { flow, events, steps } = harness('all', {
    load: () => defer(() => (steps.push('load'), loaded)),
    refresh: () => defer(() => (steps.push('refresh'), of(ORDERS))),
  });
  const run = runUntil(flow, events, (seen) => seen.some((e) => e[0] === 'target'));
  for (let i = 0; i < 200 && !steps.includes('consume'); i++) await new Promise((r) => setImmediate(r));
  await settle();
  assert.ok(!steps.includes('start'), 'progress still loading');
  assert.deepEqual(events, []);
  loaded.complete();
  assert.equal(await run, undefined);
  assert.equal(steps.at(-1), 'start');
  assert.equal(steps.filter((s) => s === 'refresh').length, 1, 'the first refresh is not made twice');
});

test('a first topic refresh that failed is made again only once progress is loaded: through the outage that held loading', async () => {
  const loaded = new Subject<never>();
  let refreshes = 0;
  const { flow, events, steps } = harness('all', {
    load: () => defer(() => (steps.push('load'), loaded)),
    refresh: () =>
      defer(() => {
        steps.push('refresh');
        return ++refreshes === 1 ? throwError(() => new Error('backup is down')) : of(ORDERS);
      }),
  });
  const run = runUntil(flow, events, (seen) => seen.some((e) => e[0] === 'target'));
  for (let i = 0; i < 200 && !steps.includes('load'); i++) await new Promise((r) => setImmediate(r));
  await settle();
  assert.deepEqual([...steps].sort(), ['load', 'refresh'], 'not refreshed again while loading, no consumer without topics');
  loaded.complete();
  assert.equal(await run, undefined);
  assert.deepEqual(steps.slice(2), ['refresh', 'consume', 'start']);
});

test('a first topic refresh that failed while progress loaded is made again once it is loaded', async () => {
  let refreshes = 0;
  const { flow, events, steps } = harness('all', {
    refresh: () =>
      defer(() => {
        steps.push('refresh');
        return ++refreshes === 1 ? throwError(() => new Error('primary is down')) : of(ORDERS);
      }),
  });
  assert.equal(await runUntil(flow, events, (seen) => seen.some((e) => e[0] === 'target')), undefined);
  assert.deepEqual(steps.slice(0, 3), ['refresh', 'refresh', 'consume']);
  assert.deepEqual(events[0], ['target', ['v0', 'v2', 'v4']]);
});
