import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defer, of, throwError, type Observable } from 'rxjs';
import type { ClusterAdmin, PartitionOffsets } from '../../core/ports/cluster-admin';
import { silentLogger } from '../../core/ports/logger';
import { VirtualClock } from '../virtual-clock';
import { TopicOffsetsBatch } from './topic-offsets-batch';

const offsetsOf = (topic: string): PartitionOffsets[] => [0, 1].map((partition) => ({ partition, earliest: topic.length, latest: 10 + partition }));

/** A source cluster whose topics are `known`; records every question asked. */
function fakeAdmin(options: { known: readonly string[]; batchFails?: boolean; leaveOut?: readonly string[] }) {
  const asked: { many: string[][]; one: string[] } = { many: [], one: [] };
  const admin: Pick<ClusterAdmin, 'partitionOffsets' | 'partitionOffsetsOf'> = {
    partitionOffsetsOf: (topics): Observable<ReadonlyMap<string, readonly PartitionOffsets[]>> =>
      defer(() => {
        asked.many.push([...topics]);
        if (options.batchFails === true) return throwError(() => new Error('UNKNOWN_TOPIC_OR_PARTITION'));
        return of(new Map(topics.filter((t) => options.known.includes(t) && !(options.leaveOut ?? []).includes(t)).map((t) => [t, offsetsOf(t)])));
      }),
    partitionOffsets: (topic) =>
      defer(() => {
        asked.one.push(topic);
        return options.known.includes(topic) ? of(offsetsOf(topic)) : throwError(() => new Error(`${topic}: This server does not host this topic-partition`));
      }),
  };
  return { admin, asked };
}

test('topics asked for in the same turn are read in one round, each answered with its own offsets', async () => {
  const clock = new VirtualClock();
  const { admin, asked } = fakeAdmin({ known: ['a', 'bb', 'ccc'] });
  const batch = new TopicOffsetsBatch({ admin, scheduler: clock.scheduler, logger: silentLogger });
  const reads = [batch.read('a'), batch.read('bb'), batch.read('a'), batch.read('ccc')];
  await clock.advance(0);
  const [a, bb, a2, ccc] = await Promise.all(reads);
  assert.deepEqual(asked, { many: [['a', 'bb', 'ccc']], one: [] });
  assert.deepEqual(a, offsetsOf('a'));
  assert.deepEqual(a2, offsetsOf('a'));
  assert.deepEqual(bb, offsetsOf('bb'));
  assert.deepEqual(ccc, offsetsOf('ccc'));
});

test('a topic asked for after the round went out is read in the next round', async () => {
  const clock = new VirtualClock();
  const { admin, asked } = fakeAdmin({ known: ['a', 'b', 'c', 'd'] });
  const batch = new TopicOffsetsBatch({ admin, scheduler: clock.scheduler, logger: silentLogger });
  const first = Promise.all([batch.read('a'), batch.read('b')]);
  await clock.advance(0);
  await first;
  const second = Promise.all([batch.read('c'), batch.read('d')]);
  await clock.advance(0);
  await second;
  assert.deepEqual(asked.many, [
    ['a', 'b'],
    ['c', 'd'],
  ]);
});

test('a single topic is asked about alone, as before', async () => {
  const clock = new VirtualClock();
  const { admin, asked } = fakeAdmin({ known: ['a'] });
  const batch = new TopicOffsetsBatch({ admin, scheduler: clock.scheduler, logger: silentLogger });
  const read = batch.read('a');
  await clock.advance(0);
  assert.deepEqual(await read, offsetsOf('a'));
  assert.deepEqual(asked, { many: [], one: ['a'] });
});

test('a topic the round leaves out is asked about alone, and its own error reaches only its readers', async () => {
  const clock = new VirtualClock();
  const { admin, asked } = fakeAdmin({ known: ['a', 'b'], leaveOut: ['b'] });
  const batch = new TopicOffsetsBatch({ admin, scheduler: clock.scheduler, logger: silentLogger });
  const reads = [batch.read('a'), batch.read('b'), batch.read('gone')].map((p) =>
    p.then(
      (o) => o,
      (e: Error) => e.message,
    ),
  );
  await clock.advance(0);
  const [a, b, gone] = await Promise.all(reads);
  assert.deepEqual(a, offsetsOf('a'));
  assert.deepEqual(b, offsetsOf('b'));
  assert.equal(gone, 'gone: This server does not host this topic-partition');
  assert.deepEqual(asked, { many: [['a', 'b', 'gone']], one: ['b', 'gone'] });
});

test('when the round fails, every topic is asked about alone', async () => {
  const clock = new VirtualClock();
  const { admin, asked } = fakeAdmin({ known: ['a', 'b'], batchFails: true });
  const batch = new TopicOffsetsBatch({ admin, scheduler: clock.scheduler, logger: silentLogger });
  const reads = Promise.all([batch.read('a'), batch.read('b')]);
  await clock.advance(0);
  assert.deepEqual(await reads, [offsetsOf('a'), offsetsOf('b')]);
  assert.deepEqual(asked, { many: [['a', 'b']], one: ['a', 'b'] });
});
