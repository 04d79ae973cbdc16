/**
 * kafkajs's internal cluster object (`src/cluster`), reached through the Kafka instance's private
 * factory, for the requests kafkajs's public API cannot make. Metadata v12 (topic ids; see
 * wire/metadata-v12.ts) goes through a broker's connection pool. And an OffsetCommit as an admin
 * (generation -1, no member id), which is how Java's `Admin.alterConsumerGroupOffsets` commits
 * for a group with no members. kafkajs's own `admin.setOffsets` instead joins the group as a
 * consumer, one topic at a time, each join waiting `group.initial.rebalance.delay.ms` (3 s by
 * default) — too slow for syncing many groups every interval. And InitProducerId, for the
 * writer's own idempotence (idempotence.ts). kafkajs 2.2.4 is pinned exactly.
 */
import type { Kafka } from './kafkajs';

export interface KafkajsOffsetCommitRequest {
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

export interface KafkajsBroker {
  offsetCommit(request: KafkajsOffsetCommitRequest): Promise<unknown>;
}

/** A request in kafkajs's protocol shape, as a broker connection sends it. */
export interface KafkajsProtocolRequest<T> {
  readonly request: { readonly apiKey: number; readonly apiVersion: number; readonly apiName: string; encode(): Promise<{ readonly buffer: Buffer }> };
  readonly response: { decode(payload: Buffer): Promise<T>; parse(decoded: T): Promise<T> };
}

/** A connected broker's versions (from ApiVersions) and its connections. */
export interface KafkajsRawBroker {
  readonly versions: Readonly<Record<number, { readonly minVersion: number; readonly maxVersion: number }>> | null;
  readonly connectionPool: { send<T>(request: KafkajsProtocolRequest<T>): Promise<T> };
  /** InitProducerId (no transactional id: any broker answers); the producer id as a decimal string. */
  initProducerId(request: { readonly transactionTimeout: number }): Promise<{ readonly producerId: string; readonly producerEpoch: number }>;
  /** Metadata of these topics as this broker knows them; rejects when a topic or partition has an error. */
  metadata(topics: string[]): Promise<KafkajsMetadata>;
  /** ListOffsets at this broker (timestamp -1: the end); rejects when a partition has an error. */
  listOffsets(request: {
    readonly isolationLevel: number;
    readonly topics: readonly { readonly topic: string; readonly partitions: readonly { readonly partition: number; readonly timestamp: number }[] }[];
  }): Promise<unknown>;
}

export interface KafkajsMetadata {
  readonly topicMetadata: readonly {
    readonly topic: string;
    readonly partitionMetadata: readonly { readonly partitionId: number; readonly leader: number }[];
  }[];
}

export interface KafkajsCluster {
  /** kafkajs's broker pool: its seed broker is the first connected, by `connect`. */
  readonly brokerPool?: { readonly seedBroker?: KafkajsRawBroker & { isConnected(): boolean; connect(): Promise<void> } };
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinator(request: { groupId: string }): Promise<KafkajsBroker>;
  /** Loads the cluster's metadata unless kafkajs's copy is fresh (`metadataMaxAge`). */
  refreshMetadataIfNecessary(): Promise<void>;
  /** A broker that answers metadata (kafkajs's choice: the controller its metadata names; load that first). */
  findControllerBroker(): Promise<KafkajsRawBroker>;
  /** The connected broker of this node id, as the metadata loaded names it. */
  findBroker(request: { readonly nodeId: number }): Promise<KafkajsRawBroker>;
}

type CreateCluster = (options: { allowAutoTopicCreation: boolean }) => KafkajsCluster;

const CREATE_CLUSTER = 'private:Kafka:createCluster';

/** A new, unconnected kafkajs cluster with the Kafka instance's brokers, TLS, SASL and retry settings. */
export function createKafkajsCluster(kafka: Kafka): KafkajsCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === CREATE_CLUSTER);
  const factory = symbol === undefined ? undefined : (kafka as unknown as Record<symbol, unknown>)[symbol];
  if (typeof factory !== 'function') {
    throw new Error(`kafkajs no longer has ${CREATE_CLUSTER}; the pinned kafkajs version changed.`);
  }
  return (factory as CreateCluster)({ allowAutoTopicCreation: false });
}
