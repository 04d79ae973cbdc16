import { type MonoTypeOperatorFunction, type SchedulerLike, asyncScheduler, retry, throwError, timer } from '#rxjs';
import { isRetriable } from './errors';

export interface RetryConfig {
  /** Retries after the first failure; Infinity retries for as long as the error is retriable. */
  readonly retries: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
  /** 0.2 spreads each delay over ±20 %. */
  readonly jitter: number;
  readonly scheduler?: SchedulerLike;
  /** Called before each wait, e.g. to log the failure. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  readonly random?: () => number;
}

export const defaultRetryConfig: RetryConfig = { retries: 5, initialDelayMs: 300, maxDelayMs: 30_000, factor: 2, jitter: 0.2 };

export function backoffDelay(attempt: number, config: RetryConfig, random: () => number = Math.random): number {
  const base = Math.min(config.maxDelayMs, config.initialDelayMs * config.factor ** (attempt - 1));
  return Math.max(0, Math.round(base * (1 + config.jitter * (2 * random() - 1))));
}

/**
 * Resubscribes with exponential backoff and jitter while the error is retriable (see
 * `isRetriable`); anything else, programming errors included, passes straight through.
 */
export function retryWithBackoff<T>(config: RetryConfig = defaultRetryConfig): MonoTypeOperatorFunction<T> {
  return retry<T>({
    count: config.retries,
    resetOnSuccess: true,
    delay: (error: unknown, attempt: number) => {
      if (!isRetriable(error)) return throwError(() => error);
      const delayMs = backoffDelay(attempt, config, config.random);
      config.onRetry?.(error, attempt, delayMs);
      return timer(delayMs, config.scheduler ?? asyncScheduler);
    },
  });
}
