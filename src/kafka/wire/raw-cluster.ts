/**
 * kafkajs's private cluster object (`src/cluster`), behind the surface mirrorflow uses, for the
 * requests kafkajs's public API cannot make: topic ids (Metadata v12, metadata-v12.ts) and the
 * config sync (IncrementalAlterConfigs, incremental-alter-configs.ts) through a broker's
 * connections, and share groups at their coordinator (share-group-offsets.ts); admin offset commits (generation -1, no member id, as Java's
 * `Admin.alterConsumerGroupOffsets` commits for a group with no members; kafkajs's
 * `admin.setOffsets` joins the group as a consumer, a topic at a time, each join waiting
 * `group.initial.rebalance.delay.ms`); ListOffsets at each leader (../admin/topic-readiness.ts);
 * InitProducerId for the writer's idempotence; the exactly-once slots' InitProducerId,
 * AddPartitionsToTxn, EndTxn and Produce with a transactional id
 * (../transactions/kafkajs-transaction-port.ts); and Fetch of one partition from one offset,
 * without a consumer group (../consumer/kafkajs-range-reader.ts, what `mirrorflow verify` reads).
 *
 * The one way in is the Kafka instance's private factory (`private:Kafka:createCluster`), which
 * makes a cluster with the instance's brokers, TLS, SASL, socket factory and retry settings.
 * Nothing outside this file names a method of kafkajs's cluster or broker objects: the rest of
 * src/kafka gets a RawCluster, whose brokers are RawBrokers. `CLUSTER_METHODS` and
 * `BROKER_METHODS` list what is called, for tripwire.spec.ts; kafkajs 2.2.4 is pinned exactly.
 */
import type { Kafka } from 'kafkajs';
import type { ProduceResponse } from './produce-response';
import { untilOffered, type ApiVersionRanges, type ForwardedApi, type Offered } from './forwarded-apis';

/** A request in kafkajs's protocol shape, as a broker connection sends it (metadata-v12.ts, incremental-alter-configs.ts make ours). */
export interface KafkajsProtocolRequest<T> {
  readonly request: { readonly apiKey: number; readonly apiVersion: number; readonly apiName: string; encode(): Promise<{ readonly buffer: Buffer }> };
  readonly response: { decode(payload: Buffer): Promise<T>; parse(decoded: T): Promise<T> };
}

export interface KafkajsMetadata {
  readonly topicMetadata: readonly {
    readonly topic: string;
    readonly partitionMetadata: readonly { readonly partitionId: number; readonly leader: number }[];
  }[];
}

export interface OffsetCommitRequest {
  readonly groupId: string;
  readonly groupGenerationId: number;
  readonly memberId: string;
  /** OffsetCommit v2–v4 carry it; -1 = the broker's retention. */
  readonly retentionTime: number;
  readonly topics: readonly {
    readonly topic: string;
    readonly partitions: readonly { readonly partition: number; readonly offset: string; readonly metadata: string | null }[];
  }[];
}

/** Producer fields of a transactional request. */
interface TransactionalProducer {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
}

export interface RawProduceRequest extends TransactionalProducer {
  readonly acks: number;
  readonly timeout: number;
  readonly compression: number;
  /** Each partition's messages as ./produce-request.ts reads them (pushPartitionMessages). */
  readonly topicData: readonly { topic: string; partitions: readonly { partition: number; firstSequence: number; messages: readonly object[] }[] }[];
}

/** A Fetch of one or more partitions, each from its own offset, as kafkajs's Broker.fetch takes it. */
export interface RawFetchRequest {
  /** -1: a consumer. */
  readonly replicaId: number;
  /** 0 read_uncommitted, 1 read_committed. */
  readonly isolationLevel: number;
  readonly maxWaitTime: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly topics: readonly {
    readonly topic: string;
    readonly partitions: readonly { readonly partition: number; readonly fetchOffset: string; readonly maxBytes: number }[];
  }[];
}

/** A record as the fetch decoder (fetch-decoder.ts, record-decoder.ts) gives it on a connection that forwards nothing. */
export interface RawFetchedMessage {
  readonly offset: string;
  readonly timestamp: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly { readonly key: string; readonly value: Buffer | null }[];
  readonly isControlRecord?: boolean;
  readonly batchContext?: {
    readonly firstOffset?: string;
    readonly lastOffsetDelta?: number;
    readonly producerId?: string;
    readonly inTransaction?: boolean;
    readonly isControlBatch?: boolean;
  };
}

/** What kafkajs's Fetch v4–v11 responses decode to (a partition's error rejects the fetch instead). */
export interface RawFetchResponse {
  readonly responses: readonly {
    readonly topicName: string;
    readonly partitions: readonly {
      readonly partition: number;
      readonly highWatermark: string;
      readonly lastStableOffset: string;
      readonly abortedTransactions?: readonly { readonly producerId: string; readonly firstOffset: string }[];
      readonly messages: readonly RawFetchedMessage[];
    }[];
  }[];
}

/** What kafkajs's ListOffsets v1+ answers: per partition one offset, as a decimal string. */
export interface ListOffsetsResponse {
  readonly responses: readonly { readonly topic: string; readonly partitions: readonly { readonly partition: number; readonly offset: string }[] }[];
}

/** One broker of a RawCluster, connected as kafkajs connects it. Failures reject with kafkajs's errors (`type` names Kafka's). */
/** A DescribeConfigs answer as kafkajs decodes it (v1+: each entry's source). */
export interface DescribeConfigsResponse {
  readonly resources: readonly {
    readonly resourceName: string;
    readonly configEntries: readonly {
      readonly configName: string;
      readonly configValue: string | null;
      readonly isDefault: boolean;
      readonly readOnly: boolean;
      readonly isSensitive: boolean;
      readonly configSource?: number;
    }[];
  }[];
}

export interface RawBroker {
  /** The broker's node id; null for a bootstrap broker not yet known by its id. */
  readonly nodeId: number | null;
  /** The broker's API versions (from ApiVersions, once connected): per api key, the versions it takes. */
  readonly versions: Readonly<Record<number, { readonly minVersion: number; readonly maxVersion: number }>> | null;
  isConnected(): boolean;
  connect(): Promise<void>;
  /** Resolves once the broker says it takes `api` (asking it again for a while, see forwarded-apis.ts), or when the time is up. */
  untilOffered(api: ForwardedApi): Promise<Offered>;
  /** Sends a request in kafkajs's protocol shape through the broker's connections: ours, for APIs kafkajs does not have. */
  send<T>(request: KafkajsProtocolRequest<T>): Promise<T>;
  /** Metadata of these topics as this broker knows them; rejects when a topic or partition has an error. */
  metadata(topics: string[]): Promise<KafkajsMetadata>;
  /** ListOffsets at this broker (timestamp -1: the end, -2: the log start); rejects when a partition has an error. */
  listOffsets(request: {
    readonly isolationLevel: number;
    readonly topics: readonly { readonly topic: string; readonly partitions: readonly { readonly partition: number; readonly timestamp: number }[] }[];
  }): Promise<ListOffsetsResponse>;
  offsetCommit(request: OffsetCommitRequest): Promise<unknown>;
  /** DeleteRecords at this broker (the leader of the partitions asked); rejects when a partition has an error. */
  deleteRecords(request: {
    readonly topics: readonly { readonly topic: string; readonly partitions: readonly { readonly partition: number; readonly offset: string }[] }[];
  }): Promise<unknown>;
  /** InitProducerId: without a transactional id any broker answers; with one, its coordinator. The producer id comes as a decimal string. */
  initProducerId(request: {
    readonly transactionalId?: string;
    readonly transactionTimeout: number;
  }): Promise<{ readonly producerId: string; readonly producerEpoch: number }>;
  addPartitionsToTxn(request: TransactionalProducer & { readonly topics: readonly { topic: string; partitions: readonly number[] }[] }): Promise<unknown>;
  endTxn(request: TransactionalProducer & { readonly transactionResult: boolean }): Promise<unknown>;
  /** Produce through our request (./produce-request.ts); the answer per partition on a writer's connections (./connection-behaviour.ts). */
  produce(request: RawProduceRequest): Promise<ProduceResponse>;
  /** FindCoordinator asked of this broker alone (kafkajs's cluster asks every broker and keeps none of their refusals). */
  askCoordinator(key: string, type: CoordinatorType): Promise<unknown>;
  /** DescribeConfigs at this broker, in kafkajs's shape (any resource type; kafkajs's admin takes only those it knows). */
  describeConfigs(request: {
    readonly resources: readonly { readonly type: number; readonly name: string; readonly configNames?: readonly string[] | null }[];
    readonly includeSynonyms: boolean;
  }): Promise<DescribeConfigsResponse>;
  /** Fetch at this broker (the leader of the partitions asked); records decoded as the client's connections decode them. */
  fetch(request: RawFetchRequest): Promise<RawFetchResponse>;
}

/** kafkajs's cluster, as mirrorflow uses it. */
export interface RawCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** Loads the cluster's metadata now. */
  refreshMetadata(): Promise<void>;
  /** Loads the cluster's metadata unless kafkajs's copy is fresh (`metadataMaxAge`). */
  refreshMetadataIfNecessary(): Promise<void>;
  /** Adds topics to those whose metadata the cluster keeps, loading it when some are new. */
  addTargetTopics(topics: readonly string[]): Promise<void>;
  /** The broker `connect` connected first (undefined before): it may have lost its connection since. */
  seedBroker(): RawBroker | undefined;
  /** A broker that answers metadata: kafkajs's choice, the controller its metadata names (load that first). */
  anyBroker(): Promise<RawBroker>;
  /** The connected broker of this node id, as the metadata loaded names it. */
  broker(nodeId: number): Promise<RawBroker>;
  /** Per leader (node id), those of `partitions` it leads as the loaded metadata says; a partition the metadata does not know is left out. */
  leaders(topic: string, partitions: readonly number[]): Map<number, number[]>;
  /** The coordinator of a consumer group or of a transactional id, found with kafkajs's retries. */
  coordinator(key: string, type: CoordinatorType): Promise<RawBroker>;
}

/** What a coordinator coordinates: a consumer group, or a transactional id. */
export type CoordinatorType = 'group' | 'transaction';

/** The private factory's symbol description on a Kafka instance. */
export const CREATE_CLUSTER = 'private:Kafka:createCluster';

/** kafkajs's Cluster methods this file calls. */
export const CLUSTER_METHODS = [
  'connect',
  'disconnect',
  'refreshMetadata',
  'refreshMetadataIfNecessary',
  'addMultipleTargetTopics',
  'findControllerBroker',
  'findBroker',
  'findLeaderForPartitions',
  'findGroupCoordinator',
] as const satisfies readonly (keyof KafkajsCluster)[];

/** kafkajs's Broker methods this file calls (and `connectionPool.send`, `versions`). */
export const BROKER_METHODS = [
  'isConnected',
  'connect',
  'apiVersions',
  'metadata',
  'listOffsets',
  'offsetCommit',
  'deleteRecords',
  'initProducerId',
  'addPartitionsToTxn',
  'endTxn',
  'produce',
  'findGroupCoordinator',
  'fetch',
  'describeConfigs',
] as const satisfies readonly (keyof KafkajsBroker)[];

/** kafkajs's coordinator types (protocol/coordinatorTypes.js). */
const COORDINATOR_TYPES = { group: 0, transaction: 1 } as const;

/** A new, unconnected kafkajs cluster with the Kafka instance's settings; each call makes another. */
export function rawCluster(kafka: Kafka): RawCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === CREATE_CLUSTER);
  const factory = symbol === undefined ? undefined : (kafka as unknown as Record<symbol, unknown>)[symbol];
  if (typeof factory !== 'function') throw new Error(`kafkajs no longer has ${CREATE_CLUSTER}; the pinned kafkajs version changed.`);
  return new Cluster((factory as CreateCluster)({ allowAutoTopicCreation: false }));
}

/* kafkajs's own objects, as this file calls them (src/cluster/index.js, src/broker/index.js). */

type CreateCluster = (options: { allowAutoTopicCreation: boolean }) => KafkajsCluster;

interface KafkajsBroker extends Omit<RawBroker, 'send' | 'askCoordinator' | 'untilOffered' | 'versions'> {
  readonly versions: ApiVersionRanges | null;
  apiVersions(): Promise<ApiVersionRanges>;
  readonly connectionPool: { send<T>(request: KafkajsProtocolRequest<T>): Promise<T> };
  findGroupCoordinator(request: { readonly groupId: string; readonly coordinatorType: number }): Promise<unknown>;
}

interface KafkajsCluster {
  readonly brokerPool?: { readonly seedBroker?: KafkajsBroker };
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  refreshMetadata(): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  addMultipleTargetTopics(topics: readonly string[]): Promise<void>;
  findControllerBroker(): Promise<KafkajsBroker>;
  findBroker(request: { readonly nodeId: number }): Promise<KafkajsBroker>;
  /** Node id (an object key, so a string) → partitions. */
  findLeaderForPartitions(topic: string, partitions: readonly number[]): Record<string, number[]>;
  findGroupCoordinator(request: { readonly groupId: string; readonly coordinatorType: number }): Promise<KafkajsBroker>;
}

class Cluster implements RawCluster {
  constructor(private readonly cluster: KafkajsCluster) {}

  connect(): Promise<void> {
    return this.cluster.connect();
  }

  disconnect(): Promise<void> {
    return this.cluster.disconnect();
  }

  refreshMetadata(): Promise<void> {
    return this.cluster.refreshMetadata();
  }

  refreshMetadataIfNecessary(): Promise<void> {
    return this.cluster.refreshMetadataIfNecessary();
  }

  addTargetTopics(topics: readonly string[]): Promise<void> {
    return this.cluster.addMultipleTargetTopics(topics);
  }

  seedBroker(): RawBroker | undefined {
    const seed = this.cluster.brokerPool?.seedBroker;
    return seed === undefined ? undefined : new Broker(seed);
  }

  async anyBroker(): Promise<RawBroker> {
    return new Broker(await this.cluster.findControllerBroker());
  }

  async broker(nodeId: number): Promise<RawBroker> {
    return new Broker(await this.cluster.findBroker({ nodeId }));
  }

  leaders(topic: string, partitions: readonly number[]): Map<number, number[]> {
    const leaders = new Map<number, number[]>();
    for (const [nodeId, led] of Object.entries(this.cluster.findLeaderForPartitions(topic, partitions))) leaders.set(Number(nodeId), led);
    return leaders;
  }

  async coordinator(key: string, type: CoordinatorType): Promise<RawBroker> {
    return new Broker(await this.cluster.findGroupCoordinator({ groupId: key, coordinatorType: COORDINATOR_TYPES[type] }));
  }
}

class Broker implements RawBroker {
  constructor(private readonly broker: KafkajsBroker) {}

  get nodeId(): number | null {
    return this.broker.nodeId;
  }

  get versions(): RawBroker['versions'] {
    return this.broker.versions;
  }

  isConnected(): boolean {
    return this.broker.isConnected();
  }

  connect(): Promise<void> {
    return this.broker.connect();
  }

  untilOffered(api: ForwardedApi): Promise<Offered> {
    return untilOffered(this.broker, api);
  }

  send<T>(request: KafkajsProtocolRequest<T>): Promise<T> {
    return this.broker.connectionPool.send(request);
  }

  metadata(topics: string[]): Promise<KafkajsMetadata> {
    return this.broker.metadata(topics);
  }

  listOffsets(request: Parameters<RawBroker['listOffsets']>[0]): Promise<ListOffsetsResponse> {
    return this.broker.listOffsets(request);
  }

  offsetCommit(request: OffsetCommitRequest): Promise<unknown> {
    return this.broker.offsetCommit(request);
  }

  deleteRecords(request: Parameters<RawBroker['deleteRecords']>[0]): Promise<unknown> {
    return this.broker.deleteRecords(request);
  }

  initProducerId(request: Parameters<RawBroker['initProducerId']>[0]): ReturnType<RawBroker['initProducerId']> {
    return this.broker.initProducerId(request);
  }

  addPartitionsToTxn(request: Parameters<RawBroker['addPartitionsToTxn']>[0]): Promise<unknown> {
    return this.broker.addPartitionsToTxn(request);
  }

  endTxn(request: Parameters<RawBroker['endTxn']>[0]): Promise<unknown> {
    return this.broker.endTxn(request);
  }

  produce(request: RawProduceRequest): Promise<ProduceResponse> {
    return this.broker.produce(request);
  }

  askCoordinator(key: string, type: CoordinatorType): Promise<unknown> {
    return this.broker.findGroupCoordinator({ groupId: key, coordinatorType: COORDINATOR_TYPES[type] });
  }

  fetch(request: RawFetchRequest): Promise<RawFetchResponse> {
    return this.broker.fetch(request);
  }

  describeConfigs(request: Parameters<RawBroker['describeConfigs']>[0]): Promise<DescribeConfigsResponse> {
    return this.broker.describeConfigs(request);
  }
}
