import type { Observable } from 'rxjs';

export interface TopicDescription {
  readonly name: string;
  readonly partitions: number;
}

/** Where a topic config value comes from (Kafka's ConfigSource). */
export type ConfigSource = 'default' | 'static-broker' | 'dynamic-broker' | 'dynamic-default-broker' | 'topic' | 'unknown';

export interface TopicConfigEntry {
  readonly name: string;
  readonly value: string | null;
  readonly isDefault: boolean;
  readonly readOnly: boolean;
  readonly sensitive: boolean;
  readonly source: ConfigSource;
}

export interface NewTopic {
  readonly name: string;
  readonly partitions: number;
  /** -1 lets the broker choose (default.replication.factor). */
  readonly replicationFactor: number;
  readonly configs: Readonly<Record<string, string>>;
}

export interface PartitionOffsets {
  readonly partition: number;
  /** Log start offset. */
  readonly earliest: number;
  /** High watermark: the offset the next record will get. */
  readonly latest: number;
}

/** Metadata and topic management on one cluster. Every call is lazy: nothing happens until subscribed. */
export interface ClusterAdmin {
  readonly cluster: string;
  listTopics(): Observable<readonly TopicDescription[]>;
  /** Creates the topics that do not exist yet; emits the names it created. */
  createTopics(topics: readonly NewTopic[]): Observable<readonly string[]>;
  /** Grows a topic to `count` partitions. */
  createPartitions(topic: string, count: number): Observable<void>;
  describeTopicConfigs(topics: readonly string[]): Observable<ReadonlyMap<string, readonly TopicConfigEntry[]>>;
  partitionOffsets(topic: string): Observable<readonly PartitionOffsets[]>;
  close(): Promise<void>;
}
