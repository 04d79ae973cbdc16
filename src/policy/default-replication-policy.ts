/**
 * MM2's `DefaultReplicationPolicy`: remote topics are `<source><separator><topic>`.
 *
 * `internalTopicSeparatorEnabled` (default true) names MM2's internal topics with the custom
 * separator too (`mm2-offset-syncs__B__internal`); MM2 reads it only when a separator was
 * configured, and so does this class. `heartbeats` never changes.
 */
import { javaSplitLiteral } from './java-split';
import { ReplicationPolicyBase } from './replication-policy';

export interface DefaultReplicationPolicyOptions {
  /** `replication.policy.separator`; default `.`. */
  readonly separator?: string;
  /** `replication.policy.internal.topic.separator.enabled`; default true; ignored without `separator`. */
  readonly internalTopicSeparatorEnabled?: boolean;
}

export const DEFAULT_SEPARATOR = '.';

export class DefaultReplicationPolicy extends ReplicationPolicyBase {
  readonly separator: string;
  /** The separator used in internal topic names. */
  protected readonly internalSeparator: string;

  constructor(options: DefaultReplicationPolicyOptions = {}) {
    super();
    this.separator = options.separator ?? DEFAULT_SEPARATOR;
    const internalEnabled = options.separator === undefined || options.internalTopicSeparatorEnabled !== false;
    this.internalSeparator = internalEnabled ? this.separator : DEFAULT_SEPARATOR;
  }

  override formatRemoteTopic(sourceClusterAlias: string, topic: string): string {
    return sourceClusterAlias + this.separator + topic;
  }

  override topicSource(topic: string): string | undefined {
    const parts = javaSplitLiteral(topic, this.separator);
    return parts.length < 2 ? undefined : parts[0];
  }

  override upstreamTopic(topic: string): string | undefined {
    const source = this.topicSource(topic);
    return source === undefined ? undefined : topic.slice(source.length + this.separator.length);
  }

  override offsetSyncsTopic(clusterAlias: string): string {
    return `mm2-offset-syncs${this.internalSeparator}${clusterAlias}${this.internalSuffix()}`;
  }

  override checkpointsTopic(clusterAlias: string): string {
    return clusterAlias + this.checkpointsTopicSuffix();
  }

  override isCheckpointsTopic(topic: string): boolean {
    return topic.endsWith(this.checkpointsTopicSuffix());
  }

  override isMM2InternalTopic(topic: string): boolean {
    return (topic.startsWith('mm2') && topic.endsWith(this.internalSuffix())) || this.isCheckpointsTopic(topic);
  }

  private internalSuffix(): string {
    return `${this.internalSeparator}internal`;
  }

  private checkpointsTopicSuffix(): string {
    return `${this.internalSeparator}checkpoints${this.internalSuffix()}`;
  }
}
