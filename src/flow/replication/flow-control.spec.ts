import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteBudget } from './flow-control';
import { VirtualClock } from '../virtual-clock';

test('ByteBudget admits up to its limit and holds the rest until bytes are released', async () => {
  const budget = new ByteBudget(100);
  await budget.acquire(60);
  let second = false;
  const pending = budget.acquire(60).then(() => (second = true));
  await Promise.resolve();
  assert.equal(second, false, 'the second batch must wait: 120 bytes would exceed the budget');
  budget.release(60);
  await pending;
  assert.equal(second, true);
  assert.equal(budget.inFlightBytes, 60);
});

test('ByteBudget lets one batch larger than the budget through when nothing else is in flight', async () => {
  const budget = new ByteBudget(10);
  await budget.acquire(500);
  assert.equal(budget.inFlightBytes, 500);
});

test('ByteBudget grants waiters in arrival order', async () => {
  const budget = new ByteBudget(10);
  await budget.acquire(10);
  const order: string[] = [];
  const a = budget.acquire(5).then(() => order.push('a'));
  const b = budget.acquire(5).then(() => order.push('b'));
  budget.release(10);
  await Promise.all([a, b]);
  assert.deepEqual(order, ['a', 'b']);
});

test('ByteBudget abandons a wait when its signal aborts', async () => {
  const budget = new ByteBudget(10);
  await budget.acquire(10);
  const abort = new AbortController();
  const waiting = budget.acquire(10, undefined, abort.signal);
  abort.abort();
  await assert.rejects(waiting);
  budget.release(10);
  assert.equal(budget.inFlightBytes, 0, 'an abandoned wait must not be granted bytes later');
});

test('ByteBudget keeps a waiting fetch alive every second on the flow scheduler until the bytes come', async () => {
  const clock = new VirtualClock();
  const budget = new ByteBudget(10, clock.scheduler);
  await budget.acquire(10);
  const alive: number[] = [];
  let granted: number | undefined;
  void budget.acquire(10, async () => void alive.push(clock.now)).then(() => (granted = clock.now));
  await clock.advanceTo(3_500);
  assert.deepEqual(alive, [1_000, 2_000, 3_000]);
  budget.release(10);
  await clock.advance(0);
  assert.equal(granted, 3_500);
  await clock.advanceTo(10_000);
  assert.deepEqual(alive, [1_000, 2_000, 3_000], 'no keep-alive once the bytes are granted');
  assert.equal(clock.pendingTimers, 0);
});

test('ByteBudget tells when everything taken was given back (a rebalance waits for that)', async () => {
  const budget = new ByteBudget(100);
  await budget.drained();
  await budget.acquire(30);
  await budget.acquire(30);
  let drained = false;
  const waiting = budget.drained().then(() => (drained = true));
  budget.release(30);
  await Promise.resolve();
  assert.equal(drained, false, '30 bytes are still in flight');
  budget.release(30);
  await waiting;
  assert.equal(drained, true);
});

test('ByteBudget: a waiter whose keep-alive fails (its group rebalances) is taken out of the queue and never holds bytes', async () => {
  const budget = new ByteBudget(10);
  await budget.acquire(10);
  const failing = budget.acquire(10, async () => {
    throw new Error('REBALANCE_IN_PROGRESS');
  });
  await assert.rejects(failing, /REBALANCE_IN_PROGRESS/);
  budget.release(10);
  assert.equal(budget.inFlightBytes, 0, 'nothing granted to the abandoned waiter');
  await budget.drained();
});
