/**
 * Replacement for kafkajs's consumer/workerQueue: the queue between a consumer's fetchers (one
 * per broker, all pushing into the one queue of the consumer) and its workers
 * (`partitionsConsumedConcurrently` of them, each running kafkajs's `handleBatch` on a batch at a
 * time).
 *
 * kafkajs's contract, kept: `push(...batches)` resolves once every batch was handled by a worker
 * and rejects with the failure of the first batch (in the pushed order) that failed, after all of
 * them were handled; a worker's `run({ next })` takes items from `next()` until it returns
 * undefined, and calls the item's `resolve` or `reject` once the handler is done with it.
 *
 * Why replace it: a fetch answer becomes one batch per partition, empty ones included, and
 * kafkajs's queue makes a Promise for each, puts them all in one array and hands them out with
 * `shift()`. At 19,000 partitions that array is in V8's large-object space, where each `shift()`
 * copies what is left: quadratic, a quarter of an idle consumer's CPU. Here a push is one round
 * (its batches in an array, handed out by index), rounds wait in a linked list, and what a worker
 * settles is counted against its round: no Promise per batch, `next()` in constant time.
 *
 * And empty batches are handed out once per round, not once each. For a batch fetched empty
 * (not one whose records were all filtered out: control records, aborted transactions, those go
 * through as they are), kafkajs's `Runner.handleBatch` does nothing but `await this.heartbeat()`,
 * which sends a Heartbeat only once its interval has passed since the last. One such batch per
 * round keeps that heartbeat (how an idle consumer hears of a rebalance: the heartbeat rejects,
 * the push with it, and kafkajs rejoins); the other 18,999 of an idle round at 19,000 partitions
 * were each a few promises spent asking the clock.
 */

/** What the queue reads of a batch: kafkajs's consumer `Batch`. */
export interface QueuedBatch {
  /** No messages for the handler. */
  isEmpty(): boolean;
  /** Empty, but because every fetched message was filtered out: the handler moves its offset. */
  isEmptyDueToFiltering(): boolean;
}

/** What a worker takes from `next()` (kafkajs's consumer/worker.js). */
export interface WorkItem<T> {
  readonly batch: T;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** kafkajs's worker: `run` loops on `next()`; called while it loops, it returns that loop's promise. */
export interface QueueWorker<T> {
  run(options: { next: () => WorkItem<T> | undefined }): Promise<void>;
}

export interface WorkerQueue<T> {
  push(...batches: T[]): Promise<void>;
  getWorkers(): readonly QueueWorker<T>[];
}

/** One push: its batches, handed out in order, and what its workers settled. */
interface Round<T> {
  readonly batches: readonly T[];
  /** Index of the next batch to hand out. */
  taken: number;
  /** Batches not settled yet. */
  unsettled: number;
  /** Index of the first batch that failed, and its failure. */
  failedAt: number;
  failure: unknown;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** The round pushed after this one. */
  following: Round<T> | undefined;
}

/** What one worker is doing: the batch it took last, until it settles it. */
interface WorkerState<T> {
  round: Round<T> | undefined;
  index: number;
  /** In a loop that has not yet been told there is nothing left. */
  looping: boolean;
  /** `next` was called since the last `run`. */
  asked: boolean;
  readonly next: () => WorkItem<T> | undefined;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** A batch fetched with no message at all: its handling is a heartbeat, nothing else. */
function fetchedEmpty(batch: QueuedBatch): boolean {
  return batch.isEmpty() && !batch.isEmptyDueToFiltering();
}

export function createWorkerQueue<T extends QueuedBatch>({ workers }: { workers: readonly QueueWorker<T>[] }): WorkerQueue<T> {
  /** Rounds with batches not handed out yet, oldest first. */
  let first: Round<T> | undefined;
  let last: Round<T> | undefined;

  const settle = (state: WorkerState<T>, failure: unknown, failed: boolean): void => {
    const round = state.round;
    if (round === undefined) return; // settled already: worker.js settles each item once
    state.round = undefined;
    if (failed && state.index < round.failedAt) {
      round.failedAt = state.index;
      round.failure = failure;
    }
    if (--round.unsettled > 0) return;
    if (round.failedAt === Infinity) round.resolve();
    else round.reject(round.failure);
  };

  /** Whether a batch waits to be handed out; drops the rounds handed out whole. */
  const waiting = (): boolean => {
    while (first !== undefined && first.taken === first.batches.length) {
      first = first.following;
      if (first === undefined) last = undefined;
    }
    return first !== undefined;
  };

  const take = (state: WorkerState<T>): WorkItem<T> | undefined => {
    state.asked = true;
    state.looping = waiting();
    if (first === undefined) return undefined;
    state.round = first;
    state.index = first.taken++;
    return { batch: first.batches[state.index]!, resolve: state.resolve, reject: state.reject };
  };

  const states = workers.map((): WorkerState<T> => {
    const state: WorkerState<T> = {
      round: undefined,
      index: 0,
      looping: false,
      asked: false,
      next: () => take(state),
      resolve: () => settle(state, undefined, false),
      reject: (error) => settle(state, error, true),
    };
    return state;
  });

  /**
   * Starts a worker's loop unless it is in one. A loop that was just told there is nothing left
   * may still be ending (kafkajs's worker clears its running promise a tick later): `run` then
   * returns that loop's promise without asking `next`, and the worker is started again once that
   * loop has ended, if a batch is still waiting.
   */
  const start = (worker: QueueWorker<T>, state: WorkerState<T>): void => {
    if (state.looping) return;
    state.looping = true;
    state.asked = false;
    const ended = worker.run({ next: state.next });
    // A loop that starts asks `next` within `run`, before its first await.
    if (state.asked) return;
    state.looping = false;
    const restart = (): void => {
      if (!state.looping && waiting()) start(worker, state);
    };
    // The loop cannot fail: worker.js hands every failure of the handler to the item's `reject`.
    ended.then(restart, restart);
  };

  const push = (...batches: T[]): Promise<void> => {
    const kept: T[] = [];
    let emptyKept = false;
    for (const batch of batches) {
      if (fetchedEmpty(batch)) {
        if (emptyKept) continue;
        emptyKept = true;
      }
      kept.push(batch);
    }
    if (kept.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const round: Round<T> = {
        batches: kept,
        taken: 0,
        unsettled: kept.length,
        failedAt: Infinity,
        failure: undefined,
        resolve,
        reject,
        following: undefined,
      };
      if (last === undefined) first = round;
      else last.following = round;
      last = round;
      workers.forEach((worker, i) => start(worker, states[i]!));
    });
  };

  return { push, getWorkers: () => workers };
}
