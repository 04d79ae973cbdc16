import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defer, firstValueFrom, of, throwError } from '#rxjs';
import { silentLogger } from '../../core/ports/logger';
import type { ClusterAdmin, GroupOffset } from '../../core/ports/cluster-admin';
import { DefaultReplicationPolicy, DefaultTopicFilter } from '../../policy';
import { checkpointTranslation } from './checkpoint-translation';
import { OffsetSyncStore } from './offset-sync-store';
import { preservedOffset, preservedPartitions } from './preserved-partitions';

const marker = (topic: string, partition: number, offset: number, preserved: boolean): GroupOffset => ({
  topic,
  partition,
  offset,
  metadata: JSON.stringify(preserved ? { preserved } : { preserved, reason: 'fell back' }),
});

/** A target whose marker group holds `markers`, each topic with partitions ending at 100. */
function target(markers: readonly GroupOffset[] | Error): { admin: ClusterAdmin; asked: string[] } {
  const asked: string[] = [];
  const admin = {
    cluster: 'backup',
    fetchGroupOffsets: (group: string) => defer(() => (asked.push(group), markers instanceof Error ? throwError(() => markers) : of(markers))),
    partitionOffsets: (topic: string) => of([0, 1].map((partition) => ({ partition, earliest: 0, latest: topic === 'primary.orders' ? 100 : 50 }))),
  } as unknown as ClusterAdmin;
  return { admin, asked };
}

test('preservedPartitions: the partitions marked preserved, from their first offset to the target end', async () => {
  const { admin } = target([marker('primary.orders', 0, 10, true), marker('primary.orders', 1, 30, false)]);
  const found = await firstValueFrom(preservedPartitions(admin, 'g.preserved-offsets', silentLogger));
  assert.deepEqual([...found], [['primary.orders-0', { since: 10, end: 100 }]]);
  assert.equal(preservedOffset(found, { topic: 'primary.orders', partition: 0 }, 10), 10);
  assert.equal(preservedOffset(found, { topic: 'primary.orders', partition: 0 }, 100), 100);
  assert.equal(preservedOffset(found, { topic: 'primary.orders', partition: 0 }, 9), undefined, 'before the first offset preserved');
  assert.equal(preservedOffset(found, { topic: 'primary.orders', partition: 0 }, 101), undefined, 'past the target end: not replicated up to it yet');
  assert.equal(preservedOffset(found, { topic: 'primary.orders', partition: 1 }, 40), undefined, 'fell back: translated');
});

test('preservedPartitions reads nothing without offsets: preserve, and nothing when the markers cannot be read', async () => {
  const none = target([]);
  assert.equal((await firstValueFrom(preservedPartitions(none.admin, undefined, silentLogger))).size, 0);
  assert.deepEqual(none.asked, []);
  const down = target(new Error('backup is down'));
  assert.equal((await firstValueFrom(preservedPartitions(down.admin, 'g.preserved-offsets', silentLogger))).size, 0, 'every offset is translated');
});

test("a pass's translation takes a preserved partition's group offset as it is, and translates the others through offset syncs", async () => {
  const { admin } = target([marker('primary.orders', 0, 10, true)]);
  const preserved = await firstValueFrom(preservedPartitions(admin, 'g.preserved-offsets', silentLogger));
  const syncs = new OffsetSyncStore();
  syncs.handle({ topicPartition: { topic: 'orders', partition: 1 }, upstreamOffset: 40, downstreamOffset: 7 });
  syncs.markReadToEnd();
  const t = checkpointTranslation(
    { source: 'primary', target: 'backup', policy: new DefaultReplicationPolicy(), topicFilter: new DefaultTopicFilter() },
    syncs,
    preserved,
  );
  assert.equal(t.translate({ topic: 'orders', partition: 0 }, 42), 42);
  assert.equal(t.translate({ topic: 'orders', partition: 1 }, 40), 7);
  assert.deepEqual(t.rename({ topic: 'orders', partition: 1 }), { topic: 'primary.orders', partition: 1 });
});
