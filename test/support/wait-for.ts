import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitForOptions {
  /** What is awaited, for the failure message: "topic primary.orders to exist". */
  readonly what: string;
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/**
 * Polls `check` until it returns a truthy value, and resolves with that value. A check that
 * throws counts as "not yet"; its last error is quoted if the deadline passes. Tests use this
 * instead of fixed sleeps, so they are as fast as the system and fail with a reason.
 */
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitForOptions): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError === undefined ? '' : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${options.what}${reason}`, { cause: lastError });
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
