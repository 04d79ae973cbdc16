import {
  type MonoTypeOperatorFunction,
  type Observable,
  type SchedulerLike,
  EMPTY,
  NEVER,
  catchError,
  concat,
  defer,
  distinctUntilChanged,
  exhaustMap,
  firstValueFrom,
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
import { describeError, isRetriable } from '../core/errors';
import { ByteBudget } from './flow-control';
import { FlowStatus } from './flow-status';
import { ProgressStore } from './progress-store';
import type { OffsetSyncEmitter } from './offset-sync-emitter';
import { TopicSync, sameTopics, type ReplicatedTopic } from './topic-sync';
import { writeBatches, type BatchPolicy, type WrittenBatches } from './operators/write-batches';
import { withStopSignal } from './operators/with-stop-signal';
import { retryThroughOutage } from './operators/retry-through-outage';
import type { OutageTracker } from './outage-status';

/** How long one answer about a topic's offsets serves partitions assigned together. */
const OFFSETS_REUSE_MS = 2_000;

export interface ReplicationFlowSettings {
  readonly source: string;
  readonly target: string;
  readonly groupId: string;
  readonly start: 'earliest' | 'latest';
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
  /** Every cluster operation of the flow retries through outages, reported on the flow status. */
  private readonly outages: {
    readonly loading: OutageTracker;
    readonly topics: OutageTracker;
    readonly reading: OutageTracker;
    readonly writing: OutageTracker;
    readonly progress: OutageTracker;
    readonly offsetSyncs: OutageTracker | undefined;
  };

  constructor(private readonly parts: ReplicationFlowParts) {
    this.budget = new ByteBudget(parts.settings.maxInFlightBytes);
    parts.status.buffer = this.budget;
    const { source, target } = parts.settings;
    const track = (cluster: string, operation: string): OutageTracker =>
      parts.status.outages.tracker(cluster, operation, parts.logger, () => parts.scheduler.now());
    const emitter = parts.offsetSyncEmitter;
    this.outages = {
      loading: track(target, 'loading progress'),
      topics: track(source, 'syncing topics'),
      reading: track(source, 'reading records'),
      writing: track(target, 'writing records'),
      progress: track(target, 'storing progress'),
      offsetSyncs: emitter === undefined ? undefined : track(emitter.cluster, 'writing offset syncs'),
    };
  }

  private retrying<T>(tracker: OutageTracker): MonoTypeOperatorFunction<T> {
    return retryThroughOutage<T>({ tracker, scheduler: this.parts.scheduler });
  }

  run(stop$: Observable<unknown>): Observable<never> {
    // Replayed: a stop asked for while progress is still loading must end the parts that
    // subscribe after loading, or the flow never completes.
    return withStopSignal(stop$, (stopped$) => this.replicate(stopped$.pipe(tap(() => (this.parts.status.state = 'draining')))));
  }

  private replicate(stopping$: Observable<void>): Observable<never> {
    const { parts } = this;
    const { settings, scheduler, logger, status } = parts;

    // A cluster down at start delays the start; it does not end the run.
    const init$ = concat(
      parts.progress.load().pipe(this.retrying(this.outages.loading)),
      parts.offsetSyncEmitter?.ensureTopic().pipe(this.retrying(this.outages.offsetSyncs!)) ?? EMPTY,
    ).pipe(ignoreElements());

    const topics$ = timer(0, settings.refreshIntervalMs, scheduler).pipe(
      takeUntil(stopping$),
      exhaustMap(() =>
        parts.topicSync.refresh().pipe(
          tap(() => this.outages.topics.succeeded()),
          catchError((error: unknown) => {
            // The next refresh is the retry; an outage is reported as one, not once per refresh.
            if (isRetriable(error)) this.outages.topics.failed(error);
            else logger.warn('Topic refresh failed; will retry at the next refresh.', { error: describeError(error) });
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
      switchMap((topics: readonly ReplicatedTopic[]) =>
        topics.length === 0
          ? NEVER
          : parts.sourceRecords
              .consume({
                topics: topics.map((t) => t.source),
                groupId: settings.groupId,
                startOffset: (tp) => this.startOffset(tp),
                flowControl: this.budget,
                ...(settings.forwardRecordBatches ? { forwardRecordBatches: settings.forwardRecordBatches } : {}),
              })
              // A consumer that failed (its cluster gone, say) is replaced by a new one, which
              // starts where this flow's positions are: records fetched before are still in flight.
              .pipe(this.retrying(this.outages.reading)),
      ),
      takeUntil(stopping$),
    );

    const replication$ = batches$.pipe(
      map((batch) => this.mirror(batch)),
      writeBatches(settings.batching, (records) => this.write(records), scheduler),
      mergeMap((written) => this.commit(written)),
    );

    // A flush that retries through an outage is dropped at a stop: the final flush stores all.
    const flushes$ = timer(settings.flushIntervalMs, settings.flushIntervalMs, scheduler).pipe(
      takeUntil(stopping$),
      exhaustMap(() => this.flush(true).pipe(takeUntil(stopping$))),
    );

    return concat(
      init$,
      defer(() => {
        status.state = 'running';
        logger.info('Replication started.', { source: settings.source, target: settings.target });
        return merge(replication$, flushes$).pipe(ignoreElements());
      }),
      defer(() => this.flush(true)).pipe(ignoreElements()),
      defer(() => {
        status.state = 'stopped';
        logger.info('Replication stopped.', { records: status.recordsReplicated });
        return EMPTY;
      }),
    ).pipe(
      catchError((error: unknown) => {
        status.state = 'failed';
        // Keep what the target already acknowledged (one try: the target may be what failed), then fail.
        return concat(this.flush(false).pipe(catchError(() => EMPTY), ignoreElements()), throwError(() => error));
      }),
    );
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
    this.positions.set(`${batch.topic}-${batch.partition}`, batch.nextOffset);
    const first = batch.recordBatches?.[0]?.baseOffset ?? batch.records[0]?.offset ?? batch.nextOffset;
    this.parts.status.recordFetch(batch, first, batch.highWatermark);
    if (batch.recordBatches !== undefined) {
      // Whole record batches: the source only forwards them to flows without transforms.
      const target = remote;
      let sourceRecords = 0;
      for (const b of batch.recordBatches) sourceRecords += b.recordCount;
      return {
        source: { topic: batch.topic, partition: batch.partition },
        records: [],
        recordBatches: batch.recordBatches.map((b) => ({ topic: target, partition: batch.partition, batch: b })),
        nextOffset: batch.nextOffset,
        highWatermark: batch.highWatermark,
        bytes: batch.bytes,
        sourceRecords,
      };
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
    return {
      source: { topic: batch.topic, partition: batch.partition },
      records: this.parts.transform(records),
      nextOffset: batch.nextOffset,
      highWatermark: batch.highWatermark,
      bytes: batch.bytes,
      sourceRecords: batch.records.length,
    };
  }

  /** Retried for as long as the failure is retriable: a target down for hours is waited for. */
  private write(records: readonly OutboundItem[]): Observable<Float64Array> {
    const tracker = this.outages.writing;
    return defer(() => {
      // The writer retries the rest of a partly acknowledged write itself: its failures are this write's outage too.
      const holder = {};
      return this.parts.writer
        .write(records, { onRetry: (error) => tracker.failed(error, holder) })
        .pipe(retryThroughOutage({ tracker, scheduler: this.parts.scheduler, holder }));
    });
  }

  /** After the target's acknowledgement: progress, offset syncs, flow control, status. */
  private commit(written: WrittenBatches): Observable<never> {
    const { progress, status } = this.parts;
    const emitter = this.parts.offsetSyncEmitter;
    let i = 0;
    for (const batch of written.batches) {
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
        // The emitter keeps the syncs; the next flush sends them, retrying through an outage.
        this.parts.logger.debug('Writing offset syncs failed; they go with the next flush.', { error: describeError(error) });
        return EMPTY;
      }),
    );
  }

  /**
   * Stores progress, then offset syncs. `retrying`: each retries for as long as its failure is
   * retriable (progress is put back on failure, so nothing acknowledged is forgotten); a failure
   * that is not retriable (no permission on the progress topic, say) ends the flow, since
   * replicating on without storing progress would replicate everything again after a restart.
   */
  private flush(retrying: boolean): Observable<void> {
    const emitter = this.parts.offsetSyncEmitter;
    if (!retrying) return concat(this.parts.progress.flush(), emitter ? emitter.flush() : EMPTY);
    return concat(
      this.parts.progress.flush().pipe(this.retrying(this.outages.progress)),
      emitter ? emitter.flush().pipe(this.retrying(this.outages.offsetSyncs!)) : EMPTY,
    );
  }
}
