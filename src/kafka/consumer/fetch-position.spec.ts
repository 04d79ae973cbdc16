import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decideAfterRestart, decideFetch, positionAfterFilteredFetch } from './fetch-position';

describe('decideFetch: a fetch of a partition against the offset the flow expects next', () => {
  test('a fetch that reaches the expected offset is handed over (records before it are cut later)', () => {
    assert.deepEqual(decideFetch(100, 100, 500), { action: 'deliver' });
    assert.deepEqual(decideFetch(100, 180, 500), { action: 'deliver' });
    assert.deepEqual(decideFetch(0, 0, 1), { action: 'deliver' });
  });

  test('a newly assigned partition read from its beginning seeks to the stored position the log still holds', () => {
    assert.deepEqual(decideFetch(100, 49, 500), { action: 'seek', offset: 100 });
    // The stored position is exactly the log end: nothing to read yet, but nothing was lost either.
    assert.deepEqual(decideFetch(500, 49, 500), { action: 'seek', offset: 500 });
  });

  test('a log that ends before the expected offset is a restart for the flow to decide, never a seek past its end', () => {
    assert.deepEqual(decideFetch(500, 9, 10), { action: 'log-restarted', restart: { expected: 500, logEnd: 10 } });
    assert.deepEqual(decideFetch(1, -1, 0), { action: 'log-restarted', restart: { expected: 1, logEnd: 0 } });
  });

  test("after a restart the flow's answer is delivered from when the fetch reaches it, else sought", () => {
    // auto_offset_reset earliest: the new log is read from its start, which this fetch holds.
    assert.deepEqual(decideAfterRestart(0, 9), { action: 'deliver' });
    // latest: from the new log's end, after this fetch.
    assert.deepEqual(decideAfterRestart(10, 9), { action: 'seek', offset: 10 });
  });
});

describe('positionAfterFilteredFetch: a fetch whose records kafkajs filtered out (aborted transactions, markers)', () => {
  test('moves the position past them', () => {
    assert.equal(positionAfterFilteredFetch(0, 41, 40), 42);
  });

  test('never moves it back, and ignores fetches that did hand records over', () => {
    assert.equal(positionAfterFilteredFetch(0, 41, 42), undefined);
    assert.equal(positionAfterFilteredFetch(0, 41, 50), undefined);
    assert.equal(positionAfterFilteredFetch(3, 41, 40), undefined);
  });
});
