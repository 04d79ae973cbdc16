import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { map, of } from '#rxjs';
import type { WrittenBatches } from '../../core/ports/write-path';
import { flowBatchDeadLetters } from '../../core/record';
import { flowBatch, sourceBatch } from '../batch-fixtures';
import { deadLetterFailures } from './dead-letter-failures';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));
const written = (topic: string, deadLetters?: readonly string[]): WrittenBatches => ({
  batches: [flowBatch(sourceBatch(topic), deadLetters === undefined ? {} : { deadLetters })],
  offsets: new Float64Array([0]),
});

test('deadLetterFailures passes a write once its failures are acknowledged on the dead-letter topic, writes in order', () => {
  scheduler().run(({ cold, expectObservable, flush }) => {
    const sent: string[] = [];
    // The dead-letter topic takes 3 frames to acknowledge; a write without failures passes at once, behind it.
    const deadLetter = (w: WrittenBatches) => {
      const failures = w.batches.flatMap((b) => flowBatchDeadLetters(b) ?? []);
      if (failures.length === 0) return of(w);
      sent.push(...failures.map((f) => f.error.reason));
      return cold('---(x|)', { x: w });
    };
    const out = cold('a-b|', { a: written('a', ['bad']), b: written('b') }).pipe(
      deadLetterFailures(deadLetter),
      map((w) => w.batches[0]!.source.topic),
    );
    expectObservable(out).toBe('---(ab|)', { a: 'a', b: 'b' });
    flush();
    assert.deepEqual(sent, ['bad']);
  });
});
