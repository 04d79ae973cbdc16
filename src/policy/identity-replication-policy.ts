/**
 * MM2's `IdentityReplicationPolicy`: topics keep their names on the target (MM1-style), so
 * `topicSource` can only answer with the configured source alias. Heartbeats topics (any name
 * ending in `heartbeats`) are still renamed as by the default policy, which keeps heartbeat
 * cycles detectable; ordinary topics cannot be protected from cycles with this policy.
 */
import { DefaultReplicationPolicy, type DefaultReplicationPolicyOptions } from './default-replication-policy';

export interface IdentityReplicationPolicyOptions extends DefaultReplicationPolicyOptions {
  /** `source.cluster.alias`: the flow's source. Without it `topicSource` of a normal topic is undefined. */
  readonly sourceAlias?: string;
}

export class IdentityReplicationPolicy extends DefaultReplicationPolicy {
  readonly sourceAlias: string | undefined;

  constructor(options: IdentityReplicationPolicyOptions = {}) {
    super(options);
    this.sourceAlias = options.sourceAlias;
  }

  override formatRemoteTopic(sourceClusterAlias: string, topic: string): string {
    return this.looksLikeHeartbeat(topic) ? super.formatRemoteTopic(sourceClusterAlias, topic) : topic;
  }

  override topicSource(topic: string): string | undefined {
    return this.looksLikeHeartbeat(topic) ? super.topicSource(topic) : this.sourceAlias;
  }

  override upstreamTopic(topic: string): string | undefined {
    return this.looksLikeHeartbeat(topic) ? super.upstreamTopic(topic) : topic;
  }

  // A suffix test, as in MM2: `xheartbeats` counts too.
  private looksLikeHeartbeat(topic: string): boolean {
    return topic.endsWith(this.heartbeatsTopic());
  }
}
