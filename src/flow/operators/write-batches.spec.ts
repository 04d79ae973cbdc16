import { test } from 'node:test';
import { readFile } from 'node:fs';
import assert from 'node:assert/strict';
import { TestScheduler } from '#rxjs/testing';
import { Observable, asyncScheduler, map, timer } from '#rxjs';
import { atEndOfTurn, writeBatches, type BatchPolicy } from './write-batches';
import type { FlowBatch, MirrorRecord } from '../../core/record';
import type { OutboundItem } from '../../core/ports/record-writer';

const scheduler = () => new TestScheduler((actual, expected) => assert.deepStrictEqual(actual, expected));

function batch(name: string, count: number, bytesPerRecord = 10): FlowBatch {
  const records: MirrorRecord[] = Array.from({ length: count }, (_, i) => ({
    source: { topic: name, partition: 0, offset: i },
    topic: `t.${name}`,
    partition: 0,
    timestamp: 0,
    key: null,
    value: Buffer.alloc(bytesPerRecord),
    headers: [],
  }));
  return {
    kind: 'records',
    source: { topic: name, partition: 0 },
    records,
    nextOffset: count,
    highWatermark: count,
    bytes: count * bytesPerRecord,
    sourceRecords: count,
  };
}

const policy: BatchPolicy = { maxRecords: 100, maxBytes: 1_000_000, maxWaitMs: 3, maxPartitionBytes: 1_000_000 };

/** A fake target: each write takes `frames` of virtual time and numbers records from `next`. */
function fakeTarget(frames: number, writes: string[][]) {
  let next = 0;
  return (records: readonly OutboundItem[]): Observable<Float64Array> => {
    writes.push(records.map((r) => r.topic));
    return timer(frames).pipe(map(() => Float64Array.from(records, () => next++)));
  };
}

const names = (w: { batches: readonly FlowBatch[] }) => w.batches.map((b) => b.source.topic).join('');

test('writeBatches waits max_wait for more records while the target is idle', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('a-b--------|', { a: batch('a', 1), b: batch('b', 1) });
    const out = input.pipe(writeBatches(policy, fakeTarget(2, writes)), map(names));
    // a arrives at 0, the wait ends at 3 with a and b; the write takes 2 frames → 5.
    expectObservable(out).toBe('-----x-----|', { x: 'ab' });
  });
});

test('writeBatches without waitWhenIdle writes to an idle target at once, with what arrived in the same turn', () => {
  // Without waitWhenIdle, the end of a turn is a 0 ms action of the scheduler given (setImmediate on the real clock).
  const virtual = scheduler();
  virtual.run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('(ab)-c-----|', { a: batch('a', 1), b: batch('b', 1), c: batch('c', 1) });
    const out = input.pipe(writeBatches({ ...policy, waitWhenIdle: false }, fakeTarget(2, writes), virtual), map(names));
    // a and b (the partitions of one fetch) go as one write at 0, back at 2; c arrives at 5 to
    // an idle target and goes at once, back at 7.
    expectObservable(out).toBe('--x----y---|', { x: 'ab', y: 'c' });
  });
});

test('writeBatches without waitWhenIdle waits max_wait for a small batch while another write is out', () => {
  // Without waitWhenIdle, the end of a turn is a 0 ms action of the scheduler given (setImmediate on the real clock).
  const virtual = scheduler();
  virtual.run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('a-b-c-------|', { a: batch('a', 1), b: batch('b', 1), c: batch('c', 1) });
    const out = input.pipe(writeBatches({ ...policy, waitWhenIdle: false, maxInFlight: 2 }, fakeTarget(10, writes), virtual), map(names));
    // a goes at once (nothing out), back at 10; b (a slot free, a write out) waits 3 for more and
    // goes with c at 5, back at 15.
    expectObservable(out).toBe('----------x----(y|)', { x: 'a', y: 'bc' });
  });
});

test('writeBatches sends what piled up during a write as soon as it returns', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('a---bc-d---------|', { a: batch('a', 1), b: batch('b', 1), c: batch('c', 1), d: batch('d', 1) });
    const out = input.pipe(writeBatches({ ...policy, maxWaitMs: 0 }, fakeTarget(5, writes)), map(names));
    // a is written at 0 and returns at 5; b, c arrived meanwhile and go at 5, returning at 10; d waited too.
    expectObservable(out).toBe('-----x----y----z-|', { x: 'a', y: 'bc', z: 'd' });
  });
});

test('writeBatches flushes at once when max_records is reached and never splits a flow batch', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('a--|', { a: batch('a', 150) });
    const out = input.pipe(
      writeBatches(policy, fakeTarget(1, writes)),
      map((w) => w.offsets.length),
    );
    expectObservable(out).toBe('-x-|', { x: 150 });
  });
});

test('writeBatches reports each record offset in input order across partition rounds', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('a|', { a: batch('a', 5, 100) });
    const out = input.pipe(
      writeBatches({ ...policy, maxWaitMs: 0, maxPartitionBytes: 350 }, fakeTarget(1, writes)),
      map((w) => Array.from(w.offsets)),
    );
    // 164 bytes per record with overhead: two fit in 350, so rounds of 2, 2, 1, written one after another.
    expectObservable(out).toBe('---(x|)', { x: [0, 1, 2, 3, 4] });
  });
});

test('writeBatches drains everything before completing when the input completes', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('(ab|)', { a: batch('a', 60), b: batch('b', 60) });
    const out = input.pipe(writeBatches(policy, fakeTarget(2, writes)), map(names));
    // a and b together exceed max_records: a goes first, then b.
    expectObservable(out).toBe('--x-(y|)', { x: 'a', y: 'b' });
  });
});

test('writeBatches passes batches with no records through in order without writing', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const empty: FlowBatch = { ...batch('e', 0) };
    const input = cold('e|', { e: empty });
    const out = input.pipe(writeBatches({ ...policy, maxWaitMs: 0 }, fakeTarget(2, writes)), map(names));
    expectObservable(out).toBe('x|', { x: 'e' });
  });
});

test('writeBatches puts forwarded batches of a partition in one round when uncompressed, a compressed one alone', () => {
  const rounds: string[][] = [];
  scheduler().run(({ cold, expectObservable }) => {
    let next = 0;
    const target = (items: readonly OutboundItem[]): Observable<Float64Array> => {
      rounds.push(items.map((item) => ('batch' in item ? `${item.partition}:batch@${item.batch.baseOffset}` : `${item.partition}:record`)));
      // A forwarded batch takes as many offsets as it has records.
      return timer(1).pipe(
        map(() =>
          Float64Array.from(items, (item) => {
            const at = next;
            next += 'batch' in item ? item.batch.recordCount : 1;
            return at;
          }),
        ),
      );
    };
    const whole = (partition: number, baseOffset: number, recordCount: number, compressed: boolean): FlowBatch => ({
      kind: 'batches',
      source: { topic: 'a', partition },
      recordBatches: [{ topic: 't.a', partition, batch: { baseOffset, recordCount, compressed, maxTimestamp: 0, bytes: Buffer.alloc(100) } }],
      nextOffset: baseOffset + recordCount,
      highWatermark: 0,
      bytes: 100,
      sourceRecords: recordCount,
    });
    const input = cold('(abcef|)', {
      a: whole(0, 0, 5, true),
      b: whole(0, 5, 3, true),
      c: whole(1, 0, 4, false),
      e: whole(1, 4, 2, false),
      f: batch('f', 1),
    });
    const out = input.pipe(
      writeBatches(policy, target),
      map((w) => Array.from(w.offsets)),
    );
    // All five go in one write when the input completes. Round 1: partition 0's first
    // (compressed) batch, both uncompressed batches of partition 1, the record of f (another
    // topic); round 2: partition 0's second compressed batch. Offsets come back in input order.
    expectObservable(out).toBe('--(x|)', { x: [0, 12, 5, 9, 11] });
  });
  assert.deepEqual(rounds, [['0:batch@0', '1:batch@0', '1:batch@4', '0:record'], ['0:batch@5']]);
});

test('writeBatches with several writes in flight sends full batches without waiting for the previous write', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('a-b-c-d----------|', { a: batch('a', 100), b: batch('b', 100), c: batch('c', 100), d: batch('d', 100) });
    const out = input.pipe(writeBatches({ ...policy, maxInFlight: 3 }, fakeTarget(5, writes)), map(names));
    // a, b, c go at 0, 2, 4 (each full), all in flight together; d waits for a slot: a returns at 5, d goes then.
    expectObservable(out).toBe('-----a-b-c-d-----|', { a: 'a', b: 'b', c: 'c', d: 'd' });
  });
});

test('writeBatches with several in flight emits in input order: a write acknowledged early waits for the earlier ones', () => {
  scheduler().run(({ cold, expectObservable }) => {
    // The first write takes 6 frames, the others 1: their acknowledgements come first.
    let n = 0;
    const target = (records: readonly OutboundItem[]): Observable<Float64Array> => timer(n++ === 0 ? 6 : 1).pipe(map(() => new Float64Array(records.length)));
    const input = cold('abc----------|', { a: batch('a', 100), b: batch('b', 100), c: batch('c', 100) });
    const out = input.pipe(writeBatches({ ...policy, maxInFlight: 5 }, target), map(names));
    expectObservable(out).toBe('------(abc)--|', { a: 'a', b: 'b', c: 'c' });
  });
});

test('writeBatches with several in flight still waits max_wait for small batches, and piles up while every slot is taken', () => {
  scheduler().run(({ cold, expectObservable }) => {
    const writes: string[][] = [];
    const input = cold('a-b-c-------|', { a: batch('a', 1), b: batch('b', 1), c: batch('c', 1) });
    const out = input.pipe(writeBatches({ ...policy, maxInFlight: 2 }, fakeTarget(10, writes)), map(names));
    // a waits 3 for more and goes with b at 3, back at 13; c (a slot free) waits its 3, goes at 7, back at 17.
    expectObservable(out).toBe('-------------x---(y|)', { x: 'ab', y: 'c' });
  });
});

test('writeBatches with several in flight starts every round of a write before the next write: the writer places records in the order writes start', () => {
  const started: string[] = [];
  scheduler().run(({ cold, expectObservable }) => {
    const compressed = (name: string, baseOffset: number, recordCount: number): FlowBatch => ({
      kind: 'batches',
      source: { topic: name, partition: 0 },
      recordBatches: [{ topic: 't.a', partition: 0, batch: { baseOffset, recordCount, compressed: true, maxTimestamp: 0, bytes: Buffer.alloc(100) } }],
      nextOffset: baseOffset + recordCount,
      highWatermark: 0,
      bytes: 100,
      sourceRecords: recordCount,
    });
    // Each round is started (subscribed) when the writer is asked, and answered 10 frames later.
    const target = (items: readonly OutboundItem[]): Observable<Float64Array> =>
      new Observable<Float64Array>((subscriber) => {
        started.push(items.map((item) => ('batch' in item ? `@${item.batch.baseOffset}` : 'record')).join(','));
        return timer(10)
          .pipe(map(() => new Float64Array(items.length)))
          .subscribe(subscriber);
      });
    // The first write: two compressed batches of one partition (two rounds), full at 0; the
    // second, full by itself, comes at 4 while the first is out.
    const input = cold('(ab)c|', { a: compressed('a', 0, 1), b: compressed('b', 1, 1), c: compressed('c', 2, 2) });
    const out = input.pipe(writeBatches({ ...policy, maxRecords: 2, maxInFlight: 2 }, target), map(names));
    expectObservable(out).toBe('----------x---(y|)', { x: 'ab', y: 'c' });
  });
  // The second round of the first write is not started after the second write (it would be placed behind it).
  assert.deepEqual(started, ['@0', '@1', '@2']);
});

test('atEndOfTurn on the real clock runs after the promise jobs of its turn and before a 0 ms timer', async () => {
  const order: string[] = [];
  await new Promise<void>((resolve, reject) => {
    // From an I/O callback, as a fetch's answer arrives: there Node runs immediates before timers.
    readFile(__filename, (error) => {
      if (error) return reject(error);
      setTimeout(() => {
        order.push('timer');
        resolve();
      }, 0);
      atEndOfTurn(asyncScheduler, () => order.push('end of turn'));
      // A fetch's other partitions reach the sink a few promise jobs later, in the same turn.
      void Promise.resolve()
        .then(() => undefined)
        .then(() => order.push('promise job'));
    });
  });
  assert.deepEqual(order, ['promise job', 'end of turn', 'timer']);
});

test('atEndOfTurn does not run once unsubscribed', async () => {
  let ran = false;
  atEndOfTurn(asyncScheduler, () => (ran = true)).unsubscribe();
  // Immediates run in the order they were set: this one comes after the one it would have used.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ran, false);
});
