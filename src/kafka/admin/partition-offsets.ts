/**
 * The log start and end of every partition of many topics at once: one Metadata request for all
 * of them, then at each leader one ListOffsets for the starts and one for the ends. kafkajs's
 * `admin.fetchTopicOffsets` reads one topic per call, and each call adds its topic to the admin's
 * metadata and refreshes the metadata of every topic added so far behind one lock: a flow
 * assigned 1,000 topics waited on 1,000 such refreshes in a row (issue 42, many partitions).
 */
import type { PartitionOffsets } from '../../core/ports/cluster-admin';
import type { RawCluster } from '../wire/raw-cluster';

/** ListOffsets timestamps: the end (high watermark, or last stable offset read_committed), the log start. */
const LATEST = -1;
const EARLIEST = -2;
/** As kafkajs's admin asks (its default): the end is the last stable offset, as `fetchTopicOffsets` answers. */
const READ_COMMITTED = 1;

/**
 * The offsets of every partition of `topics`, by topic, partitions in order. A topic is left out
 * when the metadata does not name it or some partition of it has no leader now: its caller asks
 * about it alone. Rejects with kafkajs's error when a request fails (a topic that does not
 * exist, a leader that moved), as kafkajs's own calls do.
 */
export async function readPartitionOffsets(cluster: RawCluster, topics: readonly string[]): Promise<Map<string, PartitionOffsets[]>> {
  const result = new Map<string, PartitionOffsets[]>();
  if (topics.length === 0) return result;
  await cluster.refreshMetadataIfNecessary();
  const metadata = await (await cluster.anyBroker()).metadata([...new Set(topics)]);
  // Leader → topic → its partitions there.
  const byLeader = new Map<number, Map<string, number[]>>();
  for (const { topic, partitionMetadata } of metadata.topicMetadata) {
    if (partitionMetadata.length === 0 || partitionMetadata.some((p) => p.leader < 0)) continue;
    result.set(topic, []);
    for (const p of partitionMetadata) {
      let ofLeader = byLeader.get(p.leader);
      if (ofLeader === undefined) byLeader.set(p.leader, (ofLeader = new Map()));
      let partitions = ofLeader.get(topic);
      if (partitions === undefined) ofLeader.set(topic, (partitions = []));
      partitions.push(p.partitionId);
    }
  }
  const earliest = new Map<string, number>();
  const latest = new Map<string, number>();
  await Promise.all(
    [...byLeader].map(async ([nodeId, ofLeader]) => {
      const broker = await cluster.broker(nodeId);
      const ask = async (timestamp: number, into: Map<string, number>): Promise<void> => {
        const response = await broker.listOffsets({
          isolationLevel: READ_COMMITTED,
          topics: [...ofLeader].map(([topic, partitions]) => ({ topic, partitions: partitions.map((partition) => ({ partition, timestamp })) })),
        });
        for (const { topic, partitions } of response.responses) for (const p of partitions) into.set(`${p.partition} ${topic}`, Number(p.offset));
      };
      await Promise.all([ask(EARLIEST, earliest), ask(LATEST, latest)]);
    }),
  );
  for (const { topic, partitionMetadata } of metadata.topicMetadata) {
    const offsets = result.get(topic);
    if (offsets === undefined) continue;
    for (const { partitionId: partition } of partitionMetadata) {
      const start = earliest.get(`${partition} ${topic}`);
      const end = latest.get(`${partition} ${topic}`);
      if (start === undefined || end === undefined) {
        // A broker that answered without the partition: the topic is asked about alone.
        result.delete(topic);
        break;
      }
      offsets.push({ partition, earliest: start, latest: end });
    }
    offsets.sort((a, b) => a.partition - b.partition);
  }
  return result;
}

/**
 * Deletes the records of `topic`-`partition` before `beforeOffset` at its leader, found by a
 * Metadata request of its own; false, deleting nothing, when the partition has no leader now or
 * the cluster does not name it. kafkajs's `admin.deleteTopicRecords` finds the leader in the
 * admin's shared metadata and reads the topic's offsets through it, which fails as
 * `kafkajs-admin.ts`'s `partitionOffsets` explains.
 */
export async function deleteRecordsBefore(cluster: RawCluster, topic: string, partition: number, beforeOffset: number): Promise<boolean> {
  await cluster.refreshMetadataIfNecessary();
  const metadata = await (await cluster.anyBroker()).metadata([topic]);
  const leader = metadata.topicMetadata.find((t) => t.topic === topic)?.partitionMetadata.find((p) => p.partitionId === partition)?.leader;
  if (leader === undefined || leader < 0) return false;
  await (await cluster.broker(leader)).deleteRecords({ topics: [{ topic, partitions: [{ partition, offset: String(beforeOffset) }] }] });
  return true;
}
