// size: one class, MM2's source connector and task: fetch, mirror, write (or exactly-once transactions), dead letters and commit share the positions, lifetimes and budget of one flow.
import { inject, injectable } from 'inversify';
import {
  type MonoTypeOperatorFunction,
  type Observable,
  type SchedulerLike,
  EMPTY,
  NEVER,
  catchError,
  concat,
  concatMap,
  connectable,
  defer,
  distinctUntilChanged,
  exhaustMap,
  filter,
  finalize,
  firstValueFrom,
  from,
  identity,
  isObservable,
  lastValueFrom,
  ignoreElements,
  map,
  merge,
  mergeMap,
  of,
  ReplaySubject,
  Subscription,
  share,
  switchMap,
  take,
  takeUntil,
  takeWhile,
  tap,
  throwError,
  timer,
} from 'rxjs';
import type { ClusterAdmin, PartitionOffsets } from '../../core/ports/cluster-admin';
import type { ForwardRecordBatches, RecordSource } from '../../core/ports/record-source';
import { isRecordBatch, type OutboundItem, type RecordWriter, type RefusedRecord, type WriteOptions } from '../../core/ports/record-writer';
import type { Logger } from '../../core/ports/logger';
import type { DecodedFlowBatch, DecodedSourceBatch, FlowBatch, MirrorRecord, RecordFailure, SourceBatch, TopicPartition } from '../../core/record';
import {
  flowBatchDeadLetters,
  flowBatchFailure,
  flowBatchItemCount,
  forEachOffsetPair,
  sourceBatchFirstOffset,
  sourceBatchRecordCount,
  topicPartitionKey,
} from '../../core/record';
import { KafkaAuthorizationError, MirrorflowError, RecordFailedError, RecordRefusedError, describeError, isRetriable } from '../../core/errors';
import { ByteBudget } from './flow-control';
import { FlowStatus } from '../status/flow-status';
import { ProgressStore } from '../progress/progress-store';
import type { OffsetSyncEmitter } from '../progress/offset-sync-emitter';
import { TopicSync, sameTopics, type ReplicatedTopic } from '../topics/topic-sync';
import { SourceResets, type AutoOffsetReset } from './source-resets';
import { writeBatches, type BatchPolicy } from '../operators/write-batches';
import type { WrittenBatches } from '../../core/ports/write-path';
import { withStopSignal } from '../operators/with-stop-signal';
import type { DeadLetterSink } from './dead-letter-sink';
import { retryThroughOutage } from '../operators/retry-through-outage';
import type { OutageTracker } from '../status/outage-status';
import type { SlotTransactions } from '../../core/ports/slot-transactions';
import { SlotWrites } from './slot-writes';
import type { OffsetPreservation } from './offset-preservation';
import type { SchemaIdTranslation } from './schema-id-translation';
import type { RegistrySchemaFetch } from './registry-schema-fetch';

/** How long one answer about a topic's offsets serves partitions assigned together. */
const OFFSETS_REUSE_MS = 2_000;
/**
 * How long a rebalance waits for what was fetched to be acknowledged before its partitions are
 * given up anyway (abandoned: the next owner copies them again). Below kafkajs's 60 s rebalance
 * timeout, after which the group would go on without this member.
 */
const DRAIN_TIMEOUT_MS = 30_000;

export interface ReplicationFlowSettings {
  readonly source: string;
  readonly target: string;
  readonly groupId: string;
  readonly start: 'earliest' | 'latest';
  /** Where a source log that restarted below the held position is read from (MM2's `auto.offset.reset`). */
  readonly autoOffsetReset: AutoOffsetReset;
  /** false: the topics found by the first refresh that succeeds are the flow's for good (MM2 `refresh.topics.enabled`). */
  readonly refreshTopics: boolean;
  readonly refreshIntervalMs: number;
  readonly flushIntervalMs: number;
  readonly batching: BatchPolicy;
  readonly maxInFlightBytes: number;
  /** Forward fetched record batches without decoding them; only for flows without transforms. */
  readonly forwardRecordBatches?: ForwardRecordBatches;
  /**
   * A record a transform throws on, or the target refuses on its own: `none` stops the flow just
   * before it; `all` sends it to the dead-letter sink and goes on.
   */
  readonly errorTolerance: 'none' | 'all';
  /** `delivery: exactly_once`: the flow's slot count (`tasks`); records and progress go in one transaction per slot. */
  readonly exactlyOnce?: { readonly slots: number };
}

export interface ReplicationFlowParts {
  readonly settings: ReplicationFlowSettings;
  readonly sourceRecords: RecordSource;
  readonly sourceAdmin: ClusterAdmin;
  readonly writer: RecordWriter;
  /** The transactional writer; required with `settings.exactlyOnce`. */
  readonly transactions?: SlotTransactions;
  readonly topicSync: TopicSync;
  readonly progress: ProgressStore;
  readonly offsetSyncEmitter: OffsetSyncEmitter | undefined;
  /** The replication policy's remote name for a source topic. */
  readonly remoteTopic: (sourceTopic: string) => string;
  /** The flow's transforms; the identity function when there are none. Failures go to the array given. */
  readonly transform: (records: readonly MirrorRecord[], failures?: RecordFailure[]) => readonly MirrorRecord[];
  /** Where failed records go with errors.tolerance all; required then. */
  readonly deadLetters?: DeadLetterSink;
  /** `schema_registry`: the records' schema ids moved to the target's registry, after the transforms. */
  readonly schemaIds?: SchemaIdTranslation;
  /** The registry converters' writer schemas (`avro`, …), read from the source registry before the transforms run. */
  readonly writerSchemas?: RegistrySchemaFetch;
  /** `offsets: preserve`: keeps each partition at its source's offsets while that holds. */
  readonly preservation?: OffsetPreservation;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: FlowStatus;
}
/** DI token of the parts the container gives a ReplicationFlow; a token and its interface share a name. */
export const ReplicationFlowParts = Symbol.for('mirrorflow.ReplicationFlowParts');

/**
 * One direction of replication, MM2's MirrorSourceConnector:
 *
 *   topics (timer) ─► source(tp) ─► rename ─► transforms ─► batch ─► sink ─► dead letters ─► commit
 *   flush (timer)  ─► progress topic + offset syncs
 *
 * Records that fail (a transform throws, the target refuses one on its own) go, with errors
 * tolerance `all`, to the dead-letter sink: the transforms' failures travel on their flow batch,
 * the sink's refusals are taken from the write; both are acknowledged on the dead-letter topic
 * before their batch commits. With `none`, the first failure ends the batch just before the
 * record, fetching stops, what came before is written and committed, and the flow fails.
 *
 * A source offset counts as done only after the target acknowledged it (acks=all): progress and
 * offset syncs are taken from the sink's acknowledgement, never before it. Emitting `stop$` stops
 * fetching, drains what is in flight, stores progress and completes.
 */
@injectable()
export class ReplicationFlow {
  private readonly budget: ByteBudget;
  /** Next offset to read per partition, for partitions this process has fetched from. */
  private readonly positions = new Map<string, number>();
  private readonly remoteNames = new Map<string, string>();
  /** Source topic per remote topic, to name the source of a record the target refuses. */
  private readonly sourceTopics = new Map<string, string>();
  private readonly offsetsByTopic = new Map<string, Promise<readonly PartitionOffsets[]>>();
  /** Timers that outlive a single operation (forgetting topic offsets); cancelled when the flow ends. */
  private readonly timers = new Subscription();
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
  /** The current assignment's progress, read after the previous owners stored theirs. */
  private assignment: { reloaded: Promise<void>; stillMember: () => Promise<boolean> } | undefined;
  /**
   * Resolves once a partition may start: progress loaded, the internal topics there and the
   * remote topics created. The consumer joins its group before that (see `replicate`).
   */
  private readonly ready: Promise<void>;
  private markReady: () => void = () => {};
  /** Exactly-once: the transactional write path (slot-writes.ts). */
  private readonly eos: SlotWrites | undefined;
  /** The topics the source consumer subscribes to (for the slots no member holds, exactly-once). */
  private replicated: readonly ReplicatedTopic[] = [];
  /** Partitions whose `start: latest` position is stored together, before they are read. */
  private startFlush: Promise<void> | undefined;
  /** Every cluster operation of the flow retries through outages, reported on the flow status. */
  private readonly outages: {
    readonly loading: OutageTracker;
    readonly topics: OutageTracker;
    readonly reading: OutageTracker;
    readonly writing: OutageTracker;
    readonly progress: OutageTracker;
    readonly offsetSyncs: OutageTracker | undefined;
    readonly deadLetters: OutageTracker;
  };

  constructor(@inject(ReplicationFlowParts) private readonly parts: ReplicationFlowParts) {
    // Config validation asks for the topic; without a sink, failed records would vanish.
    if (parts.settings.errorTolerance === 'all' && parts.deadLetters === undefined) {
      throw new MirrorflowError(`Flow ${parts.settings.source}->${parts.settings.target}: errors.tolerance all needs a dead-letter topic.`);
    }
    if (parts.settings.exactlyOnce !== undefined && parts.transactions === undefined) {
      throw new MirrorflowError(`Flow ${parts.settings.source}->${parts.settings.target}: delivery exactly_once needs the transactional writer.`);
    }
    this.budget = new ByteBudget(parts.settings.maxInFlightBytes, parts.scheduler);
    this.ready = new Promise((resolve) => (this.markReady = resolve));
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
      deadLetters: track(target, 'creating the dead-letter topic'),
    };
    this.eos =
      parts.settings.exactlyOnce === undefined
        ? undefined
        : new SlotWrites({
            slots: parts.settings.exactlyOnce.slots,
            transactions: parts.transactions!,
            progress: parts.progress,
            maxPartitionBytes: parts.settings.batching.maxPartitionBytes,
            current: (batch) => this.current(batch),
            outages: this.outages,
            ...(parts.deadLetters === undefined ? {} : { deadLetters: parts.deadLetters }),
            refusedFailure: (items, error, refused) => this.refusedFailure(items, error, refused),
            status: parts.status,
            scheduler: parts.scheduler,
            logger: parts.logger,
          });
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

    // Start-up, as parallel as it can be: a link to a distant source pays a round trip for every
    // step taken one after another. The first topic refresh, which creates the remote topics,
    // runs while progress loads and the internal topics are created; the consumer joins its group
    // as soon as that refresh has listed the source's topics. What waits is each partition's
    // start (`ready`): no record is read before progress is loaded and the remote topics exist.
    // When the first refresh failed (a cluster down at start, say), the first tick refreshes
    // again, and reports a failure as every refresh does.
    const listed = new ReplaySubject<readonly ReplicatedTopic[]>(1);
    const firstRefresh = connectable(parts.topicSync.refresh((topics) => listed.next(topics)).pipe(catchError(() => of(undefined))), {
      connector: () => new ReplaySubject<readonly ReplicatedTopic[] | undefined>(1),
      resetOnDisconnect: false,
    });
    const created = new ReplaySubject<void>(1);

    const loaded = new ReplaySubject<void>(1);

    // A cluster down at start delays the start; it does not end the run. The internal topics are
    // independent of each other: created (and waited for) at once.
    const init$ = concat(
      merge(
        defer(() => {
          this.timers.add(firstRefresh.connect());
          return EMPTY;
        }),
        parts.progress.load().pipe(this.retrying(this.outages.loading)),
        parts.offsetSyncEmitter?.ensureTopic().pipe(this.retrying(this.outages.offsetSyncs!)) ?? EMPTY,
        parts.deadLetters?.ensureTopic().pipe(this.retrying(this.outages.deadLetters)) ?? EMPTY,
      ),
      defer(() => {
        loaded.next();
        // A stop before any refresh succeeded ends the wait (nothing was read, nothing is).
        return created.pipe(take(1), takeUntil(stopping$));
      }),
    ).pipe(ignoreElements());

    // Before the subscription changes, so a recreated topic is read from its new start.
    const seen = concatMap((topics: readonly ReplicatedTopic[]) => from(this.topicsSeen(topics)).pipe(map(() => topics)));
    const refreshes$ = timer(0, settings.refreshIntervalMs, scheduler).pipe(
      takeUntil(stopping$),
      exhaustMap((tick) =>
        (tick === 0
          ? // Failed: made again once the rest of the start is done, through the outage it met, if any.
            firstRefresh.pipe(
              concatMap((early) =>
                early === undefined
                  ? loaded.pipe(
                      take(1),
                      concatMap(() => parts.topicSync.refresh()),
                    )
                  : of(early),
              ),
            )
          : parts.topicSync.refresh()
        ).pipe(
          tap(() => {
            this.outages.topics.succeeded();
            created.next();
          }),
          seen,
          catchError((error: unknown) => {
            // The next refresh is the retry; an outage is reported as one, not once per refresh.
            if (isRetriable(error)) this.outages.topics.failed(error);
            // A missing ACL (reading, creating, describing topics) ends the run, naming it: a
            // topic the flow may not create or read would otherwise be skipped for good.
            else if (error instanceof KafkaAuthorizationError) return throwError(() => error);
            else logger.warn('Topic refresh failed; will retry at the next refresh.', { error: describeError(error) });
            return EMPTY;
          }),
        ),
      ),
      // Topics fixed at start: refreshes go on only until one succeeded.
      settings.refreshTopics ? identity : take(1),
      share(),
    );
    const topics$ = merge(
      // The first refresh's list, before it created anything: the consumer joins meanwhile.
      listed.pipe(
        take(1),
        seen,
        catchError(() => EMPTY),
        takeUntil(merge(stopping$, refreshes$.pipe(take(1)))),
      ),
      refreshes$,
    ).pipe(
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
        this.replicated = topics;
        return topics.length === 0
          ? NEVER
          : parts.sourceRecords
              .consume({
                topics: topics.map((t) => t.source),
                groupId: settings.groupId,
                flowControl: this.budget,
                // A fetch bigger than one write goes as several batches: the sink never splits a batch.
                maxBatch: { records: settings.batching.maxRecords, bytes: settings.batching.maxBytes },
                ...(settings.exactlyOnce ? { slots: { count: settings.exactlyOnce.slots, of: (tp: TopicPartition) => this.slotOf(tp) } } : {}),
                lifecycle: {
                  revoke: () => this.revoke(),
                  assigned: (tps, generation, stillMember) => this.assigned(tps, generation, stillMember),
                  startOffset: (tp) => this.startOffset(tp),
                  logRestarted: (tp, restart) => this.resets.logRestarted(tp, restart),
                },
                ...(settings.forwardRecordBatches ? { forwardRecordBatches: settings.forwardRecordBatches } : {}),
              })
              // A consumer that failed (its cluster gone, say) is replaced by a new one, which
              // starts where this flow's positions are: records fetched before are still in flight.
              .pipe(this.retrying(this.outages.reading));
      }),
      takeUntil(stopping$),
    );

    const replication$ = batches$.pipe(
      filter((batch) => this.fresh(batch)),
      parts.writerSchemas === undefined ? identity : concatMap((batch: SourceBatch) => this.withWriterSchemas(batch, parts.writerSchemas!)),
      map((batch) => this.mirror(batch)),
      parts.schemaIds === undefined ? identity : concatMap((batch: FlowBatch) => this.translated(batch, parts.schemaIds!)),
      // A batch ending at a failing record (tolerance none) is the last: fetching stops.
      takeWhile((batch) => flowBatchFailure(batch) === undefined, true),
      settings.exactlyOnce
        ? writeBatches(settings.batching, (records, batches) => this.eos!.write(records, batches), scheduler, true)
        : writeBatches(settings.batching, (records) => this.write(records), scheduler),
      concatMap((written) => this.deadLetter(written)),
      mergeMap((written) => this.commit(written)),
    );

    // A flush that retries through an outage is dropped at a stop: the final flush stores all.
    const flushes$ = timer(settings.flushIntervalMs, settings.flushIntervalMs, scheduler).pipe(
      takeUntil(stopping$),
      exhaustMap(() => this.flush(true).pipe(takeUntil(stopping$))),
    );

    const started$ = concat(
      init$,
      defer(() => {
        // Stopped before it could start: no partition ever starts.
        if (status.state === 'draining') return EMPTY;
        status.state = 'running';
        logger.info('Replication started.', { source: settings.source, target: settings.target });
        this.markReady();
        return flushes$;
      }),
    );

    return concat(
      merge(started$, replication$).pipe(ignoreElements()),
      defer(() => this.flush(true)).pipe(ignoreElements()),
      defer(() => {
        status.state = 'stopped';
        logger.info('Replication stopped.', { records: status.recordsReplicated });
        return EMPTY;
      }),
    ).pipe(
      finalize(() => this.timers.unsubscribe()),
      catchError((error: unknown) => {
        status.state = 'failed';
        status.failure = error;
        status.recordError(error);
        // Keep what the target already acknowledged (one try: the target may be what failed), then fail.
        return concat(
          this.flush(false).pipe(
            catchError(() => EMPTY),
            ignoreElements(),
          ),
          throwError(() => error),
        );
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

  /**
   * Before this member rejoins its group (it gives up every partition): waits until what was
   * fetched is acknowledged and committed, stores progress, then forgets the partitions.
   */
  private async revoke(): Promise<void> {
    const { logger } = this.parts;
    let timeout: Subscription | undefined;
    const drained = await Promise.race([
      this.budget.drained().then(() => true),
      new Promise<boolean>((resolve) => (timeout = this.parts.scheduler.schedule(() => resolve(false), DRAIN_TIMEOUT_MS))),
    ]);
    timeout?.unsubscribe();
    if (!drained)
      logger.warn('Rebalance: records still in flight are abandoned; the next owner copies them again.', { inFlightBytes: this.budget.inFlightBytes });
    try {
      await lastValueFrom(this.flush(false), { defaultValue: undefined });
    } catch (error) {
      logger.warn('Rebalance: storing progress failed; the next owner copies those records again.', { error: describeError(error) });
    }
    this.parts.progress.disown();
    // Exactly-once: the slots go with the partitions; the next assignment claims its own anew.
    this.parts.transactions?.release();
    this.parts.status.partitionsAssigned = 0;
    this.positions.clear();
    this.assignment = undefined;
  }

  /** A new assignment: its progress is read again, from the topic as it is now. */
  private assigned(partitions: readonly TopicPartition[], generation: number | undefined, stillMember: () => Promise<boolean>): void {
    this.parts.logger.info('Partitions assigned.', { generation, partitions: partitions.length });
    this.parts.preservation?.reload();
    const { transactions } = this.parts;
    // Exactly-once: the slots' producers are claimed first, which fences their earlier holders
    // (their open transactions are aborted); only then is progress read, read_committed.
    const claimed$ =
      transactions === undefined
        ? EMPTY
        : defer(() => transactions.claim([...new Set(partitions.map((tp) => this.slotOf(tp)))], stillMember)).pipe(
            this.retrying(this.outages.loading),
            ignoreElements(),
          );
    // A changed slot count: the ids nobody holds now are fenced before anything is read.
    const unheld$ = transactions === undefined ? EMPTY : defer(() => this.eos!.fenceUnheld(this.sourcePartitions()));
    const slots$ = transactions === undefined ? EMPTY : defer(() => this.eos!.storeSlotCount(partitions));
    // Only once the flow is ready: the group is joined while progress still loads.
    const ready$ = defer(() => this.ready).pipe(ignoreElements());
    const reloaded = lastValueFrom(
      concat(ready$, claimed$, unheld$, this.parts.progress.reload(partitions).pipe(this.retrying(this.outages.loading)), slots$),
      { defaultValue: undefined },
    );
    // Counted once their progress is read: from then on they are fetched.
    void reloaded
      .then(() => {
        if (this.assignment?.reloaded === reloaded) this.parts.status.partitionsAssigned = partitions.length;
      })
      .catch(() => undefined);
    reloaded.catch(() => undefined); // surfaces where a partition's start awaits it
    this.assignment = { reloaded, stillMember };
  }

  /** Where a newly assigned partition starts: our own position, stored progress, or `start`. */
  private async startOffset(tp: TopicPartition): Promise<number> {
    await this.ready;
    await this.assignment?.reloaded;
    const key = topicPartitionKey(tp);
    const own = this.positions.get(key);
    const known = own ?? this.parts.progress.nextOffset(tp);
    const { preservation } = this.parts;
    // The flow's own position stays (a consumer restarted in this run); otherwise preservation
    // decides, from progress and the target partition.
    if (preservation !== undefined && own === undefined)
      return preservation.start(tp, this.remoteName(tp.topic), known, async () =>
        (await this.topicOffsets(tp.topic)).find((o) => o.partition === tp.partition),
      );
    if (known !== undefined) return known;
    const offsets = await this.topicOffsets(tp.topic);
    const partition = offsets.find((o) => o.partition === tp.partition);
    if (!partition) return 0;
    if (this.parts.settings.start === 'earliest') return partition.earliest;
    // Store the starting point before reading, so a member that gets the partition later (this
    // one crashed, say) resumes there instead of at a later end; for an empty partition that is
    // MM2's offset -1 ("resume at 0").
    if (this.parts.settings.exactlyOnce !== undefined) {
      // Stored in a transaction of the partition's slot, as all progress of the flow is.
      await lastValueFrom(this.eos!.commitSlot(this.slotOf(tp), [], [{ tp, offset: partition.latest - 1 }]), { defaultValue: undefined });
      this.parts.progress.markReplicated(tp, partition.latest - 1);
      return partition.latest;
    }
    this.parts.progress.markReplicated(tp, partition.latest - 1);
    await this.flushStarts();
    return partition.latest;
  }

  /** One progress write for the `start: latest` positions of partitions assigned together. */
  private flushStarts(): Promise<void> {
    this.startFlush ??= Promise.resolve().then(() => {
      this.startFlush = undefined;
      return lastValueFrom(this.flush(true), { defaultValue: undefined });
    });
    return this.startFlush;
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
      const forget = (): void => {
        const timer = this.parts.scheduler.schedule(() => {
          this.offsetsByTopic.delete(topic);
          this.timers.remove(timer);
        }, OFFSETS_REUSE_MS);
        this.timers.add(timer);
      };
      pending.then(forget, forget);
    }
    return pending;
  }

  private remoteName(topic: string): string {
    let remote = this.remoteNames.get(topic);
    if (remote === undefined) {
      remote = this.parts.remoteTopic(topic);
      this.remoteNames.set(topic, remote);
      this.sourceTopics.set(remote, topic);
    }
    return remote;
  }

  private mirror(batch: SourceBatch): FlowBatch {
    const remote = this.remoteName(batch.topic);
    this.parts.preservation?.inspect(batch, remote);
    const key = topicPartitionKey(batch);
    this.positions.set(key, batch.nextOffset);
    const lifetime = this.lifetimes.get(key) ?? 0;
    const fetchedAt = Date.now();
    this.parts.status.recordFetch(batch, sourceBatchFirstOffset(batch), batch.highWatermark, fetchedAt, FlowStatus.firstTimestamp(batch));
    this.parts.status.recordAge(batch, fetchedAt);
    switch (batch.kind) {
      case 'records':
        return this.stamp(lifetime, this.transformed(batch, remote));
      case 'batches': {
        // Whole record batches: the source only forwards them to flows without transforms.
        const target = remote;
        return this.stamp(lifetime, {
          kind: 'batches',
          source: { topic: batch.topic, partition: batch.partition },
          recordBatches: batch.recordBatches.map((b) => ({ topic: target, partition: batch.partition, batch: b })),
          nextOffset: batch.nextOffset,
          highWatermark: batch.highWatermark,
          bytes: batch.bytes,
          sourceRecords: sourceBatchRecordCount(batch),
        });
      }
    }
  }

  /** Decoded records under their remote topic, through the transforms; failures per errors.tolerance. */
  private transformed(batch: DecodedSourceBatch, remote: string): DecodedFlowBatch {
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
    const failures: RecordFailure[] = [];
    const transformed = this.parts.transform(records, failures);
    const flowBatch: DecodedFlowBatch = {
      kind: 'records',
      source: { topic: batch.topic, partition: batch.partition },
      records: transformed,
      nextOffset: batch.nextOffset,
      highWatermark: batch.highWatermark,
      bytes: batch.bytes,
      sourceRecords: batch.records.length,
    };
    if (failures.length === 0) return flowBatch;
    if (this.parts.settings.errorTolerance === 'all') return { ...flowBatch, deadLetters: failures };
    // Tolerance none: the batch ends just before the first failing record.
    const failed = failures[0]!;
    const at = failed.record.source.offset;
    let kept = 0;
    while (kept < transformed.length && transformed[kept]!.source.offset < at) kept++;
    let read = 0;
    while (read < records.length && records[read]!.source.offset < at) read++;
    return { ...flowBatch, records: transformed.slice(0, kept), nextOffset: at, sourceRecords: read, failure: failed.error };
  }

  /** The batch once the registry converters have the writer schemas of its records. */
  private withWriterSchemas(batch: SourceBatch, fetch: RegistrySchemaFetch): Observable<SourceBatch> {
    const prepared = fetch.prepare(batch);
    return isObservable(prepared) ? prepared : of(prepared);
  }

  /** The batch with its records' schema ids moved (schema-id-translation.ts); the registries are asked only for ids new to the flow. */
  private translated(batch: FlowBatch, schemaIds: SchemaIdTranslation): Observable<FlowBatch> {
    // Forwarding is off for such a flow; a batch that failed before (tolerance none) still goes, up to its failure.
    if (batch.kind !== 'records') return of(batch);
    const translated = schemaIds.translate(batch);
    const lifetime = this.batchLifetimes.get(batch);
    const stamped = (b: DecodedFlowBatch): FlowBatch => (lifetime === undefined ? b : this.stamp(lifetime, b));
    return isObservable(translated) ? translated.pipe(map(stamped)) : of(stamped(translated));
  }

  private stamp(lifetime: number, batch: FlowBatch): FlowBatch {
    if (lifetime > 0) this.batchLifetimes.set(batch, lifetime);
    return batch;
  }

  /** True when a batch was fetched from the partition's current log (no restart since). */
  private current(batch: FlowBatch): boolean {
    return (this.batchLifetimes.get(batch) ?? 0) === (this.lifetimes.get(topicPartitionKey(batch.source)) ?? 0);
  }

  /**
   * One write to the target, retried for as long as the failure is retriable (a target down for
   * hours is waited for). Records it refuses on their own go to the dead-letter sink (tolerance
   * all) before the write counts as done, or fail the flow naming their source (none).
   */
  private write(items: readonly OutboundItem[]): Observable<Float64Array> {
    const { deadLetters } = this.parts;
    const tracker = this.outages.writing;
    const refused: RefusedRecord[] = [];
    return defer(() => {
      // The writer retries the rest of a partly acknowledged write itself: its failures are this write's outage too.
      const holder = {};
      const options: WriteOptions = {
        onRetry: (error) => tracker.failed(error, holder),
        ...(deadLetters === undefined ? {} : { onRefused: (r: RefusedRecord) => refused.push(r) }),
      };
      return defer(() => {
        // A write sent again whole after a retriable failure reports its refusals again.
        refused.length = 0;
        // A partition that fell back before this write is marked so first (offset-preservation.ts).
        const marked = this.parts.preservation?.flush().pipe(ignoreElements()) ?? EMPTY;
        return concat(marked, this.parts.writer.write(items, options));
      }).pipe(retryThroughOutage({ tracker, scheduler: this.parts.scheduler, holder }));
    }).pipe(
      catchError((error: unknown) => throwError(() => (error instanceof RecordRefusedError ? this.refusedFailure(items, error).error : error))),
      concatMap((offsets) => {
        if (refused.length === 0 || deadLetters === undefined) return of(offsets);
        const failures = refused.map((r) => this.refusedFailure(items, r.error, r));
        // They were counted as written; the dead-letter sink counts them now.
        this.parts.status.recordsReplicated -= failures.length;
        return deadLetters.write(failures).pipe(map(() => offsets));
      }),
    );
  }

  /** A record the target refused, named by its source position. */
  private refusedFailure(items: readonly OutboundItem[], error: RecordRefusedError, refused?: RefusedRecord): RecordFailure {
    const item = items[error.index]!;
    let mirrored: MirrorRecord;
    if (isRecordBatch(item)) {
      const source = { topic: this.sourceTopics.get(item.topic) ?? item.topic, partition: item.partition, offset: item.batch.baseOffset + error.offsetInBatch };
      const record = refused?.record;
      mirrored = {
        source,
        topic: item.topic,
        partition: item.partition,
        timestamp: record?.timestamp ?? -1,
        key: record?.key ?? null,
        value: record?.value ?? null,
        headers: record?.headers ?? [],
      };
    } else {
      // The flow only writes the records it mirrored.
      mirrored = item as MirrorRecord;
    }
    return { record: mirrored, error: new RecordFailedError(mirrored.source, { kind: 'write' }, error.message, { cause: error }) };
  }

  private slotOf(tp: TopicPartition): number {
    return this.eos!.slotOf(tp);
  }

  /** Every partition of the topics the source consumer subscribes to. */
  private sourcePartitions(): TopicPartition[] {
    return this.replicated.flatMap((t) => Array.from({ length: t.partitions }, (_, partition) => ({ topic: t.source, partition })));
  }

  /** Failures of the written batches' transforms go to the dead-letter topic; the batches follow once it acknowledged them. */
  private deadLetter(written: WrittenBatches): Observable<WrittenBatches> {
    const sink = this.parts.deadLetters;
    // Exactly-once: they went in the batches' transactions (slot-writes.ts).
    if (sink === undefined || this.eos !== undefined) return of(written);
    let failures: RecordFailure[] | undefined;
    for (const batch of written.batches) {
      const dead = flowBatchDeadLetters(batch);
      if (dead !== undefined) (failures ??= []).push(...dead);
    }
    return failures === undefined ? of(written) : sink.write(failures).pipe(map(() => written));
  }

  /** After the target's acknowledgement: progress, offset syncs, flow control, status. */
  private commit(written: WrittenBatches): Observable<never> {
    const { progress, status } = this.parts;
    const emitter = this.parts.offsetSyncEmitter;
    let i = 0;
    let failure: RecordFailedError | undefined;
    // One function per write, not per record.
    const sync = emitter ? (tp: TopicPartition, sourceOffset: number, targetOffset: number): void => emitter.record(tp, sourceOffset, targetOffset) : undefined;
    // Exactly-once: a batch whose slot was lost is not counted as copied (records, bytes, position).
    const counted = this.eos === undefined ? written.batches : written.batches.filter((batch) => !this.eos!.dropped.has(batch));
    for (const batch of written.batches) {
      if (this.eos?.dropped.has(batch)) {
        // Its slot was lost before the commit: nothing of it is visible on the target.
        i += flowBatchItemCount(batch);
        this.budget.release(batch.bytes);
        continue;
      }
      if (!this.current(batch)) {
        // On the target as an extra copy of the old log; the new log's progress starts over.
        i += flowBatchItemCount(batch);
        this.budget.release(batch.bytes);
        continue;
      }
      const { preservation } = this.parts;
      if (preservation?.preserved(batch.source)) preservation.verify(batch, this.remoteName(batch.source.topic), written.offsets, i);
      // An offset of -1: the target refused the record (or one of the batch's records), which
      // went to the dead-letter topic; no offset sync can be taken from it.
      i = sync ? forEachOffsetPair(batch, written.offsets, i, sync) : i + flowBatchItemCount(batch);
      progress.markReplicated(batch.source, batch.nextOffset - 1);
      this.budget.release(batch.bytes);
      failure ??= flowBatchFailure(batch);
    }
    status.recordWrite(counted, Date.now());
    // Tolerance none: what came before the failing record is committed; now the flow stops.
    if (failure !== undefined) return throwError(() => failure);
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
    // A member the group moved on from stores nothing (ProgressStore.flush).
    const stillMember = this.assignment?.stillMember;
    // Exactly-once: progress is written inside the transactions, never on its own.
    const progress$ = this.parts.settings.exactlyOnce === undefined ? this.parts.progress.flush(stillMember) : EMPTY;
    // Markers of partitions that fell back go before the progress that passes them.
    const marked = this.parts.preservation?.flush().pipe(ignoreElements()) ?? EMPTY;
    if (!retrying) return concat(marked, progress$, emitter ? emitter.flush() : EMPTY);
    return concat(
      marked.pipe(this.retrying(this.outages.progress)),
      progress$.pipe(this.retrying(this.outages.progress)),
      emitter ? emitter.flush().pipe(this.retrying(this.outages.offsetSyncs!)) : EMPTY,
    );
  }
}
