/**
 * Where the replicas of a cluster's partitions stand, as an operator reads it (`kafka-topics
 * --describe`: leader, replicas, ISR), through a kafkajs admin: tests of clusters of several
 * brokers await a node back in every ISR before they take the next one away, the condition a
 * rolling restart waits for in production.
 */
import { Kafka, logLevel, type Admin } from '../../src/kafka/kafkajs';
import { waitFor } from './wait-for';

export interface PartitionReplicas {
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

export class ReplicaState {
  private readonly admin: Admin;
  private connected: Promise<void> | undefined;

  /** `bootstrap`: every broker of the cluster, comma-separated (any one that answers will do). */
  constructor(bootstrap: string) {
    this.admin = new Kafka({ clientId: 'mirrorflow-test-replicas', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 2 } }).admin();
  }

  /** Every partition of every topic (internal ones included), or of `topics`. */
  async partitions(topics?: readonly string[]): Promise<PartitionReplicas[]> {
    this.connected ??= this.admin.connect();
    await this.connected;
    const names = topics ?? (await this.admin.listTopics());
    const { topics: described } = await this.admin.fetchTopicMetadata({ topics: [...names] });
    return described.flatMap((topic) =>
      topic.partitions.map((p) => ({ topic: topic.name, partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr })),
    );
  }

  /** Partitions that have `nodeId` among their replicas but not in their ISR (`topic/partition`). */
  async outOfSync(nodeId: number, topics?: readonly string[]): Promise<string[]> {
    return (await this.partitions(topics)).filter((p) => p.replicas.includes(nodeId) && !p.isr.includes(nodeId)).map((p) => `${p.topic}/${p.partition}`);
  }

  /** Waits until `nodeId` is in the ISR of every partition it is a replica of. */
  async waitInSync(nodeId: number, options: { topics?: readonly string[]; timeoutMs?: number } = {}): Promise<void> {
    let behind: string[] = [];
    try {
      await waitFor(
        async () => {
          behind = await this.outOfSync(nodeId, options.topics);
          return behind.length === 0;
        },
        { what: `node ${nodeId} back in the ISR of every partition`, timeoutMs: options.timeoutMs ?? 120_000, intervalMs: 500 },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; still out of sync: ${behind.slice(0, 10).join(', ')}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.connected !== undefined) await this.admin.disconnect();
  }
}
