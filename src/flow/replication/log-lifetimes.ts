import { topicPartitionKey, type FlowBatch, type TopicPartition } from '../../core/record';

/**
 * Per partition, how many times its source log restarted in this run (a topic recreated, a log
 * cut). Batches are stamped with it when fetched; one acknowledged after a restart belongs to the
 * old log and moves neither progress nor offset syncs of the new one.
 *
 * A partition reset because its topic id changed is also fenced until the source consumer is
 * restarted on the new topic: the old consumer may still hand over batches fetched at the old
 * position.
 */
export class LogLifetimes {
  private readonly lifetimes = new Map<string, number>();
  /** Only batches of a lifetime above 0: most partitions never restart. */
  private readonly stamps = new WeakMap<FlowBatch, number>();
  private readonly fenced = new Set<string>();

  /** A partition's lifetime, by `topicPartitionKey`. */
  of(key: string): number {
    return this.lifetimes.get(key) ?? 0;
  }

  /** The partition's log restarted: what was fetched before belongs to the old one. */
  restarted(key: string): void {
    this.lifetimes.set(key, this.of(key) + 1);
  }

  /** Stamps a batch fetched during `lifetime`. */
  stamp(lifetime: number, batch: FlowBatch): FlowBatch {
    if (lifetime > 0) this.stamps.set(batch, lifetime);
    return batch;
  }

  /** `to`, made from `from` (its schema ids translated, say), keeps `from`'s stamp. */
  carry(from: FlowBatch, to: FlowBatch): FlowBatch {
    const lifetime = this.stamps.get(from);
    if (lifetime !== undefined) this.stamps.set(to, lifetime);
    return to;
  }

  /** True when a batch was fetched from the partition's current log (no restart since). */
  current(batch: FlowBatch): boolean {
    return (this.stamps.get(batch) ?? 0) === this.of(topicPartitionKey(batch.source));
  }

  /** Runs `check` (which may restart logs, as a topic refresh finds recreated topics); the partitions restarted meanwhile are fenced. */
  async fenceRestarted(check: () => Promise<void>): Promise<void> {
    const before = new Map(this.lifetimes);
    await check();
    for (const [key, lifetime] of this.lifetimes) if (before.get(key) !== lifetime) this.fenced.add(key);
  }

  /** True for a batch fetched from a fenced partition: its log was found restarted after the fetch. */
  isFenced(tp: TopicPartition): boolean {
    return this.fenced.size > 0 && this.fenced.has(topicPartitionKey(tp));
  }

  /** The source consumer was restarted: what it fetches comes from the new logs. */
  unfence(): void {
    this.fenced.clear();
  }
}
