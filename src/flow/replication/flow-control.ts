import { type SchedulerLike, type Subscription, asyncScheduler } from '#rxjs';
import type { FlowControl } from '../../core/ports/record-source';

const KEEP_ALIVE_MS = 1000;

interface Waiter {
  readonly bytes: number;
  granted: boolean;
  resolve: () => void;
}

/**
 * A byte budget for records fetched but not yet acknowledged by the target: the bound that keeps
 * memory flat when the target is slower than the source. A batch larger than the whole budget
 * is let in when nothing else is in flight, so a single huge batch can never deadlock the flow.
 */
export class ByteBudget implements FlowControl {
  private used = 0;
  private readonly waiters: Waiter[] = [];
  private readonly idle: (() => void)[] = [];

  /** `scheduler` times the keep-alive while a fetch waits: the flow's, so specs wait in virtual time. */
  constructor(
    readonly maxBytes: number,
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {}

  get inFlightBytes(): number {
    return this.used;
  }

  /** Resolves once nothing is in flight (every byte taken was released). */
  drained(): Promise<void> {
    if (this.used === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.maxBytes;
  }

  async acquire(bytes: number, keepAlive?: () => Promise<void>, signal?: AbortSignal): Promise<void> {
    if (this.waiters.length === 0 && this.fits(bytes)) {
      this.used += bytes;
      return;
    }
    const waiter = { bytes, granted: false, resolve: () => {} };
    const granted = new Promise<void>((resolve) => {
      waiter.resolve = () => {
        waiter.granted = true;
        resolve();
      };
    });
    this.waiters.push(waiter);
    const onAbort = (): void => waiter.resolve();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        let timer: Subscription | undefined;
        const tick = new Promise<'tick'>((resolve) => (timer = this.scheduler.schedule(() => resolve('tick'), KEEP_ALIVE_MS)));
        const outcome = await Promise.race([granted.then(() => 'granted' as const), tick]);
        timer?.unsubscribe();
        if (signal?.aborted) {
          this.abandon(waiter);
          signal.throwIfAborted();
        }
        if (outcome === 'granted') return;
        // Still waiting on a slow target: tell the group we are alive so it does not rebalance.
        // A heartbeat that fails (the group rebalances) ends the wait: the bytes must not be
        // granted later to a waiter nobody listens to, or the budget would never drain.
        try {
          await keepAlive?.();
        } catch (error) {
          this.abandon(waiter);
          throw error;
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Takes an aborted waiter out of the queue, or gives its bytes back if they were granted. */
  private abandon(waiter: Waiter): void {
    const index = this.waiters.indexOf(waiter);
    if (index >= 0) this.waiters.splice(index, 1);
    else if (waiter.granted) this.release(waiter.bytes);
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
    while (this.waiters.length > 0 && this.fits(this.waiters[0]!.bytes)) {
      const next = this.waiters.shift()!;
      this.used += next.bytes;
      next.resolve();
    }
    if (this.used === 0) for (const resolve of this.idle.splice(0)) resolve();
  }
}
