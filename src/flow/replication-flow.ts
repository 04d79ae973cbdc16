import {
  type Observable,
  type SchedulerLike,
  EMPTY,
  NEVER,
  catchError,
  concat,
  concatMap,
  defer,
  distinctUntilChanged,
  exhaustMap,
  filter,
  firstValueFrom,
  from,
  ignoreElements,
  map,
  merge,
  mergeMap,
  switchMap,
  takeUntil,
  tap,
  throwError,
  timer,
} from 'rxjs';
import type { ClusterAdmin, PartitionOffsets } from '../core/ports/cluster-admin';
import type { ForwardRecordBatches, RecordSource } from '../core/ports/record-source';
import type { OutboundItem, RecordWriter } from '../core/ports/record-writer';
import type { Logger } from '../core/ports/logger';
import type { FlowBatch, MirrorRecord, SourceBatch, TopicPartition } from '../core/record';
import { topicPartitionKey } from '../core/record';
import { describeError } from '../core/errors';
import { retryWithBackoff } from '../core/retry';
import { ByteBudget } from './flow-control';
import { FlowStatus } from './flow-status';
import { ProgressStore } from './progress-store';
import type { OffsetSyncEmitter } from './offset-sync-emitter';
import { TopicSync, sameTopics, type ReplicatedTopic } from './topic-sync';
import { SourceResets, type AutoOffsetReset } from './source-resets';
import { writeBatches, type BatchPolicy, type WrittenBatches } from './operators/write-batches';
import { withStopSignal } from './operators/with-stop-signal';

/** How long one answer about a topic's offsets serves partitions assigned together. */
const OFFSETS_REUSE_MS = 2_000;

export interface ReplicationFlowSettings {
  readonly source: string;
  readonly target: string;
  readonly groupId: string;
  readonly start: 'earliest' | 'latest';
  /** Where a source log that restarted below the held position is read from (MM2's `auto.offset.reset`). */
  readonly autoOffsetReset: AutoOffsetReset;
  readonly refreshIntervalMs: number;
  readonly flushIntervalMs: number;
  readonly batching: BatchPolicy;
  readonly maxInFlightBytes: number;
  /** Forward fetched record batches without decoding them; only for flows without transforms. */
  readonly forwardRecordBatches?: ForwardRecordBatches;
}

export interface ReplicationFlowParts {
  readonly settings: ReplicationFlowSettings;
  readonly sourceRecords: RecordSource;
  readonly sourceAdmin: ClusterAdmin;
  readonly writer: RecordWriter;
  readonly topicSync: TopicSync;
  readonly progress: ProgressStore;
  readonly offsetSyncEmitter: OffsetSyncEmitter | undefined;
  /** The replication policy's remote name for a source topic. */
  readonly remoteTopic: (sourceTopic: string) => string;
  /** The flow's transforms; the identity function when there are none. */
  readonly transform: (records: readonly MirrorRecord[]) => readonly MirrorRecord[];
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: FlowStatus;
}

/**
 * One direction of replication, MM2's MirrorSourceConnector:
 *
 *   topics (timer) ─► source(tp) ─► rename ─► transforms ─► batch ─► sink ─► commit
 *   flush (timer)  ─► progress topic + offset syncs
 *
 * A source offset counts as done only after the target acknowledged it (acks=all): progress and
 * offset syncs are taken from the sink's acknowledgement, never before it. Emitting `stop$` stops
 * fetching, drains what is in flight, stores progress and completes.
 */
export class ReplicationFlow {
  private readonly budget: ByteBudget;
  /** Next offset to read per partition, for partitions this process has fetched from. */
  private readonly positions = new Map<string, number>();
  private readonly remoteNames = new Map<string, string>();
  private readonly offsetsByTopic = new Map<string, Promise<readonly PartitionOffsets[]>>();
  /**
   * Per partition, how many times its source log restarted in this run. Batches are stamped with
   * it when fetched; one acknowledged after a restart belongs to the old log and moves neither
   * progress nor offset syncs of the new one.
   */
  private readonly lifetimes = new Map<string, number>();
  private readonly batchLifetimes = new WeakMap<FlowBatch, number>();
  /**
   * Partitions reset because their topic id changed, until the consumer is restarted on the new
   * topic: the old consumer may still hand over batches fetched at the old position.
   */
  private readonly fenced = new Set<string>();
  private readonly resets: SourceResets;

  constructor(private readonly parts: ReplicationFlowParts) {
    this.budget = new ByteBudget(parts.settings.maxInFlightBytes);
    parts.status.buffer = this.budget;
    this.resets = new SourceResets({
      sourceAdmin: parts.sourceAdmin,
      progress: parts.progress,
      status: parts.status,
      logger: parts.logger,
      autoOffsetReset: parts.settings.autoOffsetReset,
      position: (tp) => this.positions.get(topicPartitionKey(tp)),
      onReset: (tp, nextOffset) => {
        const key = topicPartitionKey(tp);
        this.positions.set(key, nextOffset);
        this.lifetimes.set(key, (this.lifetimes.get(key) ?? 0) + 1);
      },
    });
  }

  run(stop$: Observable<unknown>): Observable<never> {
    // Replayed: a stop asked for while progress is still loading must end the parts that
    // subscribe after loading, or the flow never completes.
    return withStopSignal(stop$, (stopped$) => this.replicate(stopped$.pipe(tap(() => (this.parts.status.state = 'draining')))));
  }

  private replicate(stopping$: Observable<void>): Observable<never> {
    const { parts } = this;
    const { settings, scheduler, logger, status } = parts;

    const init$ = concat(parts.progress.load(), parts.offsetSyncEmitter?.ensureTopic() ?? EMPTY).pipe(ignoreElements());

    const topics$ = timer(0, settings.refreshIntervalMs, scheduler).pipe(
      takeUntil(stopping$),
      exhaustMap(() =>
        parts.topicSync.refresh().pipe(
          // Before the subscription changes, so a recreated topic is read from its new start.
          concatMap((topics) => from(this.topicsSeen(topics)).pipe(map(() => topics))),
          catchError((error: unknown) => {
            logger.warn('Topic refresh failed; will retry at the next refresh.', { error: describeError(error) });
            return EMPTY;
          }),
        ),
      ),
      distinctUntilChanged(sameTopics),
      tap((topics) => {
        status.topics = topics.length;
        logger.info('Replicating topics.', { count: topics.length, topics: topics.slice(0, 20).map((t) => `${t.source}→${t.target}`) });
      }),
    );

    const batches$ = topics$.pipe(
      switchMap((topics: readonly ReplicatedTopic[]) => {
        // The previous consumer is unsubscribed by now: nothing it fetched comes any more.
        this.fenced.clear();
        return topics.length === 0
          ? NEVER
          : parts.sourceRecords.consume({
              topics: topics.map((t) => t.source),
              groupId: settings.groupId,
              startOffset: (tp) => this.startOffset(tp),
              onLogRestart: (tp, restart) => this.resets.logRestarted(tp, restart),
              flowControl: this.budget,
              ...(settings.forwardRecordBatches ? { forwardRecordBatches: settings.forwardRecordBatches } : {}),
            });
      }),
      takeUntil(stopping$),
    );

    const replication$ = batches$.pipe(
      filter((batch) => this.fresh(batch)),
      map((batch) => this.mirror(batch)),
      writeBatches(settings.batching, (records) => this.write(records), scheduler),
      mergeMap((written) => this.commit(written)),
    );

    const flushes$ = timer(settings.flushIntervalMs, settings.flushIntervalMs, scheduler).pipe(
      takeUntil(stopping$),
      exhaustMap(() => this.flush().pipe(catchError((error: unknown) => this.logFlushFailure(error)))),
    );

    return concat(
      init$,
      defer(() => {
        status.state = 'running';
        logger.info('Replication started.', { source: settings.source, target: settings.target });
        return merge(replication$, flushes$).pipe(ignoreElements());
      }),
      defer(() => this.flush()).pipe(ignoreElements()),
      defer(() => {
        status.state = 'stopped';
        logger.info('Replication stopped.', { records: status.recordsReplicated });
        return EMPTY;
      }),
    ).pipe(
      catchError((error: unknown) => {
        status.state = 'failed';
        // Keep what the target already acknowledged, then fail.
        return concat(this.flush().pipe(catchError(() => EMPTY), ignoreElements()), throwError(() => error));
      }),
    );
  }

  /** Checks the topics of a refresh for recreated ones; a recreated topic's partitions are fenced until the consumer restarts. */
  private async topicsSeen(topics: readonly ReplicatedTopic[]): Promise<void> {
    const before = new Map(this.lifetimes);
    await this.resets.topicsSeen(topics);
    for (const [key, lifetime] of this.lifetimes) if (before.get(key) !== lifetime) this.fenced.add(key);
  }

  /** False for a batch fetched from a partition whose log was found restarted after the fetch. */
  private fresh(batch: SourceBatch): boolean {
    if (!this.fenced.has(topicPartitionKey(batch))) return true;
    this.budget.release(batch.bytes);
    return false;
  }

  /** Where a newly assigned partition starts: our own position, stored progress, or `start`. */
  private async startOffset(tp: TopicPartition): Promise<number> {
    const key = topicPartitionKey(tp);
    const known = this.positions.get(key) ?? this.parts.progress.nextOffset(tp);
    if (known !== undefined) return known;
    const offsets = await this.topicOffsets(tp.topic);
    const partition = offsets.find((o) => o.partition === tp.partition);
    if (!partition) return 0;
    if (this.parts.settings.start === 'earliest') return partition.earliest;
    // Remember the starting point so a restart or another member does not skip past it; for an
    // empty partition that is MM2's offset -1 ("resume at 0").
    this.parts.progress.markReplicated(tp, partition.latest - 1);
    return partition.latest;
  }

  /**
   * A topic's offsets, shared by the partitions assigned together: a rebalance over a wide
   * topic asks the broker once per topic, not once per partition.
   */
  private topicOffsets(topic: string): Promise<readonly PartitionOffsets[]> {
    let pending = this.offsetsByTopic.get(topic);
    if (!pending) {
      pending = firstValueFrom(this.parts.sourceAdmin.partitionOffsets(topic));
      this.offsetsByTopic.set(topic, pending);
      const forget = (): void => void setTimeout(() => this.offsetsByTopic.delete(topic), OFFSETS_REUSE_MS).unref();
      pending.then(forget, forget);
    }
    return pending;
  }

  private mirror(batch: SourceBatch): FlowBatch {
    let remote = this.remoteNames.get(batch.topic);
    if (remote === undefined) {
      remote = this.parts.remoteTopic(batch.topic);
      this.remoteNames.set(batch.topic, remote);
    }
    const key = topicPartitionKey(batch);
    this.positions.set(key, batch.nextOffset);
    const lifetime = this.lifetimes.get(key) ?? 0;
    const first = batch.recordBatches?.[0]?.baseOffset ?? batch.records[0]?.offset ?? batch.nextOffset;
    this.parts.status.recordFetch(batch, first, batch.highWatermark);
    if (batch.recordBatches !== undefined) {
      // Whole record batches: the source only forwards them to flows without transforms.
      const target = remote;
      let sourceRecords = 0;
      for (const b of batch.recordBatches) sourceRecords += b.recordCount;
      return this.stamp(lifetime, {
        source: { topic: batch.topic, partition: batch.partition },
        records: [],
        recordBatches: batch.recordBatches.map((b) => ({ topic: target, partition: batch.partition, batch: b })),
        nextOffset: batch.nextOffset,
        highWatermark: batch.highWatermark,
        bytes: batch.bytes,
        sourceRecords,
      });
    }
    const records: MirrorRecord[] = new Array<MirrorRecord>(batch.records.length);
    for (let i = 0; i < batch.records.length; i++) {
      const r = batch.records[i]!;
      records[i] = {
        source: { topic: r.topic, partition: r.partition, offset: r.offset },
        topic: remote,
        partition: r.partition,
        timestamp: r.timestamp,
        key: r.key,
        value: r.value,
        headers: r.headers,
      };
    }
    return this.stamp(lifetime, {
      source: { topic: batch.topic, partition: batch.partition },
      records: this.parts.transform(records),
      nextOffset: batch.nextOffset,
      highWatermark: batch.highWatermark,
      bytes: batch.bytes,
      sourceRecords: batch.records.length,
    });
  }

  private stamp(lifetime: number, batch: FlowBatch): FlowBatch {
    if (lifetime > 0) this.batchLifetimes.set(batch, lifetime);
    return batch;
  }

  /** True when a batch was fetched from the partition's current log (no restart since). */
  private current(batch: FlowBatch): boolean {
    return (this.batchLifetimes.get(batch) ?? 0) === (this.lifetimes.get(topicPartitionKey(batch.source)) ?? 0);
  }

  private write(records: readonly OutboundItem[]): Observable<Float64Array> {
    const { logger } = this.parts;
    return this.parts.writer.write(records).pipe(
      retryWithBackoff({
        retries: Number.POSITIVE_INFINITY,
        initialDelayMs: 500,
        maxDelayMs: 30_000,
        factor: 2,
        jitter: 0.2,
        scheduler: this.parts.scheduler,
        onRetry: (error, attempt, delayMs) => logger.warn('Write to the target failed; retrying.', { error: describeError(error), attempt, delayMs }),
      }),
    );
  }

  /** After the target's acknowledgement: progress, offset syncs, flow control, status. */
  private commit(written: WrittenBatches): Observable<never> {
    const { progress, status } = this.parts;
    const emitter = this.parts.offsetSyncEmitter;
    let i = 0;
    for (const batch of written.batches) {
      if (!this.current(batch)) {
        // On the target as an extra copy of the old log; the new log's progress starts over.
        i += batch.recordBatches?.length ?? batch.records.length;
        this.budget.release(batch.bytes);
        continue;
      }
      if (batch.recordBatches !== undefined) {
        for (const { batch: whole } of batch.recordBatches) {
          const target = written.offsets[i++]!;
          if (emitter) for (let k = 0; k < whole.recordCount; k++) emitter.record(batch.source, whole.baseOffset + k, target + k);
        }
      } else if (emitter) {
        for (const record of batch.records) emitter.record(batch.source, record.source.offset, written.offsets[i++]!);
      } else {
        i += batch.records.length;
      }
      progress.markReplicated(batch.source, batch.nextOffset - 1);
      this.budget.release(batch.bytes);
    }
    status.recordWrite(written.batches, Date.now());
    if (!emitter) return EMPTY;
    return emitter.emitPending().pipe(
      ignoreElements(),
      catchError((error: unknown) => {
        this.parts.logger.warn('Writing offset syncs failed.', { error: describeError(error) });
        return EMPTY;
      }),
    );
  }

  private flush(): Observable<void> {
    const emitter = this.parts.offsetSyncEmitter;
    return concat(this.parts.progress.flush(), emitter ? emitter.flush() : EMPTY);
  }

  private logFlushFailure(error: unknown): Observable<never> {
    this.parts.logger.warn('Storing progress failed; will retry at the next flush.', { error: describeError(error) });
    return EMPTY;
  }
}
