/**
 * kafkajs's own RequestQueue with install.ts's wrapper in place: no timer while nothing waits, and
 * every request still goes out (at once, after the in-flight limit frees a slot, after a throttle).
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import './install';
import { KAFKAJS_REQUEST_QUEUE, kafkajsInternal } from './kafkajs-internals';
import { setTimeout as pause } from 'node:timers/promises';

interface Queue {
  readonly pending: readonly unknown[];
  readonly throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: { entry: { correlationId: number; resolve(response: unknown): void }; expectResponse: boolean; sendRequest(): void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}
type QueueClass = new (options: object) => Queue;

const quiet = { debug: () => undefined, warn: () => undefined, error: () => undefined, info: () => undefined };
const made: Queue[] = [];
function newQueue(maxInFlightRequests: number | null): Queue {
  const queue = new (kafkajsInternal(KAFKAJS_REQUEST_QUEUE) as QueueClass)({
    maxInFlightRequests,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'pending-check-spec',
    broker: '127.0.0.1:9',
    logger: quiet,
  });
  made.push(queue);
  return queue;
}

/** Pushes request `correlationId`; resolves `sent` when the queue sends it. */
function push(queue: Queue, correlationId: number): { sent: Promise<void>; answered: Promise<unknown> } {
  let markSent!: () => void;
  let answer!: (response: unknown) => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const answered = new Promise<unknown>((resolve) => (answer = resolve));
  queue.push({ entry: { correlationId, resolve: answer }, expectResponse: true, sendRequest: markSent });
  return { sent, answered };
}

/** Resolves once `condition` holds, polled every few ms; rejects after two seconds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await pause(5);
  }
}

const answer = (queue: Queue, correlationId: number): void => queue.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });

describe("kafkajs's request queue, checking pending requests only while one waits", () => {
  // A failed test leaves no timer behind to keep the process alive.
  afterEach(() => made.splice(0).forEach((queue) => queue.destroy()));

  it('arms no timer after an answer when nothing waits (kafkajs would check again every millisecond)', async () => {
    const queue = newQueue(null);
    const request = push(queue, 1);
    await request.sent;
    answer(queue, 1);
    await request.answered;
    assert.equal(queue.pending.length, 0);
    assert.equal(queue.throttleCheckTimeoutId, null, 'a timer was armed with nothing pending');
  });

  it('sends a request held by the in-flight limit once the one before it is answered, then stops checking', async () => {
    const queue = newQueue(1);
    const first = push(queue, 1);
    await first.sent;
    const second = push(queue, 2);
    assert.equal(queue.pending.length, 1, 'the second waits for a slot');
    assert.notEqual(queue.throttleCheckTimeoutId, null, 'a waiting request arms the check');
    answer(queue, 1);
    await second.sent;
    answer(queue, 2);
    await second.answered;
    // The check armed while the second waited runs once more, finds nothing, and arms no other.
    await until(() => queue.throttleCheckTimeoutId === null, 'the pending check stopped');
  });

  it('sends a request held by a broker throttle when the throttle ends', async () => {
    const queue = newQueue(null);
    queue.maybeThrottle(30);
    const request = push(queue, 1);
    assert.equal(queue.pending.length, 1, 'throttled: the request waits');
    await request.sent;
    answer(queue, 1);
    await request.answered;
    assert.equal(queue.pending.length, 0);
  });
});
