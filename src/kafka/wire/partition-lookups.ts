/**
 * Two lookups kafkajs's consumer makes for every assigned partition in every fetch round, made
 * linear. With thousands of partitions they were most of what a flow allocated and burned while it
 * had nothing to copy (issue 42 item 6: a caught-up flow of 19,000 partitions allocated 40 MiB a
 * second, 281 MiB of every 600 in the read replica lookup):
 *
 * - `Cluster.findTopicPartitionMetadata(topic)` (cluster/index.js) searches the metadata's topic
 *   list for the topic: called once per topic by `ConsumerGroup.fetch` (twice: the stale
 *   assignment check and the read replicas), it is quadratic in topics. `topicPartitionMetadata`
 *   looks the topic up in an index of the metadata's topic list, built once per metadata answer
 *   (kafkajs replaces `brokerPool.metadata` whole on every refresh, so a list is never changed
 *   in place, and the index is kept in a WeakMap by the list).
 * - `ConsumerGroup.findReadReplicaForPartitions(topic, partitions)` (consumer/consumerGroup.js)
 *   groups a topic's partitions by the node to fetch them from, copying the result and the node's
 *   array at every partition (`{ ...result, [nodeId]: [...current, partitionId] }`) after a
 *   search of the topic's partition list: quadratic in partitions, in CPU and in garbage.
 *   `readReplicaForPartitions` gives the same object, pushing into one array per node, the
 *   partitions looked up in an index of the partition list kept as the topic's is.
 *
 * Both return what kafkajs's own return, the first entry winning where a name or id is listed
 * twice as `Array.find` does (partition-lookups.spec.ts compares them with kafkajs's on the same
 * inputs: leaders, preferred replicas fresh, expired and offline, missing partitions, no leader).
 */

/** A partition of kafkajs's metadata, as the consumer reads it. */
export interface PartitionMetadata {
  readonly partitionId: number;
  /** Null (or absent) while the partition has no leader. */
  readonly leader?: number | null;
  readonly offlineReplicas?: readonly number[];
}

/** kafkajs's metadata answer, as `findTopicPartitionMetadata` reads it. */
export interface ClusterMetadata {
  readonly topicMetadata: readonly { readonly topic: string; readonly partitionMetadata: readonly PartitionMetadata[] }[];
}

const topicIndexes = new WeakMap<ClusterMetadata['topicMetadata'], ReadonlyMap<string, readonly PartitionMetadata[]>>();
const partitionIndexes = new WeakMap<readonly PartitionMetadata[], ReadonlyMap<number, PartitionMetadata>>();

function firstBy<K, E, V>(entries: readonly E[], key: (entry: E) => K, value: (entry: E) => V): Map<K, V> {
  const index = new Map<K, V>();
  for (const entry of entries) if (!index.has(key(entry))) index.set(key(entry), value(entry));
  return index;
}

/** The partitions of `topic` in `metadata` (none when the topic is not in it), as kafkajs's lookup gives them. */
export function topicPartitionMetadata(metadata: ClusterMetadata, topic: string): readonly PartitionMetadata[] {
  const list = metadata.topicMetadata;
  let index = topicIndexes.get(list);
  if (index === undefined) {
    index = firstBy(
      list,
      (t) => t.topic,
      (t) => t.partitionMetadata,
    );
    topicIndexes.set(list, index);
  }
  return index.get(topic) ?? [];
}

function partitionOf(partitions: readonly PartitionMetadata[], id: number): PartitionMetadata | undefined {
  let index = partitionIndexes.get(partitions);
  if (index === undefined) {
    index = firstBy(
      partitions,
      (p) => p.partitionId,
      (p) => p,
    );
    partitionIndexes.set(partitions, index);
  }
  return index.get(id);
}

/** A partition's preferred read replica, as the broker named it in a fetch answer, until `expireAt`. */
export interface PreferredReadReplica {
  readonly nodeId?: number | null;
  readonly expireAt?: number;
}

/** What of kafkajs's ConsumerGroup `readReplicaForPartitions` reads. */
export interface ReadReplicaGroup {
  readonly cluster: { findTopicPartitionMetadata(topic: string): readonly PartitionMetadata[] };
  readonly preferredReadReplicasPerTopicPartition: Record<string, Record<number, PreferredReadReplica | undefined> | undefined>;
  readonly logger: { debug(message: string, extra: object): void };
  readonly groupId: string;
  readonly memberId: string | null;
}

/** An error kafkajs throws for a partition without a leader (its `KafkaJSError`, given by the caller). */
export type InvalidMetadataError = new (message: string, extra: object) => Error;

/**
 * kafkajs's `findReadReplicaForPartitions` in one pass: the node each of `partitions` of `topic` is
 * fetched from (its preferred read replica while that is fresh and not offline, else its leader),
 * as `{ [nodeId]: partitionIds }` in the order given; a partition the metadata does not list is
 * left out, one without a leader throws `InvalidMetadata` as kafkajs does. Expired preferences are
 * dropped, as kafkajs drops them.
 */
export function readReplicaForPartitions(
  group: ReadReplicaGroup,
  InvalidMetadata: InvalidMetadataError,
  topic: string,
  partitions: readonly (number | string)[],
): Record<number, number[]> {
  const partitionMetadata = group.cluster.findTopicPartitionMetadata(topic);
  const preferredReadReplicas = group.preferredReadReplicasPerTopicPartition[topic];
  const result: Record<number, number[]> = {};
  for (const id of partitions) {
    // kafkajs's consumer passes numbers; kafkajs's lookup also takes their strings.
    const partitionId = typeof id === 'number' && Number.isInteger(id) ? id : parseInt(String(id), 10);
    const metadata = partitionOf(partitionMetadata, partitionId);
    if (metadata === undefined) continue;
    const leader = metadata.leader;
    if (leader === null || leader === undefined) throw new InvalidMetadata('Invalid partition metadata', { topic, partitionId, metadata });
    let nodeId = leader;
    if (preferredReadReplicas) {
      const { nodeId: preferredReadReplica, expireAt } = preferredReadReplicas[partitionId] ?? {};
      const context = { topic, partitionId, groupId: group.groupId, memberId: group.memberId, preferredReadReplica };
      if (expireAt !== undefined && Date.now() >= expireAt) {
        group.logger.debug('Preferred read replica information has expired, using leader', { ...context, leader });
        delete preferredReadReplicas[partitionId];
      } else if (preferredReadReplica !== null && preferredReadReplica !== undefined) {
        if (Array.isArray(metadata.offlineReplicas) && metadata.offlineReplicas.includes(nodeId)) {
          group.logger.debug('Preferred read replica is offline, using leader', { ...context, leader });
        } else {
          nodeId = preferredReadReplica;
        }
      }
    }
    const onNode = result[nodeId];
    if (onNode === undefined) result[nodeId] = [partitionId];
    else onNode.push(partitionId);
  }
  return result;
}
