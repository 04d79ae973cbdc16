import { VirtualAction, VirtualTimeScheduler } from '#rxjs';

/** Lets every promise that can settle now settle (one macrotask turn drains the microtask queue). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Virtual time for specs of parts that mix the flow's timers with promises (a port's answer, the
 * byte budget): `TestScheduler.run` flushes timers synchronously and so never lets a promise
 * resolve between two of them. `advance` runs the timers due in order and lets promises settle
 * after each one, so a spec reads as a timeline without waiting on the wall clock.
 */
export class VirtualClock {
  readonly scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);

  get now(): number {
    return this.scheduler.now();
  }

  /** Timers scheduled and not yet run. */
  get pendingTimers(): number {
    return this.scheduler.actions.length;
  }

  /** Moves time forward by `ms`, running every timer due on the way. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.now + ms);
  }

  /** Moves time forward to `at`, running every timer due on the way. */
  async advanceTo(at: number): Promise<void> {
    const { scheduler } = this;
    await settle();
    for (let next = scheduler.actions[0]; next !== undefined && next.delay <= at; next = scheduler.actions[0]) {
      scheduler.maxFrames = next.delay;
      scheduler.flush();
      await settle();
    }
    scheduler.maxFrames = Number.POSITIVE_INFINITY;
    scheduler.frame = Math.max(scheduler.frame, at);
  }
}
