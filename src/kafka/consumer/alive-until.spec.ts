import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aliveUntil } from './alive-until';

/** A promise and the functions that settle it. */
function pending<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

test('heartbeats while the value is pending, then gives the value', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const start = pending<number>();
  let beats = 0;
  const waited = aliveUntil(start.promise, { heartbeat: async () => void beats++, intervalMs: 2, signal: new AbortController().signal });
  for (const expected of [1, 2]) {
    t.mock.timers.tick(2);
    await settle();
    assert.equal(beats, expected, 'one heartbeat per interval');
  }
  start.resolve(42);
  assert.equal(await waited, 42);
  t.mock.timers.tick(1_000);
  await settle();
  assert.equal(beats, 2, 'no heartbeat once the value is there');
});

test('a value already there is given without a heartbeat', async () => {
  let beats = 0;
  const value = await aliveUntil(Promise.resolve('x'), { heartbeat: async () => void beats++, intervalMs: 1, signal: new AbortController().signal });
  assert.equal(value, 'x');
  assert.equal(beats, 0);
});

test('a failed heartbeat (the group rebalancing) ends the wait with its error', async () => {
  const start = pending<number>();
  const rebalancing = new Error('The group is rebalancing');
  await assert.rejects(
    aliveUntil(start.promise, {
      heartbeat: () => Promise.reject(rebalancing),
      intervalMs: 1,
      signal: new AbortController().signal,
    }),
    rebalancing,
  );
  start.reject(new Error('later')); // not reported: nobody waits any more
});

test('a stop ends the wait with undefined, even when the value fails afterwards', async () => {
  const start = pending<number>();
  const stop = new AbortController();
  const waited = aliveUntil(start.promise, { heartbeat: async () => undefined, intervalMs: 60_000, signal: stop.signal });
  stop.abort();
  assert.equal(await waited, undefined);
  start.reject(new Error('the flow stopped'));
});

test('a failing value is thrown to the waiter', async () => {
  const failure = new Error('progress could not be read');
  await assert.rejects(
    aliveUntil(Promise.reject(failure), { heartbeat: async () => undefined, intervalMs: 60_000, signal: new AbortController().signal }),
    failure,
  );
});
