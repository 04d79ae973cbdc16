// size: the one adapter of the ClusterAdmin port, a method per call of it; each is a few lines over kafkajs or a raw request.
import { defer, map, type Observable } from '#rxjs';
import { ConfigResourceTypes, type Admin, type Kafka } from '../kafkajs';
import {
  GroupActiveError,
  type ClusterAdmin,
  type ConfigSource,
  type GroupOffset,
  type GroupState,
  type NewTopic,
  type PartitionOffsets,
  type ShareGroupDescription,
  type ShareGroupStartOffset,
  type TopicConfigChange,
  type TopicConfigEntry,
  type TopicConfigResult,
  type TopicDescription,
} from '../../core/ports/cluster-admin';
import type { AclCreateResult, TopicAcl } from '../../core/ports/topic-acl';
import { createTopicAcls, describeTopicAcls } from './kafkajs-acls';
import { alterShareGroupOffsets, describeShareGroups, fetchShareGroupOffsets } from './share-groups';
import { toTransportError } from '../errors';
import { KafkaTransportError } from '../../core/errors';
import { rawCluster, type RawCluster } from '../wire/raw-cluster';
import { listTopicsWithIds, topicIdsOf } from './topic-metadata';
import { untilTopicsServed } from './topic-readiness';
import { deleteRecordsBefore, readPartitionOffsets } from './partition-offsets';
import { defaultRetryConfig, retryWithBackoff } from '../../core/retry';
import { kafkajsProtocolErrors } from '../wire/kafkajs-internals';
import { notOfferedReason } from '../wire/forwarded-apis';
import {
  INCREMENTAL_ALTER_CONFIGS_API_KEY,
  INCREMENTAL_ALTER_CONFIGS_V0,
  TOPIC_RESOURCE,
  GROUP_RESOURCE,
  incrementalAlterConfigsRequest,
} from '../wire/incremental-alter-configs';

const CONFIG_SOURCES: Record<number, ConfigSource> = {
  1: 'topic',
  2: 'dynamic-broker',
  3: 'dynamic-default-broker',
  4: 'static-broker',
  5: 'default',
  8: 'group',
};

/** A config entry as kafkajs decodes DescribeConfigs, in the port's terms. */
function configEntry(e: {
  readonly configName: string;
  readonly configValue?: string | null;
  readonly isDefault: boolean;
  readonly readOnly: boolean;
  readonly isSensitive: boolean;
  readonly configSource?: number;
}): TopicConfigEntry {
  return {
    name: e.configName,
    value: e.configValue ?? null,
    isDefault: e.isDefault,
    readOnly: e.readOnly,
    sensitive: e.isSensitive,
    source: CONFIG_SOURCES[e.configSource ?? 0] ?? 'unknown',
  };
}

const GROUP_STATES: Record<string, GroupState> = {
  empty: 'empty',
  stable: 'stable',
  preparingrebalance: 'preparing-rebalance',
  completingrebalance: 'completing-rebalance',
  dead: 'dead',
};

/**
 * ListGroups (v2, kafkajs's) answers every kind of group; share groups (KIP-932) say `share` as
 * their protocol type, and have no committed offsets to fetch.
 */
const SHARE_GROUP_PROTOCOL = 'share';

/**
 * What the broker answers an admin offset commit for a group with members: classic groups say
 * UNKNOWN_MEMBER_ID (or are rebalancing), KIP-848 consumer groups may speak of member epochs.
 */
const GROUP_ACTIVE_ERRORS = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS', 'FENCED_MEMBER_EPOCH', 'STALE_MEMBER_EPOCH']);

/**
 * Our retries of one admin call, each after kafkajs's own (about 10 s of them when a broker
 * refuses connections). One: callers that must outlast an outage (the flows) retry the call
 * themselves and report the outage, which they only learn of when this gives up, and one-shot
 * commands should say a cluster is down soon.
 */
const ADMIN_RETRIES = 1;

/** ClusterAdmin over the kafkajs admin client; connects on first use. */
export class KafkajsAdmin implements ClusterAdmin {
  private admin: Admin;
  private connected: Promise<void> | undefined;
  /** For admin offset commits, topic ids, config changes and share groups, which kafkajs's admin cannot ask for (see ../wire/raw-cluster.ts). */
  private groupCluster: Promise<RawCluster> | undefined;
  private closed = false;

  constructor(
    readonly cluster: string,
    private readonly kafka: Kafka,
  ) {
    this.admin = kafka.admin();
  }

  /**
   * Runs one admin call; transient failures (a leader moving, a topic still being created) are
   * retried. Unsubscribing does not abort a call kafkajs is making, and kafkajs reconnects to
   * retry it: a call that ends after `close()` closes again what it opened.
   */
  private call<T>(action: string, fn: (admin: Admin) => Promise<T>): Observable<T> {
    return this.request(action, async () => fn(await this.connect()));
  }

  /** `call` for a request that may not need kafkajs's admin client (see `connectedCluster`). */
  private request<T>(action: string, fn: () => Promise<T>): Observable<T> {
    return defer(async () => {
      if (this.closed) throw new KafkaTransportError(this.cluster, `${action}: the admin client is closed`, false);
      try {
        return await fn();
      } catch (error) {
        throw toTransportError(this.cluster, error, action);
      } finally {
        if (this.closed) await this.disconnect();
      }
    }).pipe(retryWithBackoff({ ...defaultRetryConfig, retries: ADMIN_RETRIES, initialDelayMs: 100, maxDelayMs: 5000 }));
  }

  /**
   * The connected admin client; concurrent calls share one connect. A connect that fails (the
   * cluster down) is forgotten with its client, so the next call connects anew: kept, its
   * rejection would fail every later call, even once the cluster is back.
   */
  private async connect(): Promise<Admin> {
    if (this.connected === undefined) this.connected = this.admin.connect();
    const connecting = this.connected;
    const admin = this.admin;
    try {
      await connecting;
      return admin;
    } catch (error) {
      if (this.connected === connecting) {
        this.connected = undefined;
        this.admin = this.kafka.admin();
        await admin.disconnect().catch(() => undefined); // the connect's error is the one thrown next
      }
      throw error;
    }
  }

  /** Every topic, with its id where the cluster gives ids (see topic-metadata.ts); brokers before 3.1 are listed by kafkajs. */
  listTopics(): Observable<readonly TopicDescription[]> {
    return this.request('Listing topics', async () => (await listTopicsWithIds(await this.connectedCluster())) ?? (await this.listedByKafkajs()));
  }

  /** Those of `names` that exist, from a Metadata v12 request naming them; brokers before 3.1: kafkajs's listing, filtered. */
  describeTopics(names: readonly string[]): Observable<readonly TopicDescription[]> {
    return this.request('Describing topics', async () => {
      if (names.length === 0) return [];
      const withIds = await listTopicsWithIds(await this.connectedCluster(), names);
      if (withIds !== undefined) return withIds;
      const wanted = new Set(names);
      return (await this.listedByKafkajs()).filter((t) => wanted.has(t.name));
    });
  }

  /** Every topic as kafkajs's admin lists them: a cluster whose brokers predate Metadata v12 (Kafka 3.1). */
  private async listedByKafkajs(): Promise<TopicDescription[]> {
    const metadata = await (await this.connect()).fetchTopicMetadata();
    return metadata.topics.map((t): TopicDescription => ({
      name: t.name,
      partitions: t.partitions.length,
      ...(t.partitions[0] === undefined ? {} : { replicationFactor: t.partitions[0].replicas.length }),
    }));
  }

  /** Creates the topics that do not exist yet and waits until their leaders serve them (see topic-readiness.ts). */
  createTopics(topics: readonly NewTopic[], options: { readonly served?: boolean } = {}): Observable<readonly string[]> {
    return this.call('Creating topics', async (admin) => {
      const created = await this.createMissing(admin, topics);
      if (options.served === false) return created;
      const partitions = new Map(topics.filter((t) => created.includes(t.name)).map((t) => [t.name, t.partitions]));
      await this.connectedCluster().then(
        (cluster) => untilTopicsServed(cluster, partitions),
        // Created all the same; what uses them retries until they are served.
        () => undefined,
      );
      return created;
    });
  }

  private async createMissing(admin: Admin, topics: readonly NewTopic[]): Promise<string[]> {
    // Ask first: kafkajs logs an error for every topic that already exists.
    const existing = new Set(await admin.listTopics());
    const created: string[] = [];
    for (const request of createRequests(topics.filter((t) => !existing.has(t.name)))) created.push(...(await this.createRequest(admin, request)));
    return created;
  }

  /**
   * One CreateTopics for `topics`; returns those it created. Kafka creates or refuses each topic
   * of a request on its own, and kafkajs names the refused ones in its error (`errors`, each with
   * `topic` and `type`): those refused as existing (made meanwhile by someone else) count as
   * existing, those not named were created, and those refused for another reason are asked for
   * once more, together, in one request (whose refusal is thrown).
   */
  private async createRequest(admin: Admin, topics: readonly NewTopic[], again = false): Promise<string[]> {
    try {
      // false: every topic refused exists already, and kafkajs does not say which ones were; this
      // request may have made some of the others, and they count as existing (as when asked one
      // by one, each would be refused as existing now).
      const created = await admin.createTopics({
        // Its wait sleeps 100 ms first and looks at metadata only; untilTopicsServed asks the leaders.
        waitForLeaders: false,
        topics: topics.map((topic) => ({
          topic: topic.name,
          numPartitions: topic.partitions,
          replicationFactor: topic.replicationFactor,
          configEntries: Object.entries(topic.configs).map(([name, value]) => ({ name, value })),
        })),
      });
      return created ? topics.map((t) => t.name) : [];
    } catch (error) {
      const refused = refusedTopics(error);
      if (refused === undefined) throw error;
      const created = topics.filter((t) => !refused.has(t.name)).map((t) => t.name);
      const others = topics.filter((t) => refused.has(t.name) && refused.get(t.name) !== 'TOPIC_ALREADY_EXISTS');
      if (others.length === 0) return created;
      if (again) throw error;
      return [...created, ...(await this.createRequest(admin, others, true))];
    }
  }

  createPartitions(topic: string, count: number): Observable<void> {
    return this.call('Adding partitions', (admin) => admin.createPartitions({ topicPartitions: [{ topic, count }] }).then(() => undefined));
  }

  describeTopicConfigs(topics: readonly string[]): Observable<ReadonlyMap<string, readonly TopicConfigEntry[]>> {
    return this.call('Describing topic configs', async (admin) => {
      const result = new Map<string, TopicConfigEntry[]>();
      if (topics.length === 0) return result;
      const response = await admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })),
      });
      for (const resource of response.resources) {
        result.set(resource.resourceName, resource.configEntries.map(configEntry));
      }
      return result;
    });
  }

  alterTopicConfigs(changes: ReadonlyMap<string, readonly TopicConfigChange[]>): Observable<ReadonlyMap<string, TopicConfigResult>> {
    return this.call('Changing topic configs', () => this.incrementalAlterConfigs(TOPIC_RESOURCE, changes));
  }

  describeGroupConfigs(groupIds: readonly string[]): Observable<ReadonlyMap<string, readonly TopicConfigEntry[]>> {
    return this.request('Describing group configs', async () => {
      const result = new Map<string, TopicConfigEntry[]>();
      if (groupIds.length === 0) return result;
      const cluster = await this.connectedCluster();
      await cluster.refreshMetadataIfNecessary();
      // Group configs live in the cluster's metadata: any broker answers (kafkajs's admin asks only of the resource types it knows).
      const broker = await cluster.anyBroker();
      const response = await broker.describeConfigs({ includeSynonyms: false, resources: groupIds.map((name) => ({ type: GROUP_RESOURCE, name })) });
      for (const resource of response.resources) result.set(resource.resourceName, resource.configEntries.map(configEntry));
      return result;
    });
  }

  alterGroupConfigs(changes: ReadonlyMap<string, readonly TopicConfigChange[]>): Observable<ReadonlyMap<string, TopicConfigResult>> {
    return this.request('Changing group configs', () => this.incrementalAlterConfigs(GROUP_RESOURCE, changes));
  }

  /** IncrementalAlterConfigs v0 of resources of one type, through any broker (a KRaft broker forwards to the controller). */
  private async incrementalAlterConfigs(
    resourceType: number,
    changes: ReadonlyMap<string, readonly TopicConfigChange[]>,
  ): Promise<ReadonlyMap<string, TopicConfigResult>> {
    const results = new Map<string, TopicConfigResult>();
    if (changes.size === 0) return results;
    const cluster = await this.connectedCluster();
    await cluster.refreshMetadataIfNecessary();
    const broker = await cluster.anyBroker();
    const { offered, asked } = await broker.untilOffered('IncrementalAlterConfigs');
    if (!offered && asked > 0)
      throw new KafkaTransportError(
        this.cluster,
        notOfferedReason('IncrementalAlterConfigs', broker.nodeId === null ? 'the broker' : `broker ${broker.nodeId}`),
        true,
      );
    const api = broker.versions?.[INCREMENTAL_ALTER_CONFIGS_API_KEY];
    if (api === undefined || api.minVersion > INCREMENTAL_ALTER_CONFIGS_V0) {
      throw new KafkaTransportError(this.cluster, 'the cluster does not support IncrementalAlterConfigs (Kafka 2.3 or newer does)', false);
    }
    const resources = [...changes].map(([name, list]) => ({
      resourceType,
      resourceName: name,
      configs: list.map((c) => ({ name: c.name, operation: c.op, value: c.op === 'set' ? c.value : null })),
    }));
    const response = await broker.send(incrementalAlterConfigsRequest(resources));
    for (const r of response.responses) {
      if (r.errorCode === 0) {
        results.set(r.resourceName, { ok: true });
        continue;
      }
      const error = kafkajsProtocolErrors().createErrorFromCode(r.errorCode);
      results.set(r.resourceName, { ok: false, error: error.type, message: r.errorMessage ?? error.message, retriable: error.retriable });
    }
    return results;
  }

  /**
   * One topic's offsets, read as `partitionOffsetsOf` reads many: by a Metadata request of its own.
   * kafkajs's `admin.fetchTopicOffsets` takes the partitions from the admin's shared metadata, and
   * a refresh another call began before this topic was added, answered after, replaces that
   * metadata without it: kafkajs then fails with a TypeError (`high.pop()` of nothing) that no
   * retry mends, and a flow reading a topic created a moment before ended on it.
   */
  partitionOffsets(topic: string): Observable<readonly PartitionOffsets[]> {
    return this.request('Reading partition offsets', async () => {
      const offsets = (await readPartitionOffsets(await this.connectedCluster(), [topic])).get(topic);
      if (offsets !== undefined) return offsets;
      throw new KafkaTransportError(this.cluster, `Reading partition offsets of "${topic}" failed: a partition of it has no leader now`, true);
    });
  }

  partitionOffsetsOf(topics: readonly string[]): Observable<ReadonlyMap<string, readonly PartitionOffsets[]>> {
    return this.request('Reading partition offsets', async () => readPartitionOffsets(await this.connectedCluster(), topics));
  }

  deleteRecords(topic: string, partition: number, beforeOffset: number): Observable<void> {
    return this.request('Deleting records', async () => {
      if (await deleteRecordsBefore(await this.connectedCluster(), topic, partition, beforeOffset)) return;
      throw new KafkaTransportError(this.cluster, `Deleting records of "${topic}" partition ${partition} failed: the partition has no leader now`, true);
    });
  }

  topicIds(topics: readonly string[]): Observable<ReadonlyMap<string, string>> {
    return this.call('Reading topic ids', async () => topicIdsOf(await this.connectedCluster(), topics));
  }

  listGroups(): Observable<readonly string[]> {
    return this.listGroupKinds().pipe(map((kinds) => kinds.consumer));
  }

  listGroupKinds(): Observable<{ readonly consumer: readonly string[]; readonly share: readonly string[] }> {
    return this.call('Listing consumer groups', (admin) => admin.listGroups()).pipe(
      map((r) => ({
        consumer: r.groups.filter((g) => g.protocolType !== SHARE_GROUP_PROTOCOL).map((g) => g.groupId),
        share: r.groups.filter((g) => g.protocolType === SHARE_GROUP_PROTOCOL).map((g) => g.groupId),
      })),
    );
  }

  describeGroups(groupIds: readonly string[]): Observable<ReadonlyMap<string, GroupState>> {
    return this.call('Describing consumer groups', async (admin) => {
      const states = new Map<string, GroupState>();
      if (groupIds.length === 0) return states;
      const described = await admin.describeGroups([...groupIds]);
      for (const g of described.groups) states.set(g.groupId, GROUP_STATES[g.state.toLowerCase()] ?? 'unknown');
      for (const id of groupIds) if (!states.has(id)) states.set(id, 'dead');
      return states;
    });
  }

  fetchGroupOffsets(groupId: string): Observable<readonly GroupOffset[]> {
    return this.call('Reading consumer group offsets', (admin) => admin.fetchOffsets({ groupId })).pipe(
      map((topics) =>
        topics.flatMap((t) =>
          t.partitions
            .filter((p) => Number(p.offset) >= 0)
            .map((p) => ({ topic: t.topic, partition: p.partition, offset: Number(p.offset), metadata: p.metadata ?? '' })),
        ),
      ),
    );
  }

  commitGroupOffsets(groupId: string, offsets: readonly GroupOffset[]): Observable<void> {
    return this.call('Committing consumer group offsets', async () => {
      if (offsets.length === 0) return;
      const byTopic = new Map<string, { partition: number; offset: string; metadata: string | null }[]>();
      for (const o of offsets) {
        const list = byTopic.get(o.topic) ?? [];
        list.push({ partition: o.partition, offset: String(o.offset), metadata: o.metadata });
        byTopic.set(o.topic, list);
      }
      const coordinator = await (await this.connectedCluster()).coordinator(groupId, 'group');
      try {
        // Generation -1 and no member id: the broker accepts it only while the group has no members.
        await coordinator.offsetCommit({
          groupId,
          groupGenerationId: -1,
          memberId: '',
          retentionTime: -1,
          topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
        });
      } catch (error) {
        const type = (error as { type?: string } | undefined)?.type;
        if (type !== undefined && GROUP_ACTIVE_ERRORS.has(type)) throw new GroupActiveError(this.cluster, groupId, { cause: error });
        throw error;
      }
    });
  }

  deleteGroups(groupIds: readonly string[]): Observable<void> {
    return this.call('Deleting consumer groups', async (admin) => {
      if (groupIds.length === 0) return;
      try {
        await admin.deleteGroups([...groupIds]);
      } catch (error) {
        const groups = (error as { groups?: readonly { groupId: string; error?: { type?: string } }[] }).groups;
        if (groups === undefined) throw error;
        const failed = groups.filter((g) => g.error !== undefined && g.error.type !== 'GROUP_ID_NOT_FOUND');
        const active = failed.find((g) => g.error?.type === 'NON_EMPTY_GROUP');
        if (active !== undefined) throw new GroupActiveError(this.cluster, active.groupId, { cause: error });
        if (failed.length > 0) throw error;
      }
    });
  }

  describeShareGroups(groupIds: readonly string[]): Observable<ReadonlyMap<string, ShareGroupDescription>> {
    return this.request('Describing share groups', async () => describeShareGroups(await this.connectedCluster(), this.cluster, groupIds));
  }

  fetchShareGroupOffsets(groupId: string): Observable<readonly ShareGroupStartOffset[]> {
    return this.request('Reading share group offsets', async () => fetchShareGroupOffsets(await this.connectedCluster(), this.cluster, groupId));
  }

  alterShareGroupOffsets(groupId: string, offsets: readonly ShareGroupStartOffset[]): Observable<void> {
    return this.request('Altering share group offsets', async () => alterShareGroupOffsets(await this.connectedCluster(), this.cluster, groupId, offsets));
  }

  deleteTopics(topics: readonly string[]): Observable<void> {
    return this.call('Deleting topics', async (admin) => {
      const wanted = new Set(topics);
      const existing = (await admin.listTopics()).filter((t) => wanted.has(t));
      if (existing.length === 0) return;
      await admin.deleteTopics({ topics: existing, timeout: 30_000 });
      // The controller answers before every broker forgot the topics: wait until the metadata has none of them.
      const deadline = Date.now() + 60_000;
      while ((await admin.listTopics()).some((t) => wanted.has(t))) {
        if (Date.now() > deadline) throw new Error(`Topics ${existing.join(', ')} are still listed 60 s after they were deleted.`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  }

  describeTopicAcls(): Observable<readonly TopicAcl[]> {
    return this.call('Describing topic ACLs', (admin) => describeTopicAcls(admin, this.cluster));
  }

  createTopicAcls(acls: readonly TopicAcl[]): Observable<readonly AclCreateResult[]> {
    return this.call('Creating topic ACLs', (admin) => createTopicAcls(admin, this.cluster, acls));
  }

  /** kafkajs's own cluster object, connected once, for the requests its admin cannot make. */
  private connectedCluster(): Promise<RawCluster> {
    this.groupCluster ??= (async () => {
      const cluster = rawCluster(this.kafka);
      await cluster.connect();
      return cluster;
    })().catch((error: unknown) => {
      this.groupCluster = undefined;
      throw error;
    });
    return this.groupCluster;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.disconnect();
  }

  /** Closes the admin client and the group cluster; safe to repeat, and repeated by calls ending after `close()`. */
  private async disconnect(): Promise<void> {
    // A connect under way would finish after a disconnect made now, and stay open.
    await Promise.allSettled([this.connected, this.groupCluster]);
    await Promise.allSettled([this.admin.disconnect(), this.groupCluster?.then((c) => c.disconnect())]);
  }
}

/**
 * Most partitions asked for in one CreateTopics. A broker takes over the partitions of one
 * request together: it creates their logs one after another (a few ms each, with fsyncs) and
 * serves none before the last. 100 topics of 20 partitions in one request: the first was served
 * 12-17 s after the answer on a 2-core machine; in requests of 100 partitions, after 2 s, and the
 * last no later. Fewer partitions than this go in one request (one round for the controller).
 */
export const PARTITIONS_PER_CREATE = 100;

/** `topics` in requests of at most `most` partitions, in order; a larger topic goes alone. */
export function createRequests(topics: readonly NewTopic[], most: number = PARTITIONS_PER_CREATE): NewTopic[][] {
  const requests: NewTopic[][] = [];
  let current: NewTopic[] = [];
  let partitions = 0;
  for (const topic of topics) {
    if (current.length > 0 && partitions + topic.partitions > most) {
      requests.push(current);
      current = [];
      partitions = 0;
    }
    current.push(topic);
    partitions += topic.partitions;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/** The topics a CreateTopics refused, by their error's type, as kafkajs reports them (KafkaJSAggregateError); undefined for another error. */
function refusedTopics(error: unknown): Map<string, string | undefined> | undefined {
  const errors = (error as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const refused = new Map<string, string | undefined>();
  for (const e of errors as { topic?: unknown; type?: unknown }[]) {
    if (typeof e?.topic !== 'string') return undefined;
    refused.set(e.topic, typeof e.type === 'string' ? e.type : undefined);
  }
  return refused;
}
