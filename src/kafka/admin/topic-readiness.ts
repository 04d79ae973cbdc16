/**
 * When a topic just created can be used. CreateTopics answers once the controller has the topic;
 * each partition's leader takes it over a little later, and until then it answers
 * UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER_OR_FOLLOWER (25 partitions of a new progress topic: 0.3 s
 * on a loaded 2-core machine). kafkajs's own wait (`waitForLeaders`) sleeps 100 ms before it first
 * looks and only asks for metadata, so a flow's first read of its new progress topic still failed
 * and waited out a retry. This asks every leader for its partitions' end offsets, soon and often.
 */
import type { RawCluster } from '../wire/raw-cluster';
import { isRetriableKafkajsError } from '../errors';

export interface ReadinessWait {
  /** How long to wait at most; a topic not served by then is left to its users' retries. */
  readonly timeoutMs: number;
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

export const TOPIC_READINESS: ReadinessWait = { timeoutMs: 10_000, firstDelayMs: 10, maxDelayMs: 200 };

const END_OFFSET = -1;
const READ_UNCOMMITTED = 0;

/**
 * Resolves once the leader of every partition of `topics` (name → partition count) answers
 * ListOffsets for it, or after `timeoutMs`; gives up at once on an error that waiting cannot cure
 * (no permission to describe the topic, say). Never rejects: the topics exist either way, and
 * what uses them retries as it always does.
 */
export async function untilTopicsServed(cluster: RawCluster, topics: ReadonlyMap<string, number>, wait: ReadinessWait = TOPIC_READINESS): Promise<boolean> {
  if (topics.size === 0) return true;
  const now = wait.now ?? Date.now;
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + wait.timeoutMs;
  for (let delayMs = wait.firstDelayMs; ; delayMs = Math.min(wait.maxDelayMs, delayMs * 2)) {
    try {
      if (await served(cluster, topics)) return true;
    } catch (error) {
      if (!isRetriableKafkajsError(error)) return false;
    }
    if (now() + delayMs >= deadline) return false;
    await sleep(delayMs);
  }
}

async function served(cluster: RawCluster, topics: ReadonlyMap<string, number>): Promise<boolean> {
  await cluster.refreshMetadataIfNecessary();
  const metadata = await (await cluster.anyBroker()).metadata([...topics.keys()]);
  if (metadata.topicMetadata.length < topics.size) return false;
  // Leader → topic → its partitions there: one ListOffsets per leader.
  const byLeader = new Map<number, Map<string, number[]>>();
  for (const { topic, partitionMetadata } of metadata.topicMetadata) {
    const led = partitionMetadata.filter((p) => p.leader >= 0);
    if (led.length < (topics.get(topic) ?? 0)) return false;
    for (const p of led) {
      if (!byLeader.has(p.leader)) byLeader.set(p.leader, new Map());
      const ofLeader = byLeader.get(p.leader)!;
      if (!ofLeader.has(topic)) ofLeader.set(topic, []);
      ofLeader.get(topic)!.push(p.partitionId);
    }
  }
  await Promise.all(
    [...byLeader].map(async ([nodeId, ofLeader]) => {
      const broker = await cluster.broker(nodeId);
      await broker.listOffsets({
        isolationLevel: READ_UNCOMMITTED,
        topics: [...ofLeader].map(([topic, partitions]) => ({ topic, partitions: partitions.map((partition) => ({ partition, timestamp: END_OFFSET })) })),
      });
    }),
  );
  return true;
}
