/**
 * How topics are named across clusters: MM2's `ReplicationPolicy` interface, method for method.
 * `undefined` stands where Java returns null. `ReplicationPolicyBase` carries the interface's
 * default methods as they are in Kafka 4.3.1 (after KIP-1074: only `mm2…internal` and checkpoints
 * topics count as MM2-internal; `foo.internal` or `foo-internal` are ordinary topics).
 */
import { token } from '../core/ports/token';

export interface ReplicationPolicy {
  /** Name of `topic` from cluster `sourceClusterAlias` on the target, e.g. `us-west.orders`. */
  formatRemoteTopic(sourceClusterAlias: string, topic: string): string;
  /** The alias of the cluster `topic` was replicated from, or undefined for a local topic. */
  topicSource(topic: string): string | undefined;
  /** The name `topic` had one hop upstream, or undefined for a local topic. */
  upstreamTopic(topic: string): string | undefined;
  /** The name at the start of the replication chain (`a.b.orders` → `orders`). */
  originalTopic(topic: string): string;
  heartbeatsTopic(): string;
  offsetSyncsTopic(clusterAlias: string): string;
  checkpointsTopic(clusterAlias: string): string;
  isHeartbeatsTopic(topic: string): boolean;
  isCheckpointsTopic(topic: string): boolean;
  isMM2InternalTopic(topic: string): boolean;
  /** Never replicated: Kafka's own (`__…`), hidden (`.…`) and MM2's internal topics. */
  isInternalTopic(topic: string): boolean;
}
/** DI token; a token and its interface share a name. */
export const ReplicationPolicy = token<ReplicationPolicy>('ReplicationPolicy');

/** The Java interface's default methods; a custom policy extends this and writes the first three. */
export abstract class ReplicationPolicyBase implements ReplicationPolicy {
  abstract formatRemoteTopic(sourceClusterAlias: string, topic: string): string;
  abstract topicSource(topic: string): string | undefined;
  abstract upstreamTopic(topic: string): string | undefined;

  originalTopic(topic: string): string {
    // Java recurses; a loop gives the same answer without a deep stack.
    let current = topic;
    for (;;) {
      const up = this.upstreamTopic(current);
      if (up === undefined || up === current) return current;
      current = up;
    }
  }

  heartbeatsTopic(): string {
    return 'heartbeats';
  }

  offsetSyncsTopic(clusterAlias: string): string {
    return `mm2-offset-syncs.${clusterAlias}.internal`;
  }

  checkpointsTopic(clusterAlias: string): string {
    return `${clusterAlias}.checkpoints.internal`;
  }

  isHeartbeatsTopic(topic: string): boolean {
    return this.heartbeatsTopic() === this.originalTopic(topic);
  }

  isCheckpointsTopic(topic: string): boolean {
    return topic.endsWith('.checkpoints.internal');
  }

  isMM2InternalTopic(topic: string): boolean {
    return (topic.startsWith('mm2') && topic.endsWith('.internal')) || this.isCheckpointsTopic(topic);
  }

  isInternalTopic(topic: string): boolean {
    return topic.startsWith('__') || topic.startsWith('.') || this.isMM2InternalTopic(topic);
  }
}
