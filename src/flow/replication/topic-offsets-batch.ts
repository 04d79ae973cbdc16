import { firstValueFrom, type SchedulerLike } from 'rxjs';
import type { ClusterAdmin, PartitionOffsets } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { describeError } from '../../core/errors';

interface Waiting {
  readonly resolve: (offsets: readonly PartitionOffsets[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Topics' partition offsets, asked for together: the topics asked for until the scheduler's
 * next turn (every partition of an assignment asks at once) go to the cluster in one round
 * (`partitionOffsetsOf`). A topic that round leaves out, or every topic of a round that failed,
 * is asked about alone, so its own error reaches its partitions. Read one topic at a time, a
 * start of 1,000 topics took minutes and outlasted the group's rebalance timeout.
 */
export class TopicOffsetsBatch {
  private pending: Map<string, Waiting[]> | undefined;

  constructor(
    private readonly parts: {
      readonly admin: Pick<ClusterAdmin, 'partitionOffsets' | 'partitionOffsetsOf'>;
      readonly scheduler: SchedulerLike;
      readonly logger: Logger;
    },
  ) {}

  /** The offsets of every partition of `topic`, partitions in order. */
  read(topic: string): Promise<readonly PartitionOffsets[]> {
    return new Promise((resolve, reject) => {
      if (this.pending === undefined) {
        const batch = new Map<string, Waiting[]>();
        this.pending = batch;
        this.parts.scheduler.schedule(() => {
          if (this.pending === batch) this.pending = undefined;
          this.ask(batch).catch(() => undefined); // it settles every waiter itself and never rejects
        });
      }
      const waiting = this.pending.get(topic);
      if (waiting === undefined) this.pending.set(topic, [{ resolve, reject }]);
      else waiting.push({ resolve, reject });
    });
  }

  private async ask(batch: ReadonlyMap<string, readonly Waiting[]>): Promise<void> {
    const topics = [...batch.keys()];
    let answered: ReadonlyMap<string, readonly PartitionOffsets[]> = new Map();
    if (topics.length > 1) {
      try {
        answered = await firstValueFrom(this.parts.admin.partitionOffsetsOf(topics));
      } catch (error) {
        // Each topic is asked about alone next, and a failure that is a topic's own reaches its partitions.
        this.parts.logger.debug('Reading the offsets of many topics at once failed; each topic is asked about alone.', {
          topics: topics.length,
          error: describeError(error),
        });
      }
    }
    await Promise.all(
      [...batch].map(async ([topic, waiting]) => {
        try {
          const offsets = answered.get(topic) ?? (await firstValueFrom(this.parts.admin.partitionOffsets(topic)));
          for (const w of waiting) w.resolve(offsets);
        } catch (error) {
          for (const w of waiting) w.reject(error);
        }
      }),
    );
  }
}
