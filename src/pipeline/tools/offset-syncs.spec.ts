import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NEVER, type Observable, concat, firstValueFrom, of } from '#rxjs';
import { ClusterUnavailableError } from '../../core/errors';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import { silentLogger } from '../../core/ports/logger';
import type { TopicFollowEvent, TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord } from '../../core/record';
import { OffsetSyncStore } from '../../flow/checkpoints/offset-sync-store';
import { encodeOffsetSyncKey, encodeOffsetSyncValue } from '../../formats';
import { loadOffsetSyncs } from './offset-syncs';
import { PipelineTools } from './pipeline-tools';
import { primaryToBackupPipeline } from './pipeline-fixture';
import { translateOffsets } from './translate-offsets';

const PIPELINE = primaryToBackupPipeline('offset-syncs');

/** The flow primary -> backup writes its offset syncs to this topic on primary (MM2's default place). */
const SYNCS_TOPIC = 'mm2-offset-syncs.backup.internal';

/** Offset syncs of orders-0, each [upstream, downstream], as records of the offset-syncs topic in that order. */
function syncRecords(syncs: readonly (readonly [number, number])[]): KafkaRecord[] {
  return syncs.map(([upstreamOffset, downstreamOffset], offset) => ({
    topic: SYNCS_TOPIC,
    partition: 0,
    offset,
    timestamp: 1_700_000_000_000,
    key: encodeOffsetSyncKey({ topic: 'orders', partition: 0 }),
    value: encodeOffsetSyncValue({ topicPartition: { topic: 'orders', partition: 0 }, upstreamOffset, downstreamOffset }),
    headers: [],
  }));
}

/**
 * orders-0 copied record for record (upstream n at downstream n), a sync every 10 records up to
 * 1,000: long after 305, so MM2's sparse history keeps nothing near it.
 */
const EVERY_TEN = Array.from({ length: 101 }, (_, i) => [i * 10, i * 10] as const);

interface FakeSyncsCluster {
  /** The records of the offset-syncs topic; none: the cluster has no such topic. */
  readonly offsetSyncs?: readonly KafkaRecord[];
  /** The topic never reaches its end (a read that hangs). */
  readonly neverCaughtUp?: boolean;
  readonly unreachable?: boolean;
}

/** primary as the tools see it: its topics, and the offset-syncs topic read to its end. Counts the reads. */
function fakeClients(primary: FakeSyncsCluster): { clients: KafkaClients; reads: string[] } {
  const reads: string[] = [];
  const admin = (cluster: string): ClusterAdmin =>
    ({
      cluster,
      listTopics: () => of(cluster === 'primary' && primary.offsetSyncs !== undefined ? [{ name: SYNCS_TOPIC, partitions: 1 }] : []),
    }) as unknown as ClusterAdmin;
  const reader = (cluster: string): TopicReader =>
    ({
      cluster,
      follow: (topic: string): Observable<TopicFollowEvent> => {
        reads.push(`${cluster}/${topic}`);
        if (primary.neverCaughtUp === true) return NEVER;
        const records = primary.offsetSyncs ?? [];
        const batch = { kind: 'records', topic, partition: 0, records, nextOffset: records.length, highWatermark: records.length, bytes: 0 };
        return concat(of({ type: 'records', batch } as TopicFollowEvent, { type: 'caught-up' } as TopicFollowEvent), NEVER);
      },
    }) as unknown as TopicReader;
  const clients = {
    admin,
    reader,
    checkReachable: (cluster: string) =>
      cluster === 'primary' && primary.unreachable === true ? Promise.reject(new ClusterUnavailableError(cluster, 'connection refused')) : Promise.resolve(),
    close: () => Promise.resolve(),
  } as unknown as KafkaClients;
  return { clients, reads };
}

async function toolsOver(primary: FakeSyncsCluster): Promise<{ tools: PipelineTools; reads: string[] }> {
  const { clients, reads } = fakeClients(primary);
  return { tools: await PipelineTools.open({ file: PIPELINE, logger: silentLogger, clients }), reads };
}

/** What MM2's store alone (nothing held) translates `offset` of orders-0 to, from `records`. */
async function unheld(records: readonly KafkaRecord[], offset: number): Promise<number | undefined> {
  const { tools } = await toolsOver({ offsetSyncs: records });
  const store = await firstValueFrom(OffsetSyncStore.load(tools.reader('primary'), SYNCS_TOPIC, { initializationMustReadToEnd: false }));
  return store.translateDownstream({ topic: 'orders', partition: 0 }, offset);
}

describe('loadOffsetSyncs', () => {
  it("reads the flow's offset syncs to their end holding the offsets asked: the nearest sync at or before each is kept", async () => {
    const records = syncRecords(EVERY_TEN);
    const { tools, reads } = await toolsOver({ offsetSyncs: records });
    const direction = tools.direction({});
    const syncs = await loadOffsetSyncs(tools, direction, [{ topic: 'orders', partition: 0, offset: 305 }], 5_000);
    assert.equal(syncs.cluster, 'primary');
    assert.equal(syncs.topic, SYNCS_TOPIC);
    assert.deepEqual(reads, [`primary/${SYNCS_TOPIC}`]);
    // Held: one past the sync at 300, so a consumer re-reads at most 300..304.
    assert.deepEqual(syncs.store?.translate({ topic: 'orders', partition: 0 }, 305), { offset: 301, sync: { upstreamOffset: 300, downstreamOffset: 300 } });
    // MM2's sparse history alone kept no sync near 305: its answer is further back.
    const coarse = await unheld(records, 305);
    assert.ok(coarse !== undefined && coarse < 301, `unheld: ${coarse}`);
    // The latest sync is there as it is without holding.
    assert.equal(syncs.store?.translateDownstream({ topic: 'orders', partition: 0 }, 1_000), 1_000);
  });

  it('gives no store when the cluster has no offset-syncs topic, and reads nothing', async () => {
    const { tools, reads } = await toolsOver({});
    const syncs = await loadOffsetSyncs(tools, tools.direction({}), [], 5_000);
    assert.deepEqual(syncs, { cluster: 'primary', topic: SYNCS_TOPIC, store: undefined });
    assert.deepEqual(reads, []);
  });

  it('errors when the cluster cannot be reached, or the topic is not read to its end in time', async () => {
    const down = await toolsOver({ offsetSyncs: [], unreachable: true });
    await assert.rejects(loadOffsetSyncs(down.tools, down.tools.direction({}), [], 5_000), ClusterUnavailableError);
    const stuck = await toolsOver({ offsetSyncs: [], neverCaughtUp: true });
    await assert.rejects(
      loadOffsetSyncs(stuck.tools, stuck.tools.direction({}), [], 20),
      new RegExp(`Reading ${SYNCS_TOPIC.replaceAll('.', '\\.')} on cluster "primary" did not reach its end within 20 ms\\.`),
    );
  });
});

describe('translateOffsets of one offset', () => {
  it("translates through the nearest sync at or before the offset, where MM2's sparse history alone gives a coarser answer", async () => {
    const records = syncRecords(EVERY_TEN);
    const coarse = await unheld(records, 305);
    const { tools } = await toolsOver({ offsetSyncs: records });
    const result = await translateOffsets(tools, { topic: 'orders', partition: 0, offset: 305 });
    assert.deepEqual(result.translation, {
      topic: 'orders',
      remoteTopic: 'primary.orders',
      partition: 0,
      sourceOffset: 305,
      offset: 301,
      translatedBy: 'offset-sync',
      offsetSync: { upstreamOffset: 300, downstreamOffset: 300 },
    });
    // Without holding 305, the sync kept nearest below it is the first one, at 0.
    assert.equal(coarse, 1);
  });

  it("says why an offset does not translate: the flow's offset-syncs topic missing, or the offset older than every sync", async () => {
    const none = await toolsOver({});
    const missing = await translateOffsets(none.tools, { topic: 'orders', partition: 0, offset: 5 });
    assert.equal(missing.translation?.offset, null);
    assert.match(missing.translation?.reason ?? '', /cluster "primary" has no topic mm2-offset-syncs\.backup\.internal/);

    const later = await toolsOver({ offsetSyncs: syncRecords([[50, 10]]) });
    const older = await translateOffsets(later.tools, { topic: 'orders', partition: 0, offset: 5 });
    assert.equal(older.translation?.offset, null);
    assert.match(older.translation?.reason ?? '', /offset 5 is older than every offset sync kept for orders-0/);
  });
});
