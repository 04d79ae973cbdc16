import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { map } from '#rxjs';
import type { FlowBatch } from '../../core/record';
import { flowBatch, sourceBatch } from '../batch-fixtures';
import { stopAtFailure } from './stop-at-failure';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

test('stopAtFailure passes the batch that ends at a failing record, then completes: fetching stops', () => {
  scheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
    const input = hot('a-b-c-d', {
      a: flowBatch(sourceBatch('a')),
      b: flowBatch(sourceBatch('b'), { failure: 'bad' }),
      c: flowBatch(sourceBatch('c')),
      d: flowBatch(sourceBatch('d')),
    });
    const out = input.pipe(
      stopAtFailure(),
      map((batch: FlowBatch) => batch.source.topic),
    );
    expectObservable(out).toBe('a-(b|)', { a: 'a', b: 'b' });
    expectSubscriptions(input.subscriptions).toBe('^-!');
  });
});

test('stopAtFailure passes batches whose failures went to the dead letters (errors.tolerance all)', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const out = cold('a-b|', { a: flowBatch(sourceBatch('a'), { deadLetters: ['bad'] }), b: flowBatch(sourceBatch('b')) }).pipe(
      stopAtFailure(),
      map((batch: FlowBatch) => batch.source.topic),
    );
    expectObservable(out).toBe('a-b|', { a: 'a', b: 'b' });
  });
});
