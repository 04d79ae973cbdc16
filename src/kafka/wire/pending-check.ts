/**
 * kafkajs's request queue (network/requestQueue/index.js, one per connection) sends what waits in
 * its `pending` list once the broker's throttle or the in-flight limit allows. After every check,
 * and after every answer, it arms a timer to check again, whether or not anything waits: with
 * nothing pending and no throttle its delay is negative, which Node runs after 1 ms, and that
 * timer arms the next. So every connection that was ever answered checks an empty queue about a
 * thousand times a second for as long as it lives (kafkajs issues 1556 and 1704, unreleased in
 * 2.2.4): CPU and garbage where a flow has nothing to copy, on every client of the process.
 *
 * `checkOnlyWhenPending` arms the timer only while a request waits in `pending`, as kafkajs does
 * for that case; with none, a check has nothing to send, and the next request either goes out at
 * once or waits in `pending` and arms the timer itself (kafkajs's `push`). An answer and a
 * request's timeout still check the queue at once, as kafkajs does.
 */

/** What of kafkajs's RequestQueue the wrapper reads. */
export interface KafkajsRequestQueue {
  readonly pending: readonly unknown[];
  scheduleCheckPendingRequests(): void;
}

type Schedule = (this: KafkajsRequestQueue) => void;

/** kafkajs's `scheduleCheckPendingRequests`, called only while a request waits. */
export function checkOnlyWhenPending(schedule: Schedule): Schedule {
  return function scheduleWhilePending(this: KafkajsRequestQueue): void {
    if (this.pending.length > 0) schedule.call(this);
  };
}
