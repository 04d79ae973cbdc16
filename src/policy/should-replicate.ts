/**
 * MM2's `MirrorSourceConnector.shouldReplicateTopic` and `isCycle`: which source topics a flow
 * copies. Heartbeats topics pass even when the topic filter excludes them (so `A.heartbeats`
 * shows the chain on every cluster downstream), internal topics never pass, and a topic never
 * goes back to a cluster whose alias is anywhere in its chain of prefixes.
 */
import { MirrorflowError } from '../core/errors';
import type { ReplicationPolicy } from './replication-policy';
import type { TopicFilter } from './topic-filter';

export interface CycleContext {
  readonly policy: ReplicationPolicy;
  /** The flow's target cluster alias. */
  readonly targetAlias: string;
}

export interface ShouldReplicateContext extends CycleContext {
  readonly filter: TopicFilter;
  /** `heartbeats.replication.enabled` (MM2 default true). */
  readonly replicateHeartbeats: boolean;
}

export function shouldReplicateTopic(topic: string, ctx: ShouldReplicateContext): boolean {
  return (
    (ctx.filter.shouldReplicateTopic(topic) || (ctx.replicateHeartbeats && ctx.policy.isHeartbeatsTopic(topic))) &&
    !ctx.policy.isInternalTopic(topic) &&
    !isCycle(topic, ctx)
  );
}

// MM2 recurses without a bound; a custom policy whose upstreamTopic never settles would hang us.
const MAX_HOPS = 10_000;

/** True when `topic` came (directly or through other clusters) from the flow's target. */
export function isCycle(topic: string, ctx: CycleContext): boolean {
  let current = topic;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const source = ctx.policy.topicSource(current);
    if (source === undefined) return false;
    if (source === ctx.targetAlias) return true;
    const up = ctx.policy.upstreamTopic(current);
    // Identity-like policies answer with the topic itself: nothing more to learn.
    if (up === undefined || up === current) return false;
    current = up;
  }
  throw new MirrorflowError(`The replication policy's upstreamTopic did not settle after ${MAX_HOPS} hops for "${topic}"`);
}
