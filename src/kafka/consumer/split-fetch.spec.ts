import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { firstFetchedOffset, splitFetch, type DecodedMessage, type FetchedMessage } from './split-fetch';
import type { FetchedRecordBatch } from '../wire/fetch-decoder';
import type { SourceBatch } from '../../core/record';

const fetched = (from: number, nextOffset: number) => ({ topic: 't', partition: 2, from, nextOffset, highWatermark: 1000 });

/** A decoded record at `offset` with a value of `size` bytes. */
function record(offset: number, size = 10): DecodedMessage {
  return { offset: String(offset), timestamp: '1700000000000', key: null, value: Buffer.alloc(size), headers: [] } as unknown as DecodedMessage;
}

/** A whole record batch of `count` records from `baseOffset`, `size` bytes long. */
function whole(baseOffset: number, count: number, size = 100): FetchedRecordBatch {
  return {
    offset: String(baseOffset + count - 1),
    key: null,
    value: null,
    isControlRecord: false,
    batchContext: { firstOffset: String(baseOffset), lastOffsetDelta: count - 1, producerId: '-1', inTransaction: false, isControlBatch: false },
    recordBatch: { baseOffset, recordCount: count, compressed: false, maxTimestamp: 0, bytes: Buffer.alloc(size) },
  };
}

/** Each piece as `kind first..next (records)`: where it starts, where the next one starts, how many records it holds. */
function shape(pieces: readonly SourceBatch[]): string[] {
  return pieces.map((p) =>
    p.kind === 'records'
      ? `records ${p.records[0]?.offset ?? '-'}..${p.nextOffset} (${p.records.length})`
      : `batches ${p.recordBatches[0]!.baseOffset}..${p.nextOffset} (${p.recordBatches.reduce((n, b) => n + b.recordCount, 0)})`,
  );
}

describe('splitFetch: one fetch of a partition as the flow receives it', () => {
  test('without a limit, one run per kind, in offset order, each ending where the next starts', async () => {
    const messages: FetchedMessage[] = [record(10), record(11), whole(12, 5), whole(17, 3), record(20)];
    assert.deepEqual(shape(await splitFetch(fetched(10, 21), messages)), ['records 10..12 (2)', 'batches 12..20 (8)', 'records 20..21 (1)']);
  });

  test('a fetch larger than the flow writes at once comes in pieces of at most that many records', async () => {
    const messages = Array.from({ length: 847 }, (_, i) => record(i));
    const pieces = await splitFetch(fetched(0, 847), messages, { records: 200, bytes: Number.POSITIVE_INFINITY });
    assert.deepEqual(shape(pieces), [
      'records 0..200 (200)',
      'records 200..400 (200)',
      'records 400..600 (200)',
      'records 600..800 (200)',
      'records 800..847 (47)',
    ]);
  });

  test('and of at most that many payload bytes', async () => {
    const pieces = await splitFetch(fetched(0, 5), [record(0, 40), record(1, 40), record(2, 40), record(3, 40), record(4, 40)], {
      records: Number.POSITIVE_INFINITY,
      bytes: 100,
    });
    assert.deepEqual(shape(pieces), ['records 0..2 (2)', 'records 2..4 (2)', 'records 4..5 (1)']);
    assert.deepEqual(
      pieces.map((p) => p.bytes),
      [80, 80, 40],
    );
  });

  test('whole record batches are never cut: pieces end between them, and one larger than the limit goes alone', async () => {
    const messages: FetchedMessage[] = [whole(0, 150), whole(150, 100), whole(250, 300), whole(550, 20), whole(570, 20)];
    const pieces = await splitFetch(fetched(0, 590), messages, { records: 200, bytes: Number.POSITIVE_INFINITY });
    assert.deepEqual(shape(pieces), ['batches 0..150 (150)', 'batches 150..250 (100)', 'batches 250..550 (300)', 'batches 550..590 (40)']);
  });

  test('records before the position are dropped, and a fetch of nothing new still moves the partition on', async () => {
    assert.deepEqual(shape(await splitFetch(fetched(12, 15), [record(10), record(11), record(12), record(13), record(14)], { records: 2, bytes: 1000 })), [
      'records 12..14 (2)',
      'records 14..15 (1)',
    ]);
    assert.deepEqual(shape(await splitFetch(fetched(20, 20), [whole(10, 10)])), ['records -..20 (0)']);
  });
});

describe('firstFetchedOffset: where a fetch begins, for telling the flow about a gap before it', () => {
  test("a decoded record's offset, a whole batch's base offset (not the pseudo-message's last offset), nothing for an empty fetch", () => {
    assert.equal(firstFetchedOffset([record(42), record(43)]), 42);
    assert.equal(firstFetchedOffset([whole(100, 10), record(110)]), 100);
    assert.equal(firstFetchedOffset([]), undefined);
  });
});
