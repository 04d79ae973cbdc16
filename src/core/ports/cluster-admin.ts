import { token } from './token';
import type { Observable } from '#rxjs';
import { MirrorflowError, type ErrorOptions } from '../errors';
import type { AclCreateResult, TopicAcl } from './topic-acl';

export interface TopicDescription {
  readonly name: string;
  readonly partitions: number;
  /** Kafka's topic id, when the listing gave it (see `topicIds`). */
  readonly topicId?: string;
  /** Replicas of its first partition, when the listing gave them. */
  readonly replicationFactor?: number;
}

/** Where a topic's or a group's config value comes from (Kafka's ConfigSource; `group`: set on the group). */
export type ConfigSource = 'default' | 'static-broker' | 'dynamic-broker' | 'dynamic-default-broker' | 'topic' | 'group' | 'unknown';

export interface TopicConfigEntry {
  readonly name: string;
  readonly value: string | null;
  readonly isDefault: boolean;
  readonly readOnly: boolean;
  readonly sensitive: boolean;
  readonly source: ConfigSource;
}

/**
 * One change of a topic config (IncrementalAlterConfigs): set a value, or delete the topic's
 * override so the cluster's default applies. Other configs of the topic stay as they are.
 */
export type TopicConfigChange = { readonly op: 'set'; readonly name: string; readonly value: string } | { readonly op: 'delete'; readonly name: string };

/** The broker's answer for one topic's changes, which it applies all together or not at all. */
export type TopicConfigResult =
  | { readonly ok: true }
  /** `error` is Kafka's error name (INVALID_CONFIG, POLICY_VIOLATION, …), `message` the broker's reason. */
  | { readonly ok: false; readonly error: string; readonly message: string; readonly retriable: boolean };

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

/** A consumer group's state, as the broker reports it (classic or KIP-848 groups). */
export type GroupState = 'empty' | 'stable' | 'preparing-rebalance' | 'completing-rebalance' | 'dead' | 'unknown';

export interface GroupOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly metadata: string;
}

/** A share group (KIP-932) as the broker describes it. */
export interface ShareGroupDescription {
  /** `empty`, `stable`, or `dead` for a group the broker does not know. */
  readonly state: GroupState;
  /** Its members: consumers whose start offsets cannot be changed while they run. */
  readonly members: number;
}

/**
 * Where a share group is in one partition: its share-partition start offset. Every record before
 * it is done with (acknowledged, rejected, or archived after too many deliveries); the record at
 * it is not. Records after it may be done with too, one by one: a share group's progress is not
 * one offset, and only this one can be read and set.
 */
export interface ShareGroupStartOffset {
  readonly topic: string;
  readonly partition: number;
  readonly startOffset: number;
}

/** Metadata and topic management on one cluster. Every call is lazy: nothing happens until subscribed. */
export interface ClusterAdmin {
  readonly cluster: string;
  listTopics(): Observable<readonly TopicDescription[]>;
  /**
   * Those of `names` that exist, as `listTopics` describes them, asking about those topics only:
   * a check for one topic costs the same on a cluster of 50,000 topics as on one of ten.
   */
  describeTopics(names: readonly string[]): Observable<readonly TopicDescription[]>;
  /**
   * Creates the topics that do not exist yet; emits the names it created, once their partitions'
   * leaders serve them (a while after the controller created them), unless `served` is false.
   */
  createTopics(topics: readonly NewTopic[], options?: { readonly served?: boolean }): Observable<readonly string[]>;
  /** Grows a topic to `count` partitions. */
  createPartitions(topic: string, count: number): Observable<void>;
  describeTopicConfigs(topics: readonly string[]): Observable<ReadonlyMap<string, readonly TopicConfigEntry[]>>;
  /**
   * Changes topic configs with IncrementalAlterConfigs (Kafka 2.3+), one result per topic. A
   * cluster without it errors (not retriable); a topic the broker refuses is a result, not an error.
   */
  alterTopicConfigs(changes: ReadonlyMap<string, readonly TopicConfigChange[]>): Observable<ReadonlyMap<string, TopicConfigResult>>;
  partitionOffsets(topic: string): Observable<readonly PartitionOffsets[]>;
  /**
   * The offsets of many topics' partitions in one round (one Metadata request, one ListOffsets
   * per leader and bound), by topic. A topic may be left out (no leader for some partition now,
   * or unknown to the cluster); `partitionOffsets` of that topic alone says why.
   */
  partitionOffsetsOf(topics: readonly string[]): Observable<ReadonlyMap<string, readonly PartitionOffsets[]>>;
  /** Deletes a partition's records before `beforeOffset` (DeleteRecords): its log start offset becomes `beforeOffset`. */
  deleteRecords(topic: string, partition: number, beforeOffset: number): Observable<void>;
  /**
   * Kafka's topic ids (Kafka 2.8+) of those of `topics` that exist, by name: a topic deleted and
   * created again under the same name gets a new id. Empty when the cluster gives no ids.
   */
  topicIds(topics: readonly string[]): Observable<ReadonlyMap<string, string>>;
  /** Ids of the consumer groups on the cluster (share groups left out: they commit no offsets). */
  listGroups(): Observable<readonly string[]>;
  /** Ids of the consumer groups and, apart, of the share groups (KIP-932, Kafka 4.2+), from one listing. */
  listGroupKinds(): Observable<{ readonly consumer: readonly string[]; readonly share: readonly string[] }>;
  /** State per group; a group the broker does not know is `dead`. */
  describeGroups(groupIds: readonly string[]): Observable<ReadonlyMap<string, GroupState>>;
  /** The group's committed offsets (partitions without a commit are left out). */
  fetchGroupOffsets(groupId: string): Observable<readonly GroupOffset[]>;
  /**
   * Commits offsets as an admin (no membership) for a group that has no active members, as Java's
   * `Admin.alterConsumerGroupOffsets` does; a group the broker does not know is created. The
   * broker refuses it for a group with members: that errors with `GroupActiveError`.
   */
  commitGroupOffsets(groupId: string, offsets: readonly GroupOffset[]): Observable<void>;
  /**
   * Deletes consumer groups and their committed offsets (DeleteGroups); a group the broker does
   * not know counts as deleted. A group with members is refused: that errors with `GroupActiveError`.
   */
  deleteGroups(groupIds: readonly string[]): Observable<void>;
  /**
   * Groups' configs (Kafka 4.0+, `kafka-configs.sh --entity-type groups`), by group id, each
   * entry with its source (`group` when set on the group). One DescribeConfigs request for them
   * all, to any broker; it errors as a whole when the broker refuses any one group (not
   * authorized, say).
   */
  describeGroupConfigs(groupIds: readonly string[]): Observable<ReadonlyMap<string, readonly TopicConfigEntry[]>>;
  /**
   * Sets or deletes configs of groups (IncrementalAlterConfigs), all in one request, one result
   * per group: the broker applies a group's changes all or none, and a group it refuses is a
   * result, not an error.
   */
  alterGroupConfigs(changes: ReadonlyMap<string, readonly TopicConfigChange[]>): Observable<ReadonlyMap<string, TopicConfigResult>>;
  /**
   * State and members of each share group (ShareGroupDescribe, Kafka 4.2+); a group the broker
   * does not know is `dead` with no members. Errors (not retriable) on a cluster without share groups.
   */
  describeShareGroups(groupIds: readonly string[]): Observable<ReadonlyMap<string, ShareGroupDescription>>;
  /**
   * A share group's start offsets (DescribeShareGroupOffsets), on the partitions where it has one;
   * none for a group the broker does not know.
   */
  fetchShareGroupOffsets(groupId: string): Observable<readonly ShareGroupStartOffset[]>;
  /**
   * Sets start offsets of a share group that has no members (AlterShareGroupOffsets), as Java's
   * `Admin.alterShareGroupOffsets` does; a group the broker does not know is created, and the
   * partitions not given keep theirs. A group with members is refused: that errors with
   * `GroupActiveError`. Partitions the broker refuses (a topic it does not have) error too, naming
   * them, though the others were set.
   */
  alterShareGroupOffsets(groupId: string, offsets: readonly ShareGroupStartOffset[]): Observable<void>;
  /** Deletes topics and their records (DeleteTopics); a topic that does not exist counts as deleted. Emits once they are gone from the metadata. */
  deleteTopics(topics: readonly string[]): Observable<void>;
  /**
   * Every ACL on topic resources, literal and prefixed. Errors with `SecurityDisabledError` when
   * the cluster has no authorizer.
   */
  describeTopicAcls(): Observable<readonly TopicAcl[]>;
  /**
   * Creates the ACLs; emits what the cluster answered for each. Errors (and creates nothing)
   * only when the whole request fails: a cluster that cannot be reached, no authorizer.
   */
  createTopicAcls(acls: readonly TopicAcl[]): Observable<readonly AclCreateResult[]>;
  close(): Promise<void>;
}

/** The broker refused an admin offset commit (or a share group's alter) because the group has active members. Not retriable. */
export class GroupActiveError extends MirrorflowError {
  override readonly name = 'GroupActiveError';
  override readonly code = 'GROUP_ACTIVE';

  constructor(
    readonly cluster: string,
    readonly groupId: string,
    options: ErrorOptions = {},
    kind: 'consumer group' | 'share group' = 'consumer group',
  ) {
    super(`Cluster "${cluster}": ${kind} "${groupId}" has active members; its offsets cannot be changed now.`, options);
  }
}

/*
 * DI tokens of a flow's admin clients, one per role: a flow uses two or three clusters, so the
 * interface alone cannot say which one a part gets.
 */
/** The admin of the flow's source cluster. */
export const SourceAdmin = token<ClusterAdmin>('SourceAdmin');
/** The admin of the flow's target cluster. */
export const TargetAdmin = token<ClusterAdmin>('TargetAdmin');
/** The admin of the cluster holding the flow's offset syncs (source or target, by `offset_syncs.location`). */
export const OffsetSyncsAdmin = token<ClusterAdmin>('OffsetSyncsAdmin');
