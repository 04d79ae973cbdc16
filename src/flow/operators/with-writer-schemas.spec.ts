import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { map } from '#rxjs';
import type { SourceBatch } from '../../core/record';
import { sourceBatch } from '../batch-fixtures';
import { withWriterSchemas } from './with-writer-schemas';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));
const topic = map((batch: SourceBatch) => batch.topic);

test('withWriterSchemas holds a batch whose schemas are read from the registry, and the batches after it, in order', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const batches = { a: sourceBatch('known'), b: sourceBatch('new-id'), c: sourceBatch('known-too') };
    // The registry answers for b's new id 4 frames after it is asked; a and c are known at once.
    const prepare = (batch: SourceBatch) => (batch.topic === 'new-id' ? cold('----(x|)', { x: batch }) : batch);
    const out = cold('a-b-c|', batches).pipe(withWriterSchemas(prepare), topic);
    expectObservable(out).toBe('a-----(bc|)', { a: 'known', b: 'new-id', c: 'known-too' });
  });
});

test('withWriterSchemas passes every batch as it is for a flow without registry converters', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const out = cold('a-b|', { a: sourceBatch('a'), b: sourceBatch('b') }).pipe(withWriterSchemas(undefined), topic);
    expectObservable(out).toBe('a-b|', { a: 'a', b: 'b' });
  });
});
