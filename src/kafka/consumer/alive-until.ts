export interface AliveUntilOptions {
  /** kafkajs's `heartbeat` of an eachBatch payload: it sends one only once its interval has passed. */
  readonly heartbeat: () => Promise<void>;
  readonly intervalMs: number;
  /** Ends the wait: the consumer is being stopped. */
  readonly signal: AbortSignal;
}

/**
 * `promise`'s value, for a consumer group member that must wait in eachBatch without being
 * taken for dead: while the promise is pending, the member heartbeats every `intervalMs` (a
 * failing heartbeat, the group rebalancing, ends the wait by throwing it). Undefined once
 * `signal` aborts, whatever the promise does then.
 */
export async function aliveUntil<T>(promise: Promise<T>, { heartbeat, intervalMs, signal }: AliveUntilOptions): Promise<T | undefined> {
  let settled = false;
  const value = promise.finally(() => (settled = true));
  value.catch(() => undefined); // a failure surfaces below, unless the wait ended before it
  for (;;) {
    if (signal.aborted) return undefined;
    let timer: NodeJS.Timeout | undefined;
    let wake: () => void = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = () => resolve();
      timer = setTimeout(wake, intervalMs);
      signal.addEventListener('abort', wake, { once: true });
    });
    try {
      await Promise.race([value, woken]);
    } catch (error) {
      if (signal.aborted) return undefined;
      throw error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
    }
    if (signal.aborted) return undefined;
    if (settled) return value;
    await heartbeat();
  }
}
