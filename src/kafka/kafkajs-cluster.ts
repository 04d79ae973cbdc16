/**
 * kafkajs's internal cluster object (`src/cluster`), reached through the Kafka instance's private
 * factory, for the one request kafkajs's public API cannot make: an OffsetCommit as an admin
 * (generation -1, no member id), which is how Java's `Admin.alterConsumerGroupOffsets` commits
 * for a group with no members. kafkajs's own `admin.setOffsets` instead joins the group as a
 * consumer, one topic at a time, each join waiting `group.initial.rebalance.delay.ms` (3 s by
 * default) — too slow for syncing many groups every interval. kafkajs 2.2.4 is pinned exactly.
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

export interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinator(request: { groupId: string }): Promise<KafkajsBroker>;
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
