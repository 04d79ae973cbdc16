import type { ProducerIdentity, ProducerStamp } from '../producer/producer-sequences';
import type { PartitionAnswer, ProducePartition } from '../producer/produce-engine';

export type { PartitionAnswer } from '../producer/produce-engine';

/** One partition's part of a produce request: the stamp stands for its whole record batch. */
export interface TransactionalPartition extends Pick<ProducePartition, 'topic' | 'partition' | 'items'> {
  readonly stamp: ProducerStamp;
}

/**
 * The broker requests of a transactional producer (kafkajs-transaction-port.ts), so that the
 * transactions are specified against a fake broker. Failures reject with an error whose `type`
 * names Kafka's error, when the broker gave one.
 */
export interface TransactionPort {
  /** InitProducerId at the transactional id's coordinator (retrying while it is busy: CONCURRENT_TRANSACTIONS and the like). */
  initProducerId(transactionalId: string, transactionTimeoutMs: number): Promise<ProducerIdentity>;
  addPartitionsToTxn(
    transactionalId: string,
    identity: ProducerIdentity,
    partitions: readonly { topic: string; partitions: readonly number[] }[],
  ): Promise<void>;
  /** Produce requests (one per leader), acks=all, with the transactional id; every partition answered. */
  produce(transactionalId: string, identity: ProducerIdentity, partitions: readonly TransactionalPartition[]): Promise<PartitionAnswer[]>;
  endTxn(transactionalId: string, identity: ProducerIdentity, commit: boolean): Promise<void>;
  close(): Promise<void>;
}
