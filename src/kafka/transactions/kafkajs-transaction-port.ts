/**
 * The broker requests of the exactly-once writer (slot-transactions.ts) through kafkajs 2.2.4's
 * internal cluster (../wire/raw-cluster.ts): the transaction coordinator of a transactional id,
 * InitProducerId, AddPartitionsToTxn and EndTxn there, and Produce at each partition's leader
 * through our produce request
 * (../wire/produce-request.ts: the partition's producer fields and the transactional bit). The busy
 * answers are asked again, as kafkajs's own eosManager and Java's TransactionManager do. Produce
 * answers come per partition because `kafka` is made with a writer's connection behaviour
 * (../wire/connection-behaviour.ts, as KafkajsClients makes it).
 */
import type { Kafka } from '../kafkajs';
import type { Compression } from '../../core/ports/record-writer';
import type { ProducerIdentity } from '../producer/producer-sequences';
import { pushPartitionMessages } from '../wire/produce-request';
import { rawCluster, type RawBroker, type RawCluster } from '../wire/raw-cluster';
import { COMPRESSION_CODES } from '../compression-codes';
import type { PartitionAnswer, TransactionalPartition, TransactionPort } from './transaction-port';

/** Answers after which the same request goes again (after finding the coordinator again, for the last three). */
const BUSY = new Set([
  'CONCURRENT_TRANSACTIONS',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'GROUP_LOAD_IN_PROGRESS',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'COORDINATOR_NOT_AVAILABLE',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR',
  'NOT_COORDINATOR_FOR_GROUP',
]);
const BUSY_ATTEMPTS = 40;

export class KafkajsTransactionPort implements TransactionPort {
  private connected: Promise<RawCluster> | undefined;
  /** Each transactional id's coordinator, found once and again only after a request there failed. */
  private readonly coordinators = new Map<string, Promise<RawBroker>>();

  constructor(
    private readonly kafka: Kafka,
    private readonly compression: Compression,
    private readonly timeoutMs = 30_000,
  ) {}

  async initProducerId(transactionalId: string, transactionTimeoutMs: number): Promise<ProducerIdentity> {
    const result = await this.atCoordinator(transactionalId, (broker) => broker.initProducerId({ transactionalId, transactionTimeout: transactionTimeoutMs }));
    return { producerId: Number(result.producerId), producerEpoch: result.producerEpoch };
  }

  async addPartitionsToTxn(
    transactionalId: string,
    identity: ProducerIdentity,
    topics: readonly { topic: string; partitions: readonly number[] }[],
  ): Promise<void> {
    await this.atCoordinator(transactionalId, (broker) => broker.addPartitionsToTxn({ transactionalId, ...identity, topics }));
  }

  async endTxn(transactionalId: string, identity: ProducerIdentity, commit: boolean): Promise<void> {
    await this.atCoordinator(transactionalId, (broker) => broker.endTxn({ transactionalId, ...identity, transactionResult: commit }));
  }

  async produce(transactionalId: string, identity: ProducerIdentity, partitions: readonly TransactionalPartition[]): Promise<PartitionAnswer[]> {
    const cluster = await this.cluster();
    const topics = [...new Set(partitions.map((p) => p.topic))];
    try {
      await cluster.addTargetTopics(topics);
      const byLeader = new Map<number, TransactionalPartition[]>();
      for (const topic of topics) {
        const mine = partitions.filter((p) => p.topic === topic);
        const leaders = cluster.leaders(
          topic,
          mine.map((p) => p.partition),
        );
        for (const [leader, ids] of leaders) {
          const list = byLeader.get(leader) ?? [];
          list.push(...mine.filter((p) => ids.includes(p.partition)));
          byLeader.set(leader, list);
        }
      }
      const answers = await Promise.all(
        [...byLeader].map(async ([nodeId, parts]) => {
          const broker = await cluster.broker(nodeId);
          // The port's connections report each partition's answer (../wire/connection-behaviour.ts).
          const response = await broker.produce({
            transactionalId,
            ...identity,
            acks: -1,
            timeout: this.timeoutMs,
            compression: COMPRESSION_CODES[this.compression],
            topicData: topicData(parts),
          });
          return response.topics.flatMap((t) =>
            t.partitions.map((p) => ({ topic: t.topicName, partition: p.partition, errorCode: p.errorCode, baseOffset: Number(p.baseOffset) })),
          );
        }),
      );
      return answers.flat();
    } catch (error) {
      // A leader moved, or a partition is new: the next try asks where they are now.
      await cluster.refreshMetadata().catch(() => undefined); // best effort: the send's error is thrown, and the retry refreshes again
      throw error;
    }
  }

  async close(): Promise<void> {
    const connected = this.connected;
    this.connected = undefined;
    this.coordinators.clear();
    // A connect that failed was reported to its caller; a disconnect that fails leaves nothing to close.
    if (connected) await (await connected.catch(() => undefined))?.disconnect().catch(() => undefined);
  }

  private cluster(): Promise<RawCluster> {
    this.connected ??= (async () => {
      const cluster = rawCluster(this.kafka);
      await cluster.connect();
      return cluster;
    })();
    const connected = this.connected;
    connected.catch(() => {
      if (this.connected === connected) this.connected = undefined;
    });
    return connected;
  }

  /** A request at the transactional id's coordinator, found again and asked again while busy. */
  private async atCoordinator<T>(transactionalId: string, request: (broker: RawBroker) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const cluster = await this.cluster();
      let coordinator = this.coordinators.get(transactionalId);
      if (coordinator === undefined) {
        coordinator = findCoordinator(cluster, transactionalId);
        this.coordinators.set(transactionalId, coordinator);
      }
      try {
        return await request(await coordinator);
      } catch (error) {
        // The coordinator may have moved (or the connection broke): found again next time.
        if (this.coordinators.get(transactionalId) === coordinator) this.coordinators.delete(transactionalId);
        const type = (error as { type?: unknown }).type;
        if (attempt >= BUSY_ATTEMPTS || typeof type !== 'string' || !BUSY.has(type)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(20 * 2 ** (attempt - 1), 1_000)));
      }
    }
  }
}

/**
 * The transaction coordinator of `transactionalId`. kafkajs 2.2.4 drops every broker's answer to
 * FindCoordinator and says only "not found", which reads as a coordinator not elected yet (and is
 * retried as an outage); when it does, one broker is asked again directly, so that a refusal
 * (TRANSACTIONAL_ID_AUTHORIZATION_FAILED: no DESCRIBE on the transactional id) is told as it is.
 */
async function findCoordinator(cluster: RawCluster, transactionalId: string): Promise<RawBroker> {
  try {
    return await cluster.coordinator(transactionalId, 'transaction');
  } catch (error) {
    if ((error as { name?: unknown }).name !== 'KafkaJSGroupCoordinatorNotFound') throw error;
    const broker = await cluster.anyBroker().catch(() => undefined); // none reachable: the retry's error tells
    await broker?.askCoordinator(transactionalId, 'transaction').catch((refusal: unknown) => {
      if (/_AUTHORIZATION_FAILED$/.test(String((refusal as { type?: unknown }).type))) throw refusal;
    });
    throw error;
  }
}

/** The produce request's topic data: each partition's first message carries its producer fields. */
function topicData(parts: readonly TransactionalPartition[]) {
  const byTopic = new Map<string, { partition: number; firstSequence: number; messages: object[] }[]>();
  for (const part of parts) {
    const messages: object[] = [];
    pushPartitionMessages(messages, part.partition, part.items, part.stamp);
    const list = byTopic.get(part.topic) ?? [];
    list.push({ partition: part.partition, firstSequence: part.stamp.baseSequence, messages });
    byTopic.set(part.topic, list);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}
