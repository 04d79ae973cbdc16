import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OffsetSyncStore } from './offset-sync-store';
import { groupTranslationLag } from './translation-lag';

function store(syncs: readonly [string, number, number, number][]): OffsetSyncStore {
  const s = new OffsetSyncStore();
  for (const [topic, partition, upstreamOffset, downstreamOffset] of syncs)
    s.handle({ topicPartition: { topic, partition }, upstreamOffset, downstreamOffset });
  s.markReadToEnd();
  return s;
}

const offset = (topic: string, partition: number, o: number) => ({ topic, partition, offset: o, metadata: '' });

test('translation lag: per partition, the committed offset minus the upstream offset of the sync used, minus 1; summed over the group', () => {
  const syncs = store([
    ['orders', 0, 0, 0],
    ['orders', 0, 100, 80],
    ['orders', 1, 30, 30],
  ]);
  const translate = syncs.translate.bind(syncs);
  const all = (): boolean => true;
  // orders-0 at 140: the sync at 100 is used, the checkpoint points just past it: 39 records read again.
  // orders-1 at 30: the sync's own offset translates exactly.
  assert.equal(groupTranslationLag([offset('orders', 0, 140), offset('orders', 1, 30)], all, translate), 39);
  assert.equal(groupTranslationLag([offset('orders', 0, 101)], all, translate), 0, 'one past a sync translates exactly');
  assert.equal(groupTranslationLag([offset('orders', 0, 150), offset('orders', 1, 35)], all, translate), 49 + 4);
});

test('translation lag leaves out what no checkpoint translates', () => {
  const syncs = store([['orders', 0, 10, 10]]);
  const translate = syncs.translate.bind(syncs);
  assert.equal(
    groupTranslationLag([offset('orders', 0, 5)], () => true, translate),
    undefined,
    'older than every sync kept: not checkpointed',
  );
  assert.equal(
    groupTranslationLag([offset('payments', 0, 50)], () => true, translate),
    undefined,
    'no sync for the partition',
  );
  assert.equal(
    groupTranslationLag([offset('orders', 0, 20)], (t) => t !== 'orders', translate),
    undefined,
    'topic not checkpointed',
  );
  assert.equal(
    groupTranslationLag([offset('orders', 0, 20), offset('payments', 0, 50)], () => true, translate),
    9,
  );
});
