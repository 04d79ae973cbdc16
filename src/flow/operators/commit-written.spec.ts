import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { EMPTY, defer, throwError } from '#rxjs';
import type { WrittenBatches } from '../../core/ports/write-path';
import { flowBatch, sourceBatch } from '../batch-fixtures';
import { commitWritten } from './commit-written';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));
const written = (topic: string): WrittenBatches => ({ batches: [flowBatch(sourceBatch(topic))], offsets: new Float64Array([0]) });

test('commitWritten commits each acknowledged write as it comes and emits nothing', () => {
  scheduler().run(({ cold, expectObservable, flush }) => {
    const committed: string[] = [];
    const commit = (w: WrittenBatches) => defer(() => (committed.push(w.batches[0]!.source.topic), EMPTY));
    expectObservable(cold('a-b|', { a: written('a'), b: written('b') }).pipe(commitWritten(commit))).toBe('---|');
    flush();
    assert.deepEqual(committed, ['a', 'b']);
  });
});

test("commitWritten ends the graph with a commit's failure (a failed record under errors.tolerance none)", () => {
  scheduler().run(({ cold, expectObservable }) => {
    const failure = new Error('the record at offset 1 failed');
    const commit = (w: WrittenBatches) => (w.batches[0]!.source.topic === 'b' ? throwError(() => failure) : EMPTY);
    expectObservable(cold('a-b-c|', { a: written('a'), b: written('b'), c: written('c') }).pipe(commitWritten(commit))).toBe('--#', undefined, failure);
  });
});
