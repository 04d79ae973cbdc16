import { test } from 'node:test';
import assert from 'node:assert/strict';
import './kafkajs';
import type { KafkajsCluster, KafkajsProtocolRequest, KafkajsRawBroker } from './kafkajs-cluster';
import { ZERO_TOPIC_ID, type MetadataV12Response } from './wire/metadata-v12';
import { listTopicsWithIds } from './topic-metadata';
import { kafkajsApiKeys } from './wire/kafkajs-internals';

const METADATA_ANSWER: MetadataV12Response = {
  throttleTimeMs: 0,
  brokers: [{ nodeId: 1, host: '127.0.0.1', port: 9092, rack: null }],
  clusterId: 'c',
  controllerId: 1,
  topics: [
    { errorCode: 0, name: 'orders', topicId: 'id-orders', isInternal: false, partitions: [0, 1, 2].map((p) => ({ errorCode: 0, partition: p, leader: 1 })) },
    { errorCode: 5, name: 'being-created', topicId: 'id-new', isInternal: false, partitions: [] }, // LEADER_NOT_AVAILABLE
    { errorCode: 0, name: 'no-id', topicId: ZERO_TOPIC_ID, isInternal: false, partitions: [{ errorCode: 0, partition: 0, leader: 1 }] },
  ],
};

/** A cluster whose seed broker takes Metadata up to `maxVersion`, recording what it is asked. */
function clusterWith(maxVersion: number) {
  const seen: string[] = [];
  const seedBroker = {
    versions: { [kafkajsApiKeys().Metadata]: { minVersion: 0, maxVersion } },
    connect: async () => void seen.push('connect'),
    connectionPool: {
      send: async <T>(request: KafkajsProtocolRequest<T>): Promise<T> => {
        seen.push(`Metadata v${request.request.apiVersion} ${(await request.request.encode()).buffer.toString('hex')}`);
        return METADATA_ANSWER as T;
      },
    },
  } as unknown as KafkajsRawBroker & { connect(): Promise<void> };
  return { cluster: { brokerPool: { seedBroker } } as unknown as KafkajsCluster, seen };
}

test('lists every topic with its id in one Metadata v12 request to the seed broker, connected first', async () => {
  const { cluster, seen } = clusterWith(12);
  assert.deepEqual(await listTopicsWithIds(cluster), [
    { name: 'orders', partitions: 3, topicId: 'id-orders' },
    { name: 'no-id', partitions: 1 },
  ]);
  assert.deepEqual(seen, ['connect', 'Metadata v12 00000000'], 'a null topic array: every topic');
});

test('answers undefined for a broker before Metadata v12 (Kafka 3.0 and older), without asking it', async () => {
  const { cluster, seen } = clusterWith(11);
  assert.equal(await listTopicsWithIds(cluster), undefined);
  assert.deepEqual(seen, ['connect']);
});
