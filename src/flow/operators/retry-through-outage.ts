import { type MonoTypeOperatorFunction, type SchedulerLike, defer, finalize, tap } from '#rxjs';
import { retryWithBackoff } from '../../core/retry';
import type { OutageTracker } from '../status/outage-status';

export interface OutageRetryOptions {
  readonly tracker: OutageTracker;
  readonly scheduler: SchedulerLike;
  /** First wait after a failure. Default 500 ms. */
  readonly initialDelayMs?: number;
  /**
   * Longest wait between tries. Default 5 s: a cluster back from an outage is used again within
   * seconds, and each try of a kafkajs client already spends seconds on its own retries.
   */
  readonly maxDelayMs?: number;
  /**
   * Who is failing, for the tracker; default a new one per subscription. Given when the
   * operation also reports failures it retries on its own (a writer's `onRetry`).
   */
  readonly holder?: object;
  /** The jitter's source, in [0, 1); default Math.random. A spec gives a constant for exact waits. */
  readonly random?: () => number;
}

/**
 * Retries a cluster operation for as long as its failure is retriable (a broker down, a leader
 * moving, a request timing out), with backoff, reporting the outage to the tracker: a warning
 * when it starts and at growing intervals, an info line when the operation works again (its
 * first value, or its completion). A failure that is not retriable passes through at once.
 */
export function retryThroughOutage<T>(options: OutageRetryOptions): MonoTypeOperatorFunction<T> {
  const { tracker, scheduler } = options;
  return (source) =>
    defer(() => {
      // This subscription's own identity in the outage, so concurrent users of one tracker end it correctly.
      const holder = options.holder ?? {};
      return source.pipe(
        tap({ next: () => tracker.succeeded(holder), complete: () => tracker.succeeded(holder) }),
        retryWithBackoff<T>({
          retries: Number.POSITIVE_INFINITY,
          initialDelayMs: options.initialDelayMs ?? 500,
          maxDelayMs: options.maxDelayMs ?? 5_000,
          factor: 2,
          jitter: 0.2,
          scheduler,
          random: options.random,
          onRetry: (error) => tracker.failed(error, holder),
        }),
        finalize(() => tracker.abandoned(holder)),
      );
    });
}
