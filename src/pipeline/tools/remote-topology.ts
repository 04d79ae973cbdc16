/**
 * What MM2's `MirrorClient` concludes from the topic names of one cluster alone: which topics are
 * heartbeats, checkpoints or remote topics, which clusters are upstream, and how many replication
 * hops away each one is. Pure functions over a topic list and a replication policy, so the
 * `MirrorClientTest` vectors run without Kafka; `MirrorClient` feeds them the cluster's topics.
 */
import type { ReplicationPolicy } from '../../policy';

/** Guards against a custom policy whose `upstreamTopic` never settles; MM2 has no bound. */
const MAX_HOPS = 10_000;

export function isHeartbeatTopic(policy: ReplicationPolicy, topic: string): boolean {
  return policy.isHeartbeatsTopic(topic);
}

export function isCheckpointTopic(policy: ReplicationPolicy, topic: string): boolean {
  return policy.isCheckpointsTopic(topic);
}

/** A topic replicated from another cluster: not internal, and the policy names its source. */
export function isRemoteTopic(policy: ReplicationPolicy, topic: string): boolean {
  return !policy.isInternalTopic(topic) && policy.topicSource(topic) !== undefined;
}

export function heartbeatTopics(policy: ReplicationPolicy, topics: Iterable<string>): string[] {
  return sorted([...topics].filter((t) => isHeartbeatTopic(policy, t)));
}

export function checkpointTopics(policy: ReplicationPolicy, topics: Iterable<string>): string[] {
  return sorted([...topics].filter((t) => isCheckpointTopic(policy, t)));
}

/** Remote topics, or only those replicated (directly) from `source` when given. */
export function remoteTopics(policy: ReplicationPolicy, topics: Iterable<string>, source?: string): string[] {
  return sorted([...topics].filter((t) => isRemoteTopic(policy, t) && (source === undefined || policy.topicSource(t) === source)));
}

/**
 * Hops from the cluster `sourceAlias` to here along the chain of `topic`'s name, e.g.
 * `b.a.heartbeats` is 1 hop from `b` and 2 from `a`; -1 when `sourceAlias` is not in the chain
 * or the chain loops (MM2's `countHopsForTopic`).
 */
export function countHopsForTopic(policy: ReplicationPolicy, topic: string, sourceAlias: string): number {
  const visited = new Set<string>();
  let current: string | undefined = topic;
  for (let hops = 1; hops <= MAX_HOPS && current !== undefined; hops++) {
    const source = policy.topicSource(current);
    if (source === undefined) return -1;
    if (source === sourceAlias) return hops;
    if (visited.has(source)) return -1;
    visited.add(source);
    current = policy.upstreamTopic(current);
  }
  return -1;
}

/** Fewest hops from `sourceAlias` over every heartbeats topic; -1 when it is not upstream. */
export function replicationHops(policy: ReplicationPolicy, topics: Iterable<string>, sourceAlias: string): number {
  let best = -1;
  for (const topic of heartbeatTopics(policy, topics)) {
    const hops = countHopsForTopic(policy, topic, sourceAlias);
    if (hops !== -1 && (best === -1 || hops < best)) best = hops;
  }
  return best;
}

/** Every cluster named in the chain of some heartbeats topic (MM2's `upstreamClusters`). */
export function upstreamClusters(policy: ReplicationPolicy, topics: Iterable<string>): string[] {
  const clusters = new Set<string>();
  for (const topic of heartbeatTopics(policy, topics)) for (const source of allSources(policy, topic)) clusters.add(source);
  return sorted([...clusters]);
}

/** The clusters in `topic`'s chain, nearest first; stops at a repeat (policies that cannot prevent cycles). */
export function allSources(policy: ReplicationPolicy, topic: string): string[] {
  const sources: string[] = [];
  let current = topic;
  let source = policy.topicSource(current);
  while (source !== undefined && !sources.includes(source) && sources.length < MAX_HOPS) {
    sources.push(source);
    const up = policy.upstreamTopic(current);
    if (up === undefined) break;
    current = up;
    source = policy.topicSource(current);
  }
  return sources;
}

function sorted(values: string[]): string[] {
  return values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
