import { test } from 'node:test';
import assert from 'node:assert/strict';
import { of } from '#rxjs';
import type { ClusterAdmin, PartitionOffsets } from '../../core/ports/cluster-admin';
import type { TopicPartition } from '../../core/record';
import { topicPartitionKey } from '../../core/record';
import { FlowStatus } from '../status/flow-status';
import { SourceResets, type AutoOffsetReset } from './source-resets';

interface Warning {
  readonly message: string;
  readonly meta: Record<string, unknown>;
}

/** SourceResets over fakes: a source whose partition offsets are `logs`, progress in a map. */
function setup(
  logs: Record<string, PartitionOffsets[]>,
  options: { stored?: Record<string, number>; autoOffsetReset?: AutoOffsetReset; ids?: Map<string, string> } = {},
) {
  const ids = options.ids ?? new Map<string, string>();
  const stored = new Map(Object.entries(options.stored ?? {}));
  const positions = new Map<string, number>();
  const warnings: Warning[] = [];
  const resets: [string, number][] = [];
  const status = new FlowStatus('primary', 'backup');
  const admin = {
    partitionOffsets: (topic: string) => of(logs[topic] ?? []),
    topicIds: (topics: readonly string[]) => of(new Map(topics.filter((t) => ids.has(t)).map((t) => [t, ids.get(t)!]))),
  } as unknown as ClusterAdmin;
  const noop = (): void => {};
  const logger = {
    error: noop,
    info: noop,
    debug: noop,
    warn: (message: string, meta: Record<string, unknown> = {}) => warnings.push({ message, meta }),
    child: () => logger,
  };
  const sourceResets = new SourceResets({
    sourceAdmin: admin,
    progress: {
      nextOffset: (tp: TopicPartition) => stored.get(topicPartitionKey(tp)),
      rewind: (tp: TopicPartition, next: number) => void stored.set(topicPartitionKey(tp), next),
    },
    status,
    logger,
    autoOffsetReset: options.autoOffsetReset ?? 'earliest',
    position: (tp) => positions.get(topicPartitionKey(tp)),
    onReset: (tp, next) => {
      positions.set(topicPartitionKey(tp), next);
      resets.push([topicPartitionKey(tp), next]);
    },
  });
  return { sourceResets, stored, positions, warnings, resets, status };
}

const orders0 = { topic: 'orders', partition: 0 };

test('a log ending before the stored position resumes at the new log start, moves progress back, warns with the offsets and counts one reset', async () => {
  const { sourceResets, stored, warnings, resets, status } = setup({ orders: [{ partition: 0, earliest: 0, latest: 3 }] }, { stored: { 'orders-0': 10 } });
  assert.equal(await sourceResets.logRestarted(orders0, { expected: 10, logEnd: 3 }), 0);
  assert.equal(stored.get('orders-0'), 0, 'progress goes back to the new log');
  assert.deepEqual(resets, [['orders-0', 0]]);
  assert.equal(status.sourceResets, 1);
  assert.equal(status.lag, 3, 'the new log counts as lag, the old end does not');
  assert.equal(warnings.length, 1);
  assert.deepEqual(warnings[0]!.meta, {
    topic: 'orders',
    partition: 0,
    storedOffset: 10,
    logStart: 0,
    logEnd: 3,
    resumeAt: 0,
    autoOffsetReset: 'earliest',
    reason: 'log-end-below-position',
  });
});

test('auto_offset_reset latest resumes at the new log end', async () => {
  const { sourceResets, stored } = setup({ orders: [{ partition: 0, earliest: 0, latest: 3 }] }, { stored: { 'orders-0': 10 }, autoOffsetReset: 'latest' });
  assert.equal(await sourceResets.logRestarted(orders0, { expected: 10, logEnd: 3 }), 3);
  assert.equal(stored.get('orders-0'), 3);
});

test('a restart already handled is not counted again: the held position is inside the log', async () => {
  const { sourceResets, positions, warnings, status } = setup({ orders: [{ partition: 0, earliest: 0, latest: 3 }] }, { stored: { 'orders-0': 10 } });
  positions.set('orders-0', 0);
  // A consumer still holding the old position reports the same restart.
  assert.equal(await sourceResets.logRestarted(orders0, { expected: 10, logEnd: 3 }), 0);
  assert.equal(status.sourceResets, 0);
  assert.equal(warnings.length, 0);
});

test('a changed topic id resets every held partition of the topic, whatever the new log length; first sight and the same id do not', async () => {
  const logs = {
    orders: [
      { partition: 0, earliest: 0, latest: 40 },
      { partition: 1, earliest: 0, latest: 40 },
      { partition: 2, earliest: 0, latest: 40 },
    ],
  };
  const ids = new Map([['orders', 'id-A']]);
  const { sourceResets, stored, positions, warnings, status } = setup(logs, { stored: { 'orders-0': 10 }, ids });
  positions.set('orders-1', 12);
  await sourceResets.topicsSeen([{ source: 'orders', topicId: 'id-A' }]);
  await sourceResets.topicsSeen([{ source: 'orders', topicId: 'id-A' }]);
  assert.equal(status.sourceResets, 0, 'the first id seen is only recorded');

  ids.delete('orders');
  await sourceResets.topicsSeen([]); // the topic is gone for a refresh: its id is kept
  ids.set('orders', 'id-B');
  await sourceResets.topicsSeen([{ source: 'orders', topicId: 'id-B' }]);
  assert.equal(status.sourceResets, 2, 'partitions 0 (stored) and 1 (fetched) are reset; 2 has no position to reset');
  assert.equal(stored.get('orders-0'), 0);
  assert.equal(stored.get('orders-1'), 0);
  assert.equal(positions.get('orders-1'), 0);
  assert.equal(stored.has('orders-2'), false);
  assert.deepEqual(
    warnings.map((w) => [w.meta['partition'], w.meta['storedOffset'], w.meta['logEnd'], w.meta['previousTopicId'], w.meta['topicId'], w.meta['reason']]),
    [
      [0, 10, 40, 'id-A', 'id-B', 'topic-id-changed'],
      [1, 12, 40, 'id-A', 'id-B', 'topic-id-changed'],
    ],
  );
});

test('a restart the source reported is not counted again when the next refresh sees the new topic id', async () => {
  const ids = new Map([['orders', 'id-A']]);
  const { sourceResets, warnings, status } = setup({ orders: [{ partition: 0, earliest: 0, latest: 3 }] }, { stored: { 'orders-0': 10 }, ids });
  await sourceResets.topicsSeen([{ source: 'orders', topicId: 'id-A' }]);
  ids.set('orders', 'id-B');
  await sourceResets.logRestarted(orders0, { expected: 10, logEnd: 3 });
  assert.deepEqual([warnings[0]!.meta['previousTopicId'], warnings[0]!.meta['topicId']], ['id-A', 'id-B'], 'the warning names both ids');
  await sourceResets.topicsSeen([{ source: 'orders', topicId: 'id-B' }]);
  // A refresh whose answer predates the restart is checked against the id now.
  await sourceResets.topicsSeen([{ source: 'orders', topicId: 'id-A' }]);
  assert.equal(status.sourceResets, 1);
});

test('a source without topic ids compares nothing', async () => {
  const { sourceResets, status } = setup({ orders: [{ partition: 0, earliest: 0, latest: 3 }] }, { stored: { 'orders-0': 10 } });
  await sourceResets.topicsSeen([{ source: 'orders' }]);
  await sourceResets.topicsSeen([{ source: 'orders' }]);
  assert.equal(status.sourceResets, 0);
});

test('a fetch past the expected offset after the log start moved past it: one warning naming the partition and offsets, counted as expired', async () => {
  const { sourceResets, warnings, status } = setup({ orders: [{ partition: 0, earliest: 500, latest: 900 }] });
  await sourceResets.fetchedPast(orders0, { expected: 100, firstOffset: 500 });
  assert.equal(status.recordsExpired, 400);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!.message, /removed before they were copied/);
  assert.deepEqual(warnings[0]!.meta, { topic: 'orders', partition: 0, fromOffset: 100, toOffset: 499, records: 400, logStart: 500 });
  // The same gap fetched again (a refetch after a rebalance) is not counted twice.
  await sourceResets.fetchedPast(orders0, { expected: 100, firstOffset: 500 });
  assert.equal(status.recordsExpired, 400);
  assert.equal(warnings.length, 1);
});

test('a gap inside the log (compaction, aborted records, transaction markers) is not an expiry', async () => {
  const { sourceResets, warnings, status } = setup({ orders: [{ partition: 0, earliest: 0, latest: 900 }] });
  await sourceResets.fetchedPast(orders0, { expected: 100, firstOffset: 140 });
  assert.equal(status.recordsExpired, 0);
  assert.equal(warnings.length, 0);
});

test('a log start that moved past part of a gap: only the records before it expired', async () => {
  const { sourceResets, warnings, status } = setup({ orders: [{ partition: 0, earliest: 120, latest: 900 }] });
  await sourceResets.fetchedPast(orders0, { expected: 100, firstOffset: 140 });
  assert.equal(status.recordsExpired, 20);
  assert.deepEqual(warnings[0]!.meta['toOffset'], 119);
});
