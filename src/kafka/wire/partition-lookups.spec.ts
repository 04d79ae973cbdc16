/**
 * The indexed lookups give what kafkajs's own give, on the same inputs: kafkajs's functions (kept by
 * install.ts) run beside ours over one metadata answer and one consumer group's state each.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KAFKAJS_OWN_LOOKUPS } from './install';
import { KAFKAJS_CLUSTER, kafkajsInternal } from './kafkajs-internals';
import { readReplicaForPartitions, topicPartitionMetadata, type ClusterMetadata, type PartitionMetadata, type PreferredReadReplica } from './partition-lookups';

const { findTopicPartitionMetadata, findReadReplicaForPartitions, KafkaJSError } = KAFKAJS_OWN_LOOKUPS;

const metadataOf = (topics: Record<string, PartitionMetadata[]>): ClusterMetadata => ({
  topicMetadata: Object.entries(topics).map(([topic, partitionMetadata]) => ({ topic, partitionMetadata })),
});
const kafkajsTopicLookup = (metadata: ClusterMetadata, topic: string) => findTopicPartitionMetadata.call({ brokerPool: { metadata } }, topic);

type Preferences = Record<string, Record<number, PreferredReadReplica | undefined> | undefined>;

/** A consumer group's state as both lookups read it, with what it logged. */
function groupOf(metadata: ClusterMetadata, preferences: Preferences, lookup: (metadata: ClusterMetadata, topic: string) => readonly PartitionMetadata[]) {
  const logged: string[] = [];
  return {
    cluster: { findTopicPartitionMetadata: (topic: string) => lookup(metadata, topic) },
    preferredReadReplicasPerTopicPartition: structuredClone(preferences),
    logger: { debug: (message: string) => void logged.push(message) },
    groupId: 'group',
    memberId: 'member',
    logged,
  };
}

/** Both lookups over the same state: results, the preferences they leave, and what they logged. */
function both(metadata: ClusterMetadata, preferences: Preferences, topic: string, partitions: readonly (number | string)[]) {
  const ours = groupOf(metadata, preferences, topicPartitionMetadata);
  const theirs = groupOf(metadata, preferences, kafkajsTopicLookup);
  return {
    ours: { nodes: readReplicaForPartitions(ours, KafkaJSError, topic, partitions), left: ours.preferredReadReplicasPerTopicPartition, logged: ours.logged },
    theirs: {
      nodes: findReadReplicaForPartitions.call(theirs, topic, partitions as number[]),
      left: theirs.preferredReadReplicasPerTopicPartition,
      logged: theirs.logged,
    },
  };
}

const led = (leaders: readonly (number | null)[], offline: readonly number[] = []): PartitionMetadata[] =>
  leaders.map((leader, partitionId) => ({ partitionId, leader, offlineReplicas: offline }));

describe('indexed partition lookups, against kafkajs', () => {
  it("groups a topic's partitions by leader, in the order asked, leaving out partitions the metadata lacks", () => {
    const metadata = metadataOf({ orders: led(Array.from({ length: 20 }, (_, p) => 1 + (p % 3 === 0 ? 0 : 1))), other: led([9]) });
    const asked = [7, 3, '12', 0, 19, 99, 4, 1];
    const { ours, theirs } = both(metadata, {}, 'orders', asked);
    assert.deepEqual(ours.nodes, theirs.nodes);
    assert.deepEqual(ours.nodes, { 1: [3, 12, 0], 2: [7, 19, 4, 1] });
    assert.deepEqual(both(metadata, {}, 'unknown', [0, 1]).ours.nodes, {});
  });

  it('reads from a fresh preferred replica, from the leader when the preference expired (dropping it) or the leader is offline', () => {
    const now = Date.now();
    const metadata = metadataOf({ orders: [...led([1, 1, 1, 1]), { partitionId: 4, leader: 2, offlineReplicas: [2] }] });
    const preferences: Preferences = {
      orders: {
        0: { nodeId: 5, expireAt: now + 60_000 },
        1: { nodeId: 6, expireAt: now - 1 },
        3: { expireAt: now + 60_000 },
        4: { nodeId: 7, expireAt: now + 60_000 },
      },
    };
    const { ours, theirs } = both(metadata, preferences, 'orders', [0, 1, 2, 3, 4]);
    assert.deepEqual(ours, theirs);
    assert.deepEqual(ours.nodes, { 1: [1, 2, 3], 2: [4], 5: [0] });
    assert.equal(ours.left.orders?.[1], undefined, 'the expired preference is dropped');
    assert.deepEqual(ours.logged, ['Preferred read replica information has expired, using leader', 'Preferred read replica is offline, using leader']);
  });

  it('throws as kafkajs does for a partition without a leader', () => {
    const metadata = metadataOf({ orders: led([1, null]) });
    const ours = groupOf(metadata, {}, topicPartitionMetadata);
    const theirs = groupOf(metadata, {}, kafkajsTopicLookup);
    assert.throws(() => findReadReplicaForPartitions.call(theirs, 'orders', [0, 1]), { name: 'KafkaJSError', message: 'Invalid partition metadata' });
    assert.throws(() => readReplicaForPartitions(ours, KafkaJSError, 'orders', [0, 1]), { name: 'KafkaJSError', message: 'Invalid partition metadata' });
  });

  it('takes the first entry where a topic or a partition is listed twice, as Array.find does', () => {
    const metadata: ClusterMetadata = {
      topicMetadata: [
        {
          topic: 'orders',
          partitionMetadata: [
            { partitionId: 0, leader: 1 },
            { partitionId: 0, leader: 2 },
          ],
        },
        { topic: 'orders', partitionMetadata: [{ partitionId: 0, leader: 3 }] },
      ],
    };
    assert.equal(topicPartitionMetadata(metadata, 'orders'), kafkajsTopicLookup(metadata, 'orders'));
    const { ours, theirs } = both(metadata, {}, 'orders', [0]);
    assert.deepEqual(ours.nodes, theirs.nodes);
    assert.deepEqual(ours.nodes, { 1: [0] });
  });

  it("looks topics up in the metadata answer it is given: a refresh's new answer, no answer yet as kafkajs's error", () => {
    const before = metadataOf({ orders: led([1]) });
    const after = metadataOf({ orders: led([2, 2]), payments: led([1]) });
    assert.equal(topicPartitionMetadata(before, 'orders'), before.topicMetadata[0]?.partitionMetadata);
    assert.equal(topicPartitionMetadata(after, 'orders'), after.topicMetadata[0]?.partitionMetadata);
    assert.deepEqual(topicPartitionMetadata(after, 'missing'), kafkajsTopicLookup(after, 'missing'));
    const installed = (kafkajsInternal(KAFKAJS_CLUSTER) as { prototype: { findTopicPartitionMetadata(this: object, topic: string): unknown } }).prototype;
    assert.notEqual(installed.findTopicPartitionMetadata, findTopicPartitionMetadata, "install.ts replaced the cluster's lookup");
    assert.equal(installed.findTopicPartitionMetadata.call({ brokerPool: { metadata: after } }, 'payments'), after.topicMetadata[1]?.partitionMetadata);
    assert.throws(() => installed.findTopicPartitionMetadata.call({ brokerPool: { metadata: null } }, 'orders'), { name: 'KafkaJSTopicMetadataNotLoaded' });
  });
});
