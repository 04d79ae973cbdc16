/**
 * Topics and their ids from Metadata v12 requests over kafkajs's own cluster object
 * (../wire/raw-cluster.ts): kafkajs's Metadata goes to v6 and carries no topic ids (brokers give
 * them from Kafka 3.1, v12).
 */
import type { TopicDescription } from '../../core/ports/cluster-admin';
import type { RawBroker, RawCluster } from '../wire/raw-cluster';
import { METADATA_V12, ZERO_TOPIC_ID, metadataV12Request } from '../wire/metadata-v12';
import { kafkajsApiKeys } from '../wire/kafkajs-internals';

function takesMetadataV12(broker: RawBroker): boolean {
  const metadata = broker.versions?.[kafkajsApiKeys().Metadata];
  return metadata !== undefined && metadata.minVersion <= METADATA_V12 && metadata.maxVersion >= METADATA_V12;
}

/**
 * Every topic (or those of `names` that exist) with its partition count and id, from one request
 * to the broker `cluster` connected first: kafkajs's own listing loads the cluster's metadata
 * before it asks, two round trips more on a distant link. Undefined when that broker predates
 * Metadata v12, or lost its connection and cannot be connected again (gone: kafkajs's listing
 * asks any broker). A topic the answer gives an error for (one still being created, or not
 * there: the request never creates one) is left out, as not there yet.
 */
export async function listTopicsWithIds(cluster: RawCluster, names?: readonly string[]): Promise<TopicDescription[] | undefined> {
  const broker = cluster.seedBroker();
  if (broker === undefined) return undefined;
  if (!broker.isConnected()) {
    try {
      await broker.connect();
    } catch {
      return undefined;
    }
  }
  if (!takesMetadataV12(broker)) return undefined;
  const response = await broker.send(metadataV12Request(names));
  return response.topics.flatMap((t): TopicDescription[] =>
    t.errorCode !== 0 || t.name === null
      ? []
      : [
          {
            name: t.name,
            partitions: t.partitions.length,
            ...(t.topicId === ZERO_TOPIC_ID ? {} : { topicId: t.topicId }),
            ...(t.partitions[0] === undefined ? {} : { replicationFactor: t.partitions[0].replicas }),
          },
        ],
  );
}

/** The ids of those of `topics` that exist; empty when the cluster predates Metadata v12 (ids came with v10 in 2.8). */
export async function topicIdsOf(cluster: RawCluster, topics: readonly string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  if (topics.length === 0) return ids;
  await cluster.refreshMetadataIfNecessary();
  const broker = await cluster.anyBroker();
  if (!takesMetadataV12(broker)) return ids;
  const response = await broker.send(metadataV12Request(topics));
  for (const topic of response.topics) {
    if (topic.errorCode === 0 && topic.name !== null && topic.topicId !== ZERO_TOPIC_ID) ids.set(topic.name, topic.topicId);
  }
  return ids;
}
