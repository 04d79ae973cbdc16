import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NEVER, type Observable, concat, of } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { GroupReader } from '../../core/ports/group-reader';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import { silentLogger } from '../../core/ports/logger';
import type { TopicFollowEvent, TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord } from '../../core/record';
import { encodeConnectOffsetValue, encodeOffsetSyncKey, encodeOffsetSyncValue, encodeSourceOffsetKey } from '../../formats';
import { failback } from './failback';
import { PipelineTools } from './pipeline-tools';
import { primaryToBackupPipeline } from './pipeline-fixture';

const PIPELINE = primaryToBackupPipeline('failback');

/** The flow primary -> backup: its offset syncs on primary, its progress on backup (MM2's default places). */
const SYNCS_TOPIC = 'mm2-offset-syncs.backup.internal';
const PROGRESS_TOPIC = 'mm2-offsets.primary.internal';

const record = (topic: string, offset: number, n: number): KafkaRecord => ({
  topic,
  partition: 0,
  offset,
  timestamp: 1_700_000_000_000 + n,
  key: Buffer.from(`k${n}`),
  value: Buffer.from(`v${n}`),
  headers: [],
});

/**
 * orders-0 on primary: 1,100 records. The flow copied 0..999 record for record to primary.orders-0
 * on backup, a sync every 10 records, but last stored its progress at 306 (it stopped before
 * storing more): MM2's sparse history keeps no sync near 305. Then backup became the primary and
 * got 14 records of its own.
 */
const ON_PRIMARY = Array.from({ length: 1_100 }, (_, i) => record('orders', i, i));
const ON_BACKUP = [
  ...Array.from({ length: 1_000 }, (_, i) => record('primary.orders', i, i)),
  ...Array.from({ length: 14 }, (_, i) => record('primary.orders', 1_000 + i, 5_000 + i)),
];
const SYNCS = Array.from({ length: 100 }, (_, i) => ({
  topic: SYNCS_TOPIC,
  partition: 0,
  offset: i,
  timestamp: 1_700_000_000_000,
  key: encodeOffsetSyncKey({ topic: 'orders', partition: 0 }),
  value: encodeOffsetSyncValue({ topicPartition: { topic: 'orders', partition: 0 }, upstreamOffset: i * 10, downstreamOffset: i * 10 }),
  headers: [],
}));
const PROGRESS = {
  topic: PROGRESS_TOPIC,
  partition: 0,
  offset: 0,
  timestamp: 1_700_000_000_000,
  key: encodeSourceOffsetKey({ sourceClusterAlias: 'primary', topic: 'orders', partition: 0 }),
  value: encodeConnectOffsetValue(305),
  headers: [],
};

/** Both clusters as failback sees them; records the ranges of primary read for copies. */
function fakeClients(options: { syncsNeverCaughtUp?: boolean } = {}): { clients: KafkaClients; rangesRead: string[] } {
  const rangesRead: string[] = [];
  const logs: Record<string, Record<string, readonly KafkaRecord[]>> = {
    primary: { orders: ON_PRIMARY, [SYNCS_TOPIC]: SYNCS },
    backup: { 'primary.orders': ON_BACKUP, [PROGRESS_TOPIC]: [PROGRESS] },
  };
  const admin = (cluster: string): ClusterAdmin =>
    ({
      listTopics: () => of(Object.keys(logs[cluster]!).map((name) => ({ name, partitions: 1, replicationFactor: 1 }))),
      partitionOffsets: (topic: string) => of([{ partition: 0, earliest: 0, latest: logs[cluster]![topic]?.length ?? 0 }]),
      describeGroups: () => of(new Map()),
      listGroups: () => of([]),
    }) as unknown as ClusterAdmin;
  const reader = (cluster: string): TopicReader =>
    ({
      readToEnd: (topic: string) => of({ records: logs[cluster]![topic] ?? [] }),
      recordAt: (topic: string, _partition: number, offset: number) => Promise.resolve(logs[cluster]![topic]?.[offset]),
      follow: (topic: string): Observable<TopicFollowEvent> => {
        if (options.syncsNeverCaughtUp === true) return NEVER;
        const records = logs[cluster]![topic] ?? [];
        const batch = { kind: 'records', topic, partition: 0, records, nextOffset: records.length, highWatermark: records.length, bytes: 0 };
        return concat(of({ type: 'records', batch } as TopicFollowEvent, { type: 'caught-up' } as TopicFollowEvent), NEVER);
      },
    }) as unknown as TopicReader;
  const groupReader = (cluster: string): GroupReader =>
    ({
      readRanges: async (
        topic: string,
        ranges: ReadonlyMap<number, { from: number; to: number }>,
        handle: (p: number, r: readonly KafkaRecord[]) => Promise<void>,
      ) => {
        for (const [partition, { from, to }] of ranges) {
          rangesRead.push(`${cluster}/${topic}-${partition} [${from}, ${to})`);
          await handle(partition, (logs[cluster]![topic] ?? []).slice(from, to));
        }
      },
    }) as unknown as GroupReader;
  const clients = { admin, reader, groupReader, checkReachable: () => Promise.resolve(), close: () => Promise.resolve() } as unknown as KafkaClients;
  return { clients, rangesRead };
}

const request = { groups: [], dryRun: true, force: true, quietMs: 0 };

describe('failback of a translated partition', () => {
  it("looks for the copies from the offset sync nearest the flow's progress, held while the syncs are read", async () => {
    const { clients, rangesRead } = fakeClients();
    const tools = await PipelineTools.open({ file: PIPELINE, logger: silentLogger, clients });
    const report = await failback(tools, request);
    const [orders] = report.partitions;
    assert.deepEqual(
      { failoverPoint: orders?.failoverPoint, copyBack: orders?.copyBack, unmirrored: orders?.unmirrored, action: orders?.action },
      { failoverPoint: 1_000, copyBack: 14, unmirrored: 794, action: 'copy-back' },
    );
    // From the sync at 300 (the last the flow copied is 305), not from the first one at 0 that MM2's sparse history keeps.
    assert.deepEqual(rangesRead, ['primary/orders-0 [300, 1100)']);
  });

  it('stops with the topic and cluster named when the offset syncs are not read to their end in time, before any change', async () => {
    const { clients, rangesRead } = fakeClients({ syncsNeverCaughtUp: true });
    const tools = await PipelineTools.open({ file: PIPELINE, logger: silentLogger, clients });
    await assert.rejects(
      failback(tools, { ...request, dryRun: false, timeoutMs: 20 }),
      /Reading mm2-offset-syncs\.backup\.internal on cluster "primary" did not reach its end within 20 ms\./,
    );
    assert.deepEqual(rangesRead, []);
  });
});
