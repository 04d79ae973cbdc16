import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { stepInOrder } from './step-in-order';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

test('stepInOrder passes answers given at once, waits for later ones, and keeps the input order', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const input = cold('a-b-c|', { a: 1, b: 2, c: 3 });
    // 2 is answered 3 frames later; 3, answered at once, waits until that answer is complete.
    const out = input.pipe(stepInOrder((n: number) => (n === 2 ? cold('---x|', { x: 20 }) : n * 10)));
    expectObservable(out).toBe('a----b(c|)', { a: 10, b: 20, c: 30 });
  });
});

test('stepInOrder passes a failure of a step on', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const out = cold('a-b|', { a: 1, b: 2 }).pipe(stepInOrder((n: number) => (n === 2 ? cold('-#', undefined, new Error('registry down')) : n)));
    expectObservable(out).toBe('a--#', { a: 1 }, new Error('registry down'));
  });
});
