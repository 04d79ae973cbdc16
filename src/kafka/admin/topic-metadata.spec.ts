import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import type { KafkajsProtocolRequest, RawBroker, RawCluster } from '../wire/raw-cluster';
import { ZERO_TOPIC_ID, type MetadataV12Response } from '../wire/metadata-v12';
import { listTopicsWithIds } from './topic-metadata';
import { kafkajsApiKeys } from '../wire/kafkajs-internals';

const METADATA_ANSWER: MetadataV12Response = {
  throttleTimeMs: 0,
  brokers: [{ nodeId: 1, host: '127.0.0.1', port: 9092, rack: null }],
  clusterId: 'c',
  controllerId: 1,
  topics: [
    {
      errorCode: 0,
      name: 'orders',
      topicId: 'id-orders',
      isInternal: false,
      partitions: [0, 1, 2].map((p) => ({ errorCode: 0, partition: p, leader: 1, replicas: 3 })),
    },
    { errorCode: 5, name: 'being-created', topicId: 'id-new', isInternal: false, partitions: [] }, // LEADER_NOT_AVAILABLE
    { errorCode: 0, name: 'no-id', topicId: ZERO_TOPIC_ID, isInternal: false, partitions: [{ errorCode: 0, partition: 0, leader: 1, replicas: 1 }] },
  ],
};

/** A cluster whose seed broker takes Metadata up to `maxVersion`, recording what it is asked. */
function clusterWith(maxVersion: number, link: 'connected' | 'reconnects' | 'gone' = 'connected') {
  const seen: string[] = [];
  const seedBroker = {
    versions: { [kafkajsApiKeys().Metadata]: { minVersion: 0, maxVersion } },
    isConnected: () => link === 'connected',
    connect: async () => {
      seen.push('connect');
      if (link === 'gone') throw new Error('Connection error: connect ECONNREFUSED');
    },
    send: async <T>(request: KafkajsProtocolRequest<T>): Promise<T> => {
      seen.push(`Metadata v${request.request.apiVersion} ${(await request.request.encode()).buffer.toString('hex')}`);
      return METADATA_ANSWER as T;
    },
  } as unknown as RawBroker;
  return { cluster: { seedBroker: () => seedBroker } as unknown as RawCluster, seen };
}

test('lists every topic with its id in one Metadata v12 request to the seed broker', async () => {
  const { cluster, seen } = clusterWith(12);
  assert.deepEqual(await listTopicsWithIds(cluster), [
    { name: 'orders', partitions: 3, topicId: 'id-orders', replicationFactor: 3 },
    { name: 'no-id', partitions: 1, replicationFactor: 1 },
  ]);
  assert.deepEqual(seen, ['Metadata v12 00000000'], 'a null topic array: every topic');
});

test('answers undefined, without asking, for a broker before Metadata v12 (Kafka 3.0 and older)', async () => {
  const { cluster, seen } = clusterWith(11);
  assert.equal(await listTopicsWithIds(cluster), undefined);
  assert.deepEqual(seen, []);
});

test('a seed broker that lost its connection is connected again; one that cannot be answers undefined (kafkajs lists from any broker)', async () => {
  const back = clusterWith(12, 'reconnects');
  assert.equal((await listTopicsWithIds(back.cluster))?.length, 2);
  assert.deepEqual(back.seen, ['connect', 'Metadata v12 00000000']);
  const gone = clusterWith(12, 'gone');
  assert.equal(await listTopicsWithIds(gone.cluster), undefined);
  assert.deepEqual(gone.seen, ['connect']);
});
