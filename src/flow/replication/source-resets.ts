import { firstValueFrom } from '#rxjs';
import type { ClusterAdmin, PartitionOffsets } from '../../core/ports/cluster-admin';
import type { FetchGap, LogRestart } from '../../core/ports/record-source';
import type { Logger } from '../../core/ports/logger';
import { topicPartitionKey, type TopicPartition } from '../../core/record';
import type { FlowStatus } from '../status/flow-status';

/** Where a restarted source log is read from: MM2's consumer `auto.offset.reset`. */
export type AutoOffsetReset = 'earliest' | 'latest';

/** A source topic as the flow's topic refresh saw it. */
export interface SeenTopic {
  readonly source: string;
  /** Kafka's topic id (Kafka 2.8+); absent when the cluster does not give one. */
  readonly topicId?: string;
}

/** The part of ProgressStore a reset moves. */
export interface ResettableProgress {
  nextOffset(tp: TopicPartition): number | undefined;
  rewind(tp: TopicPartition, nextOffset: number): void;
}

export interface SourceResetsOptions {
  readonly sourceAdmin: ClusterAdmin;
  readonly progress: ResettableProgress;
  readonly status: FlowStatus;
  readonly logger: Logger;
  readonly autoOffsetReset: AutoOffsetReset;
  /** The flow's next offset for a partition it has fetched from in this run. */
  readonly position: (tp: TopicPartition) => number | undefined;
  /** A reset was decided: the flow moves its position and stops trusting batches of the old log. */
  readonly onReset: (tp: TopicPartition, nextOffset: number) => void;
}

type Reason = 'log-end-below-position' | 'topic-id-changed';

/**
 * Notices that a source partition's log started over below the position the flow holds for it,
 * and moves the flow to the new log as MM2's consumer would (`auto.offset.reset`, earliest by
 * default) instead of skipping records or seeking past the end forever:
 *
 * - the log ends before the held position (a topic recreated shorter, a log cut): reported by
 *   the source from a fetch's high watermark, also after a restart of mirrorflow;
 * - the topic's id changed between two topic refreshes (recreated, whatever its length now).
 *
 * Progress then goes backwards, the one case where it may (ProgressStore.rewind). Each reset is
 * logged as a warning and counted in the flow status.
 *
 * It also tells records that expired unread from the other gaps a fetch may begin after: when
 * the log's start passed the position the flow held (retention, DeleteRecords; kafkajs's consumer
 * then goes on from the log's start), the records between were never copied, and are said so.
 */
export class SourceResets {
  /** Topic ids as first seen (kept when a topic disappears, so its return is compared). */
  private readonly topicIds = new Map<string, string>();
  /** Per partition, the offset up to which expired records were told about (a gap fetched twice counts once). */
  private readonly expiredUpTo = new Map<string, number>();
  /** Per partition, the last expiry check: checks of one partition run one after another. */
  private readonly expiryChecks = new Map<string, Promise<void>>();

  constructor(private readonly options: SourceResetsOptions) {}

  /**
   * The source fetched a log that ends before the expected position; resolves with the offset to
   * read next. A restart already handled (the flow's position is inside the log) is not counted
   * again.
   */
  async logRestarted(tp: TopicPartition, restart: LogRestart): Promise<number> {
    const held = this.held(tp);
    if (held !== undefined && held <= restart.logEnd) return held;
    const offsets = (await firstValueFrom(this.options.sourceAdmin.partitionOffsets(tp.topic))).find((o) => o.partition === tp.partition);
    // The log as just fetched, should the topic be gone again already.
    const log = offsets ?? { partition: tp.partition, earliest: 0, latest: restart.logEnd };
    const topicId = await this.currentTopicId(tp.topic);
    const again = this.held(tp);
    if (again !== undefined && again <= log.latest) return again;
    // Recorded now, so the next topic refresh does not count this restart a second time.
    const previousTopicId = this.topicIds.get(tp.topic);
    if (topicId !== undefined) this.topicIds.set(tp.topic, topicId);
    return this.reset(tp, restart.expected, log, 'log-end-below-position', {
      ...(previousTopicId !== undefined && previousTopicId !== topicId ? { previousTopicId } : {}),
      ...(topicId === undefined ? {} : { topicId }),
    });
  }

  /**
   * After a topic refresh: records the ids of topics seen for the first time, and resets every
   * held partition of a topic whose id changed (confirmed by asking again). The new id is
   * recorded together with the resets, so a refresh that fails midway compares again next time.
   */
  async topicsSeen(topics: readonly SeenTopic[]): Promise<void> {
    for (const topic of topics) {
      if (topic.topicId === undefined) continue;
      const seen = this.topicIds.get(topic.source);
      if (seen === undefined) this.topicIds.set(topic.source, topic.topicId);
      if (seen === undefined || seen === topic.topicId) continue;
      // Asked again: the refresh's answer may predate a restart the source reported meanwhile.
      const topicId = await this.currentTopicId(topic.source);
      const offsets = await firstValueFrom(this.options.sourceAdmin.partitionOffsets(topic.source));
      const previousTopicId = this.topicIds.get(topic.source);
      if (topicId === undefined || previousTopicId === undefined || topicId === previousTopicId) continue;
      this.topicIds.set(topic.source, topicId);
      for (const log of offsets) {
        const tp = { topic: topic.source, partition: log.partition };
        const held = this.held(tp);
        if (held === undefined) continue;
        this.reset(tp, held, log, 'topic-id-changed', { previousTopicId, topicId });
      }
    }
  }

  /**
   * A fetch began past the expected offset. When the log's start has moved past the expected
   * offset, the records before it were removed before they were copied: a warning names the
   * partition and the offsets, and they count as expired. Compaction holes, aborted records and
   * transaction markers lie inside the log, and are not.
   */
  fetchedPast(tp: TopicPartition, gap: FetchGap): Promise<void> {
    const key = topicPartitionKey(tp);
    const check = (this.expiryChecks.get(key) ?? Promise.resolve()).then(() => this.checkExpired(tp, gap));
    this.expiryChecks.set(
      key,
      check.catch(() => undefined),
    );
    return check;
  }

  private async checkExpired(tp: TopicPartition, gap: FetchGap): Promise<void> {
    const key = topicPartitionKey(tp);
    const from = Math.max(gap.expected, this.expiredUpTo.get(key) ?? 0);
    if (from >= gap.firstOffset) return;
    const log = (await firstValueFrom(this.options.sourceAdmin.partitionOffsets(tp.topic))).find((o) => o.partition === tp.partition);
    if (log === undefined || log.earliest <= from) return;
    const to = Math.min(log.earliest, gap.firstOffset);
    this.expiredUpTo.set(key, to);
    this.options.logger.warn('Source records were removed before they were copied (retention or DeleteRecords); replication goes on after them.', {
      topic: tp.topic,
      partition: tp.partition,
      fromOffset: from,
      toOffset: to - 1,
      records: to - from,
      logStart: log.earliest,
    });
    this.options.status.recordExpired(to - from);
  }

  /** The topic's id now; undefined when the source gives none, the topic is gone, or asking failed (a reset goes on without it). */
  private async currentTopicId(topic: string): Promise<string | undefined> {
    try {
      return (await firstValueFrom(this.options.sourceAdmin.topicIds([topic]))).get(topic);
    } catch {
      return undefined;
    }
  }

  /** The position the flow holds for a partition: fetched this run, or stored progress. */
  private held(tp: TopicPartition): number | undefined {
    return this.options.position(tp) ?? this.options.progress.nextOffset(tp);
  }

  private reset(tp: TopicPartition, storedOffset: number, log: PartitionOffsets, reason: Reason, ids: { topicId?: string; previousTopicId?: string }): number {
    const { autoOffsetReset, logger, status, progress } = this.options;
    const resumeAt = autoOffsetReset === 'earliest' ? log.earliest : log.latest;
    logger.warn('Source partition restarted below the stored position; resuming from the new log.', {
      topic: tp.topic,
      partition: tp.partition,
      storedOffset,
      logStart: log.earliest,
      logEnd: log.latest,
      resumeAt,
      autoOffsetReset,
      reason,
      ...ids,
    });
    status.recordSourceReset(tp, resumeAt, log.latest);
    // A new log: its offsets start over, and what expired of the old one says nothing about it.
    this.expiredUpTo.delete(topicPartitionKey(tp));
    progress.rewind(tp, resumeAt);
    this.options.onReset(tp, resumeAt);
    return resumeAt;
  }
}
