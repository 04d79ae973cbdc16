/**
 * The worker queue against kafkajs's own workers (consumer/worker.js, from the bundle) and its
 * own fetch manager, with kafkajs's consumer `Batch`es: kafkajs's contract, and empty batches
 * handed out once per push.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import { kafkajsInternal } from './kafkajs-internals';
import { createWorkerQueue, type QueueWorker, type WorkerQueue } from './worker-queue';

interface KafkajsBatch {
  readonly topic: string;
  readonly partition: number;
  isEmpty(): boolean;
  isEmptyDueToFiltering(): boolean;
}
type BatchClass = new (topic: string, fetchedOffset: string, partitionData: unknown) => KafkajsBatch;
const Batch = kafkajsInternal('kafkajs/src/consumer/batch') as BatchClass;
type Handler = (batch: KafkajsBatch, metadata: { workerId: number }) => Promise<void>;
const createWorker = kafkajsInternal('kafkajs/src/consumer/worker') as (options: { handler: Handler; workerId: number }) => QueueWorker<KafkajsBatch>;

/** A partition's batch with `count` records from offset 0; with `control`, a transaction marker only. */
function batch(partition: number, count: number, kind: 'records' | 'control' = 'records'): KafkajsBatch {
  const messages = Array.from({ length: count }, (_, i) => ({
    offset: String(i),
    key: Buffer.from('k'),
    value: Buffer.from('v'),
    isControlRecord: kind === 'control',
  }));
  return new Batch('t', '0', { partition, highWatermark: String(count), abortedTransactions: [], messages });
}

/** A promise and its resolve/reject, for a handler that finishes when the spec says so. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** What a push did, once it settled. */
async function outcome(push: Promise<void>): Promise<string> {
  return push.then(
    () => 'resolved',
    (error: unknown) => `rejected: ${(error as Error).message}`,
  );
}

/** Resolves once `condition` holds, polling between turns of the event loop (no timers). */
async function until(condition: () => boolean): Promise<void> {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 10_000) throw new Error('condition never held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function queueOf(concurrency: number, handler: Handler): WorkerQueue<KafkajsBatch> {
  return createWorkerQueue({ workers: Array.from({ length: concurrency }, (_, workerId) => createWorker({ handler, workerId })) });
}

describe('worker queue', () => {
  it('hands batches to one worker in the pushed order and resolves only once the last was handled', async () => {
    const handled: number[] = [];
    const gates = new Map<number, ReturnType<typeof deferred>>();
    const queue = queueOf(1, async (b) => {
      const gate = deferred();
      gates.set(b.partition, gate);
      await gate.promise;
      handled.push(b.partition);
    });
    let settled = false;
    const push = queue.push(batch(0, 2), batch(1, 1), batch(2, 3)).then(() => (settled = true));
    for (const partition of [0, 1]) {
      await until(() => gates.has(partition));
      gates.get(partition)!.resolve();
    }
    await until(() => gates.has(2));
    assert.deepEqual(handled, [0, 1]);
    assert.equal(settled, false);
    gates.get(2)!.resolve();
    await push;
    assert.deepEqual(handled, [0, 1, 2]);
  });

  it('runs up to one batch per worker at once, each batch exactly once', async () => {
    const inProgress = new Map<number, ReturnType<typeof deferred>>();
    const handled: number[] = [];
    let mostAtOnce = 0;
    let release = false;
    const queue = queueOf(3, async (b) => {
      const gate = deferred();
      inProgress.set(b.partition, gate);
      mostAtOnce = Math.max(mostAtOnce, inProgress.size);
      if (release) gate.resolve();
      await gate.promise;
      inProgress.delete(b.partition);
      handled.push(b.partition);
    });
    const push = queue.push(...Array.from({ length: 10 }, (_, p) => batch(p, 1)));
    await until(() => inProgress.size === 3);
    assert.deepEqual([...inProgress.keys()], [0, 1, 2]);
    // Finishing the second frees its worker for the fourth batch.
    inProgress.get(1)!.resolve();
    await until(() => inProgress.has(3));
    assert.deepEqual([...inProgress.keys()].sort(), [0, 2, 3]);
    release = true;
    for (const gate of inProgress.values()) gate.resolve();
    await push;
    assert.equal(mostAtOnce, 3);
    assert.deepEqual(
      [...handled].sort((a, b) => a - b),
      Array.from({ length: 10 }, (_, p) => p),
    );
  });

  it("rejects with the first failed batch's failure in the pushed order, after every batch was handled", async () => {
    const gates = new Map<number, ReturnType<typeof deferred>>();
    const handled: number[] = [];
    const queue = queueOf(4, async (b) => {
      const gate = deferred();
      gates.set(b.partition, gate);
      try {
        await gate.promise;
      } finally {
        handled.push(b.partition);
      }
    });
    let settled = false;
    const push = outcome(queue.push(batch(0, 1), batch(1, 1), batch(2, 1), batch(3, 1))).then((o) => {
      settled = true;
      return o;
    });
    await until(() => gates.size === 4);
    // The last batch fails first and the third last; the second's failure is the push's.
    gates.get(3)!.reject(new Error('partition 3 failed'));
    gates.get(1)!.reject(new Error('partition 1 failed'));
    gates.get(0)!.resolve();
    await until(() => handled.length === 3);
    assert.equal(settled, false);
    gates.get(2)!.reject(new Error('partition 2 failed'));
    assert.equal(await push, 'rejected: partition 1 failed');
    assert.deepEqual(handled.sort(), [0, 1, 2, 3]);
  });

  it('hands out the batches fetched empty once per push, and every batch emptied by filtering', async () => {
    const handled: string[] = [];
    const queue = queueOf(2, async (b) => {
      await Promise.resolve();
      handled.push(`${b.partition}:${b.isEmpty() ? (b.isEmptyDueToFiltering() ? 'filtered' : 'empty') : 'records'}`);
    });
    const batches = Array.from({ length: 1_000 }, (_, p) =>
      p === 10 || p === 500 ? batch(p, 3) : p === 700 || p === 701 ? batch(p, 1, 'control') : batch(p, 0),
    );
    await queue.push(...batches);
    assert.deepEqual(handled.sort(), ['0:empty', '10:records', '500:records', '700:filtered', '701:filtered']);
    // A push of nothing but empty batches still reaches a worker once: kafkajs heartbeats there.
    handled.length = 0;
    await queue.push(batch(1, 0), batch(2, 0), batch(3, 0));
    assert.deepEqual(handled, ['1:empty']);
  });

  it('keeps pushes of several fetchers apart: each settles with its own batches', async () => {
    const gates = new Map<number, ReturnType<typeof deferred>>();
    const queue = queueOf(2, async (b) => {
      const gate = deferred();
      gates.set(b.partition, gate);
      await gate.promise;
    });
    const first = outcome(queue.push(batch(0, 1), batch(1, 1)));
    const second = outcome(queue.push(batch(10, 1), batch(11, 1)));
    await until(() => gates.has(0) && gates.has(1));
    gates.get(0)!.reject(new Error('partition 0 failed'));
    gates.get(1)!.resolve();
    assert.equal(await first, 'rejected: partition 0 failed');
    await until(() => gates.has(10) && gates.has(11));
    gates.get(10)!.resolve();
    gates.get(11)!.resolve();
    assert.equal(await second, 'resolved');
  });

  it('starts a worker again whose loop was ending when the next push came', async () => {
    const handled: number[] = [];
    const queue = queueOf(1, async (b) => {
      handled.push(b.partition);
      await Promise.resolve();
    });
    // The second push comes in the tick after the first settled, before kafkajs's worker has
    // cleared the promise of the loop that just found the queue empty.
    const second = await queue.push(batch(0, 1)).then(() => queue.push(batch(1, 1)));
    assert.equal(second, undefined);
    assert.deepEqual(handled, [0, 1]);
  });

  it("runs in kafkajs's fetch manager, its fetchers pushing into one queue and its workers taking from it", async () => {
    const createFetchManager = kafkajsInternal('kafkajs/src/consumer/fetchManager') as (options: {
      logger: unknown;
      getNodeIds: () => number[];
      fetch: (nodeId: number) => Promise<KafkajsBatch[]>;
      handler: Handler;
      concurrency: number;
    }) => { start(): Promise<void>; stop(): Promise<void> };
    const logger = { namespace: () => logger, info: () => undefined, debug: () => undefined, warn: () => undefined, error: () => undefined };
    const rounds = new Map<number, number>();
    const handled: string[] = [];
    const manager = createFetchManager({
      logger,
      getNodeIds: () => [1, 2],
      concurrency: 3,
      // Each broker's fetch answers partitions of its own, mostly empty, for three rounds.
      fetch: async (nodeId) => {
        await Promise.resolve();
        const round = (rounds.get(nodeId) ?? 0) + 1;
        rounds.set(nodeId, round);
        if (round > 3) {
          if ([...rounds.values()].every((r) => r > 3)) void manager.stop(); // stop resolves once both fetchers ended, which start awaits
          return [];
        }
        return Array.from({ length: 100 }, (_, i) => batch(nodeId * 1000 + i, i % 25 === 0 ? 1 : 0));
      },
      handler: async (b) => {
        await Promise.resolve();
        handled.push(`${b.partition}${b.isEmpty() ? '-' : '+'}`);
      },
    });
    await manager.start();
    const count = (suffix: string): number => handled.filter((h) => h.endsWith(suffix)).length;
    // 4 batches with records per broker and round; one empty batch per push.
    assert.equal(count('+'), 2 * 3 * 4);
    assert.equal(count('-'), 2 * 3);
  });
});
