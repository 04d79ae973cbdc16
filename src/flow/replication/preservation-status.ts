import { topicPartitionKey, type TopicPartition } from '../../core/record';

/** One partition of a flow with `offsets: preserve`: held at the source's offsets, or fallen back. */
export type PartitionPreservation =
  | { readonly topic: string; readonly partition: number; readonly preserved: true; readonly since: number }
  | {
      readonly topic: string;
      readonly partition: number;
      readonly preserved: false;
      readonly reason: string;
      /** The source offset from which the partition is replicated ordinarily (offsets translated through offset syncs). */
      readonly fromOffset: number;
      readonly at: number;
    };

/** What a flow's `/status` and metrics say about offset preservation. */
export class PreservationStatus {
  private readonly partitions = new Map<string, PartitionPreservation>();
  /** Partitions that fell back in this run (a fallback found again after a restart is not counted twice). */
  fallbacks = 0;

  preserved(tp: TopicPartition, since: number): void {
    this.partitions.set(topicPartitionKey(tp), { topic: tp.topic, partition: tp.partition, preserved: true, since });
  }

  fellBack(tp: TopicPartition, reason: string, fromOffset: number, at: number, counted: boolean): void {
    this.partitions.set(topicPartitionKey(tp), { topic: tp.topic, partition: tp.partition, preserved: false, reason, fromOffset, at });
    if (counted) this.fallbacks++;
  }

  get(tp: TopicPartition): PartitionPreservation | undefined {
    return this.partitions.get(topicPartitionKey(tp));
  }

  /** Every partition known, fallbacks first, then by topic and partition. */
  values(): PartitionPreservation[] {
    return [...this.partitions.values()].sort(
      (a, b) => Number(a.preserved) - Number(b.preserved) || a.topic.localeCompare(b.topic) || a.partition - b.partition,
    );
  }
}
