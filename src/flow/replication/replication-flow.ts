import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import {
  type Observable,
  type SchedulerLike,
  EMPTY,
  NEVER,
  catchError,
  concat,
  concatMap,
  defer,
  exhaustMap,
  finalize,
  ignoreElements,
  merge,
  switchMap,
  takeUntil,
  tap,
  throwError,
  timer,
} from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { ForwardRecordBatches, RecordSource } from '../../core/ports/record-source';
import type { RecordWriter } from '../../core/ports/record-writer';
import type { Logger } from '../../core/ports/logger';
import type { SlotTransactions } from '../../core/ports/slot-transactions';
import type { WritePath } from '../../core/ports/write-path';
import type { MirrorRecord, RecordFailure, SourceBatch } from '../../core/record';
import { MirrorflowError } from '../../core/errors';
import { FlowStatus } from '../status/flow-status';
import { ProgressStore } from '../progress/progress-store';
import type { OffsetSyncEmitter } from '../progress/offset-sync-emitter';
import type { ReplicatedTopic, TopicSync } from '../topics/topic-sync';
import { writeBatches, type BatchPolicy } from '../operators/write-batches';
import { withStopSignal } from '../operators/with-stop-signal';
import { retryThroughOutage } from '../operators/retry-through-outage';
import { dropStaleBatches } from '../operators/drop-stale-batches';
import { withWriterSchemas } from '../operators/with-writer-schemas';
import { mirrorBatches } from '../operators/mirror-batches';
import { translateSchemaIds } from '../operators/translate-schema-ids';
import { stopAtFailure } from '../operators/stop-at-failure';
import { deadLetterFailures } from '../operators/dead-letter-failures';
import { commitWritten } from '../operators/commit-written';
import { ByteBudget } from './flow-control';
import type { AutoOffsetReset } from './source-resets';
import type { DeadLetterSink } from './dead-letter-sink';
import type { OffsetPreservation } from './offset-preservation';
import type { SchemaIdTranslation } from './schema-id-translation';
import type { RegistrySchemaFetch } from './registry-schema-fetch';
import { FlowStartup } from './flow-startup';
import { LogLifetimes } from './log-lifetimes';
import { Mirror } from './mirror';
import type { RecordProvenance } from './record-provenance';
import { RemoteNames } from './remote-names';
import { ReplicatedPartitions } from './replicated-partitions';
import { ReplicationCommits } from './replication-commits';
import { replicationOutages, type ReplicationOutages } from './replication-outages';
import { writePathFor } from './write-path-for';

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
  /** How long a rebalance waits for what was fetched to be acknowledged (half the group's rebalance timeout); 30 s when not given. */
  readonly drainTimeoutMs?: number;
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
  /** `provenance.enabled`: the provenance header read (loops dropped) and written (diamonds dropped). */
  readonly provenance?: RecordProvenance;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: FlowStatus;
}
/** DI token of the parts the container gives a ReplicationFlow; a token and its interface share a name. */
export const ReplicationFlowParts = token<ReplicationFlowParts>('ReplicationFlowParts');

/**
 * One direction of replication, MM2's MirrorSourceConnector, as docs/architecture.md draws it:
 *
 *   topics (timer) ─► source(tp) ─► drop stale ─► writer schemas ─► mirror (rename, transforms)
 *     ─► schema ids ─► stop at failure ─► batch + sink ─► dead letters ─► commit
 *   flush (timer)  ─► progress topic + offset syncs
 *
 * It puts its parts together and runs them; each is one level of the problem:
 * - FlowStartup (flow-startup.ts): progress load, internal topics, topic refreshes, and the one
 *   gate partitions start behind;
 * - ReplicatedPartitions (replicated-partitions.ts): the partitions the source's group hands this
 *   member — positions, start offsets, restarted logs, rebalances — behind the PartitionLifecycle
 *   port the source calls;
 * - Mirror (mirror.ts): a fetched batch as the target gets it;
 * - the WritePath (at-least-once, exactly-once or preserved offsets; write-path-for.ts): how
 *   records reach the target and how what it acknowledged becomes progress;
 * - ReplicationCommits (replication-commits.ts): progress, offset syncs, budget and status after
 *   each acknowledgement, and the flushes.
 *
 * A source offset counts as done only after the target acknowledged it (acks=all). Records that
 * fail go, with errors tolerance `all`, to the dead-letter topic before their batch commits; with
 * `none`, the first failure ends the batch just before the record, fetching stops, what came
 * before is written and committed, and the flow fails. Emitting `stop$` stops fetching, drains
 * what is in flight, stores progress and completes.
 */
@injectable()
export class ReplicationFlow {
  private readonly budget: ByteBudget;
  private readonly outages: ReplicationOutages;
  private readonly writePath: WritePath;
  private readonly commits: ReplicationCommits;
  private readonly startup: FlowStartup;
  private readonly partitions: ReplicatedPartitions;
  private readonly mirror: Mirror;

  constructor(@inject(ReplicationFlowParts) private readonly parts: ReplicationFlowParts) {
    const { settings, scheduler, logger, status, progress } = parts;
    const flow = `${settings.source}->${settings.target}`;
    // Config validation asks for the topic; without a sink, failed records would vanish.
    if (settings.errorTolerance === 'all' && parts.deadLetters === undefined) {
      throw new MirrorflowError(`Flow ${flow}: errors.tolerance all needs a dead-letter topic.`);
    }
    this.budget = new ByteBudget(settings.maxInFlightBytes, scheduler);
    status.buffer = this.budget;
    this.outages = replicationOutages({
      source: settings.source,
      target: settings.target,
      offsetSyncsCluster: parts.offsetSyncEmitter?.cluster,
      status,
      logger,
      scheduler,
    });
    const names = new RemoteNames(parts.remoteTopic);
    const lifetimes = new LogLifetimes();
    this.writePath = writePathFor({
      flow,
      exactlyOnce: settings.exactlyOnce,
      maxPartitionBytes: settings.batching.maxPartitionBytes,
      writer: parts.writer,
      transactions: parts.transactions,
      progress,
      deadLetters: parts.deadLetters,
      preservation: parts.preservation,
      names,
      lifetimes,
      outages: this.outages,
      status,
      scheduler,
      logger,
    });
    this.commits = new ReplicationCommits({
      progress,
      offsetSyncEmitter: parts.offsetSyncEmitter,
      writePath: this.writePath,
      lifetimes,
      budget: this.budget,
      outages: this.outages,
      status,
      scheduler,
      logger,
    });
    this.startup = new FlowStartup({
      settings,
      topicSync: parts.topicSync,
      progress,
      offsetSyncEmitter: parts.offsetSyncEmitter,
      deadLetters: parts.deadLetters,
      outages: this.outages,
      scheduler,
      logger,
      status,
    });
    this.partitions = new ReplicatedPartitions({
      settings,
      sourceAdmin: parts.sourceAdmin,
      progress,
      writePath: this.writePath,
      commits: this.commits,
      lifetimes,
      names,
      budget: this.budget,
      ready: this.startup.ready,
      loading: this.outages.loading,
      scheduler,
      logger,
      status,
    });
    this.mirror = new Mirror({
      names,
      partitions: this.partitions,
      lifetimes,
      writePath: this.writePath,
      transform: parts.transform,
      errorTolerance: settings.errorTolerance,
      ...(parts.writerSchemas === undefined ? {} : { writerSchemas: parts.writerSchemas }),
      ...(parts.schemaIds === undefined ? {} : { schemaIds: parts.schemaIds }),
      ...(parts.provenance === undefined ? {} : { provenance: parts.provenance }),
      status,
    });
  }

  run(stop$: Observable<unknown>): Observable<never> {
    // Replayed: a stop asked for while progress is still loading must end the parts that
    // subscribe after loading, or the flow never completes.
    return withStopSignal(stop$, (stopped$) => this.replicate(stopped$.pipe(tap(() => (this.parts.status.state = 'draining')))));
  }

  private replicate(stopping$: Observable<void>): Observable<never> {
    const { settings, scheduler, logger, status } = this.parts;
    const { startup, partitions, mirror, writePath, commits, budget } = this;

    const batches$ = startup
      .topics(stopping$, (topics) => partitions.topicsSeen(topics))
      .pipe(
        switchMap((topics) => this.consume(topics)),
        takeUntil(stopping$),
      );

    const replication$ = batches$.pipe(
      dropStaleBatches(
        (batch) => partitions.isStale(batch),
        (batch) => budget.release(batch.bytes),
      ),
      withWriterSchemas(mirror.withWriterSchemas),
      mirrorBatches((batch) => mirror.mirror(batch)),
      translateSchemaIds(mirror.translateSchemaIds),
      stopAtFailure(),
      writeBatches(settings.batching, (items, batches) => writePath.write(items, batches), scheduler, writePath.writesWhole),
      deadLetterFailures((written) => writePath.deadLetter(written)),
      commitWritten((written) => commits.commit(written)),
    );

    // A flush that retries through an outage is dropped at a stop: the final flush stores all.
    const flushes$ = timer(settings.flushIntervalMs, settings.flushIntervalMs, scheduler).pipe(
      exhaustMap(() => this.flush(true)),
      takeUntil(stopping$),
    );

    const started$ = startup.start(stopping$).pipe(
      concatMap(() => {
        status.state = 'running';
        logger.info('Replication started.', { source: settings.source, target: settings.target });
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
      finalize(() => partitions.close()),
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

  /** The source consumer of `topics`; a changed list replaces it (switchMap). */
  private consume(topics: readonly ReplicatedTopic[]): Observable<SourceBatch> {
    const { settings, sourceRecords } = this.parts;
    // The previous consumer is unsubscribed by now: nothing it fetched comes any more.
    this.partitions.following(topics);
    if (topics.length === 0) return NEVER;
    const { slots } = this.writePath;
    return (
      sourceRecords
        .consume({
          topics: topics.map((t) => t.source),
          groupId: settings.groupId,
          lifecycle: this.partitions,
          flowControl: this.budget,
          // A fetch bigger than one write goes as several batches: the sink never splits a batch.
          maxBatch: { records: settings.batching.maxRecords, bytes: settings.batching.maxBytes },
          ...(slots === undefined ? {} : { slots }),
          ...(settings.forwardRecordBatches ? { forwardRecordBatches: settings.forwardRecordBatches } : {}),
        })
        // A consumer that failed (its cluster gone, say) is replaced by a new one, which
        // starts where this flow's positions are: records fetched before are still in flight.
        .pipe(retryThroughOutage({ tracker: this.outages.reading, scheduler: this.parts.scheduler }))
    );
  }

  /** Progress and offset syncs, for the current assignment (see ReplicationCommits.flush). */
  private flush(retrying: boolean): Observable<void> {
    return this.commits.flush(retrying, this.partitions.stillMember);
  }
}
