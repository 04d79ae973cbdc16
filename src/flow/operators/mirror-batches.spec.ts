import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { map } from '#rxjs';
import type { FlowBatch } from '../../core/record';
import { flowBatch, sourceBatch } from '../batch-fixtures';
import { mirrorBatches } from './mirror-batches';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

test('mirrorBatches gives each fetched batch to the mirror once, as it comes, and passes what it made', () => {
  scheduler().run(({ cold, expectObservable, flush }) => {
    const calls: string[] = [];
    const out = cold('a--b|', { a: sourceBatch('a'), b: sourceBatch('b') }).pipe(
      mirrorBatches((batch) => (calls.push(batch.topic), flowBatch(batch))),
      map((batch: FlowBatch) => (batch.kind === 'records' ? batch.records[0]!.topic : '')),
    );
    expectObservable(out).toBe('a--b|', { a: 'remote.a', b: 'remote.b' });
    flush();
    assert.deepEqual(calls, ['a', 'b']);
  });
});
