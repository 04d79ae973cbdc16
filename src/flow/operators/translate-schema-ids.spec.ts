import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { map } from '#rxjs';
import type { FlowBatch } from '../../core/record';
import { flowBatch, sourceBatch } from '../batch-fixtures';
import { translateSchemaIds } from './translate-schema-ids';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));
const name = map((batch: FlowBatch) => `${batch.source.topic}${batch.kind === 'records' ? `:${batch.records[0]!.topic}` : ''}`);

test('translateSchemaIds waits for the registries only for a batch with ids new to the flow, keeping the order', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const batches = { a: flowBatch(sourceBatch('a')), b: flowBatch(sourceBatch('b')), c: flowBatch(sourceBatch('c')) };
    const moved = (batch: FlowBatch): FlowBatch =>
      batch.kind === 'records' ? { ...batch, records: batch.records.map((r) => ({ ...r, topic: 'moved' })) } : batch;
    // b's id is registered on the target 2 frames after it is asked.
    const translate = (batch: FlowBatch) => (batch.source.topic === 'b' ? cold('--(x|)', { x: moved(batch) }) : moved(batch));
    const out = cold('ab--c|', batches).pipe(translateSchemaIds(translate), name);
    expectObservable(out).toBe('a--bc|', { a: 'a:moved', b: 'b:moved', c: 'c:moved' });
  });
});

test('translateSchemaIds passes every batch as it is for a flow without a schema registry', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const out = cold('a|', { a: flowBatch(sourceBatch('a')) }).pipe(translateSchemaIds(undefined), name);
    expectObservable(out).toBe('a|', { a: 'a:remote.a' });
  });
});
