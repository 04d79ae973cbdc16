import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KafkajsMetadata, ListOffsetsResponse, RawBroker, RawCluster } from '../wire/raw-cluster';
import { deleteRecordsBefore, readPartitionOffsets } from './partition-offsets';

interface Request {
  nodeId: number;
  isolationLevel: number;
  timestamp: number;
  topics: Record<string, number[]>;
}

/**
 * Brokers 1 and 2; `leaders` per topic (-1: none), and each partition's log as start..end. A
 * leader answers ListOffsets for the partitions asked of it, with the start (-2) or end (-1).
 */
function cluster(leaders: Record<string, number[]>, log: (topic: string, partition: number) => [number, number]) {
  const asked: { metadata: string[][]; listOffsets: Request[]; deleteRecords?: { nodeId: number; request: unknown }[] } = { metadata: [], listOffsets: [] };
  const node = (nodeId: number): RawBroker =>
    ({
      metadata: async (topics: string[]): Promise<KafkajsMetadata> => {
        asked.metadata.push(topics);
        return {
          topicMetadata: topics
            .filter((topic) => leaders[topic] !== undefined)
            .map((topic) => ({ topic, partitionMetadata: leaders[topic]!.map((leader, partitionId) => ({ partitionId, leader })) })),
        };
      },
      deleteRecords: async (request: Parameters<RawBroker['deleteRecords']>[0]): Promise<unknown> => {
        (asked.deleteRecords ??= []).push({ nodeId, request });
        return {};
      },
      listOffsets: async (request: Parameters<RawBroker['listOffsets']>[0]): Promise<ListOffsetsResponse> => {
        const timestamp = request.topics[0]!.partitions[0]!.timestamp;
        asked.listOffsets.push({
          nodeId,
          isolationLevel: request.isolationLevel,
          timestamp,
          topics: Object.fromEntries(request.topics.map((t) => [t.topic, t.partitions.map((p) => p.partition)])),
        });
        return {
          responses: request.topics.map((t) => ({
            topic: t.topic,
            partitions: t.partitions.map((p) => ({ partition: p.partition, offset: String(log(t.topic, p.partition)[p.timestamp === -2 ? 0 : 1]) })),
          })),
        };
      },
    }) as unknown as RawBroker;
  const raw = {
    refreshMetadataIfNecessary: async () => undefined,
    anyBroker: async () => node(1),
    broker: async (nodeId: number) => node(nodeId),
  } as unknown as RawCluster;
  return { raw, asked };
}

test('reads every topic in one Metadata request and two ListOffsets per leader', async () => {
  const { raw, asked } = cluster({ a: [1, 2, 1], b: [2, 2] }, (topic, partition) => [partition, 100 * topic.length + partition * 10]);
  const offsets = await readPartitionOffsets(raw, ['a', 'b']);
  assert.deepEqual(asked.metadata, [['a', 'b']]);
  assert.equal(asked.listOffsets.length, 4);
  const sorted = asked.listOffsets.sort((x, y) => x.nodeId - y.nodeId || x.timestamp - y.timestamp);
  assert.deepEqual(sorted, [
    { nodeId: 1, isolationLevel: 1, timestamp: -2, topics: { a: [0, 2] } },
    { nodeId: 1, isolationLevel: 1, timestamp: -1, topics: { a: [0, 2] } },
    { nodeId: 2, isolationLevel: 1, timestamp: -2, topics: { a: [1], b: [0, 1] } },
    { nodeId: 2, isolationLevel: 1, timestamp: -1, topics: { a: [1], b: [0, 1] } },
  ]);
  assert.deepEqual(
    offsets,
    new Map([
      [
        'a',
        [
          { partition: 0, earliest: 0, latest: 100 },
          { partition: 1, earliest: 1, latest: 110 },
          { partition: 2, earliest: 2, latest: 120 },
        ],
      ],
      [
        'b',
        [
          { partition: 0, earliest: 0, latest: 100 },
          { partition: 1, earliest: 1, latest: 110 },
        ],
      ],
    ]),
  );
});

test('leaves out a topic with a partition that has no leader now, and one the cluster does not know', async () => {
  const { raw } = cluster({ a: [1, -1], b: [2] }, () => [0, 5]);
  const offsets = await readPartitionOffsets(raw, ['a', 'b', 'unknown']);
  assert.deepEqual([...offsets.keys()], ['b']);
  assert.deepEqual(offsets.get('b'), [{ partition: 0, earliest: 0, latest: 5 }]);
});

test('asks nothing for no topics', async () => {
  const { raw, asked } = cluster({}, () => [0, 0]);
  assert.deepEqual(await readPartitionOffsets(raw, []), new Map());
  assert.deepEqual(asked, { metadata: [], listOffsets: [] });
});

test('deletes records at the leader of the partition, found by a Metadata request of its own', async () => {
  const { raw, asked } = cluster({ a: [1, 2] }, () => [0, 5]);
  assert.equal(await deleteRecordsBefore(raw, 'a', 1, 300), true);
  assert.deepEqual(asked.metadata, [['a']]);
  assert.deepEqual(asked.deleteRecords, [{ nodeId: 2, request: { topics: [{ topic: 'a', partitions: [{ partition: 1, offset: '300' }] }] } }]);
});

test('deletes nothing where the partition has no leader now or the cluster does not name it', async () => {
  const { raw, asked } = cluster({ a: [1, -1] }, () => [0, 5]);
  assert.equal(await deleteRecordsBefore(raw, 'a', 1, 10), false);
  assert.equal(await deleteRecordsBefore(raw, 'a', 7, 10), false);
  assert.equal(await deleteRecordsBefore(raw, 'unknown', 0, 10), false);
  assert.equal(asked.deleteRecords, undefined);
});
