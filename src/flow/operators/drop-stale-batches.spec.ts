import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { map } from '#rxjs';
import type { SourceBatch } from '../../core/record';
import { sourceBatch } from '../batch-fixtures';
import { dropStaleBatches } from './drop-stale-batches';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

test('dropStaleBatches drops the batches of a restarted log, telling about each, and passes the others in order', () => {
  scheduler().run(({ cold, expectObservable, flush }) => {
    const dropped: string[] = [];
    const input = cold('a-b-c|', { a: sourceBatch('orders'), b: sourceBatch('recreated'), c: sourceBatch('orders', 1) });
    const out = input.pipe(
      dropStaleBatches(
        (batch) => batch.topic === 'recreated',
        (batch) => dropped.push(`${batch.topic}:${batch.bytes}`),
      ),
      map((batch: SourceBatch) => `${batch.topic}@${batch.nextOffset}`),
    );
    expectObservable(out).toBe('a---c|', { a: 'orders@1', c: 'orders@2' });
    flush();
    assert.deepEqual(dropped, ['recreated:10'], 'its bytes go back to the budget');
  });
});
