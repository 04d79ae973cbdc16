// size: one class, MM2's checkpoint connector and task, whose discovery, translation and writes share its state.
/**
 * One flow's checkpoints, MM2's MirrorCheckpointConnector + MirrorCheckpointTask:
 *
 *   start            create `<source>.checkpoints.internal` on the target; load its checkpoints;
 *                    load the offset syncs, then keep following them
 *   timer(refresh)   list the source's consumer groups through the group filter; keep those
 *                    with committed offsets on topics the topic filter accepts
 *   timer(interval)  per group: committed offsets on the source → translate (offset-sync store)
 *                    → rename to target topic-partitions → monotonic filter → checkpoint
 *                    records, byte-identical to MM2's, on partition 0 of the checkpoints topic
 *   timer(sync)      optional: translated offsets into the target's idle consumer groups
 *
 * Every timer takes the injected scheduler; a pass that takes longer than the interval is not
 * overlapped by the next tick (exhaustMap: that tick is dropped). Emitting `stop$` ends every
 * timer, the offset-sync follower and any pass under way at once, and the observable completes:
 * checkpoints are idempotent and recomputed on the next start, so a stop never waits for an admin
 * call that may be retrying against an unreachable cluster.
 * Failures of a pass are logged and counted, and the next tick tries again. A failure of the
 * flow itself (its topics cannot be loaded, say) never ends checkpoints for good: they start over
 * after a backoff, for as long as it takes, with the state (`retrying`, or `failed` when retrying
 * seems unlikely to help) and the last error on the status; replication goes on meanwhile.
 * Retriable failures (a cluster down) are reported as outages on the flow's status.
 */
import { inject, injectable } from 'inversify';
import {
  type Observable,
  type SchedulerLike,
  EMPTY,
  catchError,
  concat,
  concatMap,
  defer,
  endWith,
  exhaustMap,
  finalize,
  firstValueFrom,
  from,
  identity,
  ignoreElements,
  map,
  merge,
  mergeMap,
  of,
  retry,
  take,
  takeUntil,
  tap,
  timer,
  toArray,
} from 'rxjs';
import type { ClusterAdmin, GroupOffset } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import { topicPartitionKey, type TopicPartition } from '../../core/record';
import { describeError, errorKind, isRetriable } from '../../core/errors';
import { backoffDelay, retryWithBackoff, type RetryConfig } from '../../core/retry';
import { type Checkpoint, encodeCheckpointKey, encodeCheckpointValue } from '../../formats';
import type { GroupFilter, ReplicationPolicy, TopicFilter } from '../../policy';
import { CheckpointStore } from './checkpoint-store';
import { readPreservationMarkers } from '../replication/offset-preservation';
import type { CheckpointStatus } from './checkpoint-status';
import { GroupOffsetSync } from './group-offset-sync';
import { OffsetSyncStore } from './offset-sync-store';
import { withStopSignal } from '../operators/with-stop-signal';
import { groupTranslationLag } from './translation-lag';
import type { MigrationWatch } from '../migration-state';
import type { OutageStatus, OutageTracker } from '../status/outage-status';

export interface CheckpointFlowSettings {
  readonly source: string;
  readonly target: string;
  /** `checkpoints.interval_ms` (MM2 `emit.checkpoints.interval.seconds`). */
  readonly intervalMs: number;
  /** `checkpoints.refresh_groups_interval_ms` (MM2 `refresh.groups.interval.seconds`). */
  readonly refreshGroupsIntervalMs: number;
  /** false: the groups found by the first listing that succeeds are checkpointed for good (MM2 `refresh.groups.enabled`). */
  readonly refreshGroups: boolean;
  /** `<source>.checkpoints.internal`, per the replication policy. */
  readonly checkpointsTopic: string;
  readonly checkpointsReplicationFactor: number;
  /** `mm2-offset-syncs.<other cluster>.internal` on the cluster `offset_syncs.location` names. */
  readonly offsetSyncsTopic: string;
  readonly offsetSyncsReplicationFactor: number;
  readonly syncGroupOffsets: { readonly enabled: boolean; readonly intervalMs: number };
}

export interface CheckpointFlowParts {
  readonly settings: CheckpointFlowSettings;
  /** Consumer groups and their offsets. */
  readonly sourceAdmin: ClusterAdmin;
  /** Creates the checkpoints topic; target groups for the offset sync. */
  readonly targetAdmin: ClusterAdmin;
  /** On the cluster that holds the offset-syncs topic (creates it if it is missing). */
  readonly offsetSyncsAdmin: ClusterAdmin;
  /** Reads the checkpoints topic on the target. */
  readonly checkpointsReader: TopicReader;
  /** Follows the offset-syncs topic. */
  readonly offsetSyncsReader: TopicReader;
  /** Writes checkpoints to the target. */
  readonly writer: RecordWriter;
  readonly groupFilter: GroupFilter;
  /** MM2's `shouldCheckpointTopic`: the flow's topic filter alone. */
  readonly topicFilter: TopicFilter;
  readonly policy: ReplicationPolicy;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: CheckpointStatus;
  /** The flow's outages: checkpoint operations failing against a cluster are reported there. */
  readonly outages: OutageStatus;
  /**
   * `offsets: preserve`: the group on the target whose markers say which partitions hold their
   * source's offsets (offset-preservation.ts). A group offset on such a partition is checkpointed
   * as it is, up to the target partition's end, instead of translated.
   */
  readonly preservationMarkers?: string;
  /** The flow's migration state: groups that `mirrorflow migrate cutover` took over are not synced any more. */
  readonly migration?: Pick<MigrationWatch, 'refreshed' | 'syncStopped'>;
}
/** DI token of the parts the container gives a CheckpointFlow; a token and its interface share a name. */
export const CheckpointFlowParts = Symbol.for('mirrorflow.CheckpointFlowParts');

const NONE_PRESERVED: ReadonlyMap<string, { readonly since: number; readonly end: number }> = new Map();
/** Groups whose offsets are read at once, in discovery and in a pass. */
const GROUP_CONCURRENCY = 8;
/** Checkpoint records per produce request. */
const WRITE_CHUNK = 2000;
/** How the whole checkpoint flow starts over after it failed. */
const RESTART_BACKOFF: RetryConfig = { retries: Number.POSITIVE_INFINITY, initialDelayMs: 1000, maxDelayMs: 60_000, factor: 2, jitter: 0.2 };

/**
 * MM2's `renameTopicPartition`: a source topic-partition as the target knows it. A topic that
 * came from the target goes back to its original name (`target2.topic3` → `topic3`); any other
 * gets the source's prefix (`topic3` → `source1.topic3`, `source6.topic7` → `source1.source6.topic7`).
 */
export function renameTopicPartition(tp: TopicPartition, policy: ReplicationPolicy, sourceAlias: string, targetAlias: string): TopicPartition {
  if (policy.topicSource(tp.topic) === targetAlias) return { topic: policy.originalTopic(tp.topic), partition: tp.partition };
  return { topic: policy.formatRemoteTopic(sourceAlias, tp.topic), partition: tp.partition };
}

export interface CheckpointContext {
  readonly shouldCheckpointTopic: (topic: string) => boolean;
  /** The offset-sync store's `translateDownstream` (source topic-partition). */
  readonly translate: (tp: TopicPartition, upstreamOffset: number) => number | undefined;
  readonly rename: (tp: TopicPartition) => TopicPartition;
  readonly store: CheckpointStore;
}

/**
 * MM2's `checkpointsForGroup`: the new checkpoints of one group from its committed source
 * offsets: only topics the topic filter accepts, only partitions with offset syncs, not when
 * the offset is older than every sync kept (-1), and only when more recent than the last one.
 */
export function checkpointsForGroup(group: string, upstream: readonly GroupOffset[], ctx: CheckpointContext): Checkpoint[] {
  const out: Checkpoint[] = [];
  for (const o of upstream) {
    if (!ctx.shouldCheckpointTopic(o.topic)) continue;
    const downstream = ctx.translate(o, o.offset);
    if (downstream === undefined || downstream < 0) continue;
    const cp: Checkpoint = {
      consumerGroupId: group,
      topicPartition: ctx.rename(o),
      upstreamOffset: o.offset,
      downstreamOffset: downstream,
      metadata: o.metadata,
    };
    if (ctx.store.isMoreRecent(cp)) out.push(cp);
  }
  return out;
}

interface GroupCheckpoints {
  readonly group: string;
  /** When the group's source offsets were read: the records' timestamp (as MM2). */
  readonly timestamp: number;
  readonly checkpoints: readonly Checkpoint[];
  /** `groupTranslationLag` of the offsets read; undefined when no partition translates. */
  readonly translationLag: number | undefined;
}

@injectable()
export class CheckpointFlow {
  private groups: readonly string[] = [];
  private checkpoints = new CheckpointStore();
  private syncs: OffsetSyncStore | undefined;
  private readonly groupSync: GroupOffsetSync;
  private readonly outages: { readonly starting: OutageTracker; readonly groups: OutageTracker; readonly passes: OutageTracker };

  constructor(@inject(CheckpointFlowParts) private readonly parts: CheckpointFlowParts) {
    this.groupSync = new GroupOffsetSync({ targetAdmin: parts.targetAdmin, logger: parts.logger, status: parts.status.groupSync });
    const track = (cluster: string, operation: string): OutageTracker => parts.outages.tracker(cluster, operation, parts.logger, () => parts.scheduler.now());
    this.outages = {
      starting: track(parts.settings.target, 'loading checkpoints'),
      groups: track(parts.settings.source, 'listing consumer groups'),
      passes: track(parts.settings.target, 'writing checkpoints'),
    };
  }

  /** The checkpoints written so far (loaded ones included), for status and tools. */
  get store(): CheckpointStore {
    return this.checkpoints;
  }

  /** The offset-sync store being followed, once the flow has started. */
  get offsetSyncs(): OffsetSyncStore | undefined {
    return this.syncs;
  }

  run(stop$: Observable<unknown>): Observable<never> {
    const { parts } = this;
    const { settings, scheduler, logger, status } = parts;
    return withStopSignal(stop$, (stopped$) => {
      status.state = 'starting';
      status.groupSync.enabled = settings.syncGroupOffsets.enabled;

      const start$ = concat(this.ensureTopics(), this.loadCheckpoints()).pipe(
        tap(() => {
          this.outages.starting.succeeded();
          status.lastError = undefined;
        }),
        takeUntil(stopped$),
      );
      const running$ = (loaded: boolean): Observable<never> => {
        const follow$ = this.followOffsetSyncs(!loaded);
        const groups$ = timer(0, settings.refreshGroupsIntervalMs, scheduler).pipe(
          exhaustMap(() => this.refreshGroups()),
          // Groups fixed at start: listings go on only until one succeeded.
          settings.refreshGroups ? identity : take(1),
        );
        const checkpoints$ = timer(settings.intervalMs, settings.intervalMs, scheduler).pipe(exhaustMap(() => this.pass()));
        const sync$ = settings.syncGroupOffsets.enabled
          ? timer(settings.syncGroupOffsets.intervalMs, settings.syncGroupOffsets.intervalMs, scheduler).pipe(exhaustMap(() => this.syncGroups()))
          : EMPTY;
        return merge(follow$, groups$, checkpoints$, sync$).pipe(ignoreElements(), takeUntil(stopped$));
      };

      return start$.pipe(
        concatMap(({ loaded }) => running$(loaded)),
        // Never for good: checkpoints that stopped while the process looks healthy would leave
        // consumers failing over to stale offsets. Start over after a backoff.
        retry({
          resetOnSuccess: true,
          delay: (error: unknown, attempt: number) => {
            const delayMs = backoffDelay(attempt, RESTART_BACKOFF);
            status.errors++;
            status.lastError = describeError(error);
            if (isRetriable(error)) {
              status.state = 'retrying';
              this.outages.starting.failed(error);
            } else {
              status.state = 'failed';
              this.countError(error, settings.target);
              logger.error('Checkpoints failed; starting them again later, replication goes on meanwhile.', { error: describeError(error), attempt, delayMs });
            }
            return timer(delayMs, scheduler).pipe(takeUntil(stopped$));
          },
        }),
        finalize(() => {
          this.outages.starting.abandoned();
          status.state = 'stopped';
        }),
      );
    });
  }

  /**
   * One group offset sync pass, without the groups a migration cutover took over: their offsets
   * on the target are their consumers' now. The state is read right before the pass; when it
   * cannot be read, the pass is skipped rather than risk moving a cut-over group.
   */
  private syncGroups(): Observable<void> {
    const { migration, logger } = this.parts;
    if (migration === undefined) return this.groupSync.sync(this.checkpoints.convertedOffsets());
    return migration.refreshed().pipe(
      mergeMap(() => {
        const converted = new Map([...this.checkpoints.convertedOffsets()].filter(([group]) => !migration.syncStopped(group)));
        return this.groupSync.sync(converted);
      }),
      catchError((error: unknown) => {
        logger.warn('Reading the migration state failed; group offsets are synced at the next interval.', { error: describeError(error) });
        return EMPTY;
      }),
    );
  }

  /** The checkpoints topic on the target and the offset-syncs topic, as MM2 creates them. */
  private ensureTopics(): Observable<never> {
    const { settings, targetAdmin, offsetSyncsAdmin, logger } = this.parts;
    const compacted = (name: string, replicationFactor: number) => [{ name, partitions: 1, replicationFactor, configs: { 'cleanup.policy': 'compact' } }];
    const ensure = (admin: ClusterAdmin, name: string, replicationFactor: number): Observable<never> =>
      admin.createTopics(compacted(name, replicationFactor)).pipe(
        tap((created) => {
          if (created.length > 0) logger.info('Internal topic created.', { cluster: admin.cluster, topic: name });
        }),
        ignoreElements(),
        // MM2 carries on when it may not create topics (they may exist or be auto-created); if the
        // topic is really missing, the load or the writes fail later and say so.
        catchError((error: unknown) => {
          logger.warn('Could not create an internal topic.', { cluster: admin.cluster, topic: name, error: describeError(error) });
          return EMPTY;
        }),
      );
    return concat(
      ensure(targetAdmin, settings.checkpointsTopic, settings.checkpointsReplicationFactor),
      ensure(offsetSyncsAdmin, settings.offsetSyncsTopic, settings.offsetSyncsReplicationFactor),
    );
  }

  private loadCheckpoints(): Observable<{ loaded: boolean }> {
    const { settings, checkpointsReader, groupFilter, logger, status } = this.parts;
    return defer(() => {
      status.state = 'loading';
      return CheckpointStore.load(checkpointsReader, settings.checkpointsTopic, {
        acceptGroup: (group) => groupFilter.shouldReplicateGroup(group),
        logger,
      }).pipe(
        map(({ store, loaded }) => {
          this.checkpoints = store;
          return { loaded };
        }),
      );
    });
  }

  /**
   * Loads the offset syncs and keeps following them. A failure starts over with a new store after
   * a backoff (translations pause until it has read to the end again).
   */
  private followOffsetSyncs(initializationMustReadToEnd: boolean): Observable<never> {
    const { settings, offsetSyncsReader, logger, status, scheduler } = this.parts;
    return defer(() => {
      const store = new OffsetSyncStore({ initializationMustReadToEnd, logger });
      this.syncs = store;
      status.state = 'loading';
      return store.follow(offsetSyncsReader, settings.offsetSyncsTopic);
    }).pipe(
      tap(() => {
        status.state = 'running';
        logger.info('Checkpoints started.', { source: settings.source, target: settings.target, topic: settings.checkpointsTopic });
      }),
      retryWithBackoff({
        retries: Number.POSITIVE_INFINITY,
        initialDelayMs: 1000,
        maxDelayMs: 30_000,
        factor: 2,
        jitter: 0.2,
        scheduler,
        onRetry: (error, attempt, delayMs) => {
          status.errors++;
          this.countError(error, this.parts.offsetSyncsAdmin.cluster);
          logger.warn('Reading offset syncs failed; retrying.', { topic: settings.offsetSyncsTopic, error: describeError(error), attempt, delayMs });
        },
      }),
      ignoreElements(),
    );
  }

  /** MM2's `findConsumerGroups`. Keeps the previous set if the listing fails. */
  private refreshGroups(): Observable<void> {
    const { sourceAdmin, groupFilter, topicFilter, logger, status } = this.parts;
    return sourceAdmin.listGroups().pipe(
      mergeMap((all) =>
        from(all.filter((g) => groupFilter.shouldReplicateGroup(g))).pipe(
          mergeMap(
            (group) =>
              sourceAdmin.fetchGroupOffsets(group).pipe(
                map((offsets) => (offsets.some((o) => topicFilter.shouldReplicateTopic(o.topic)) ? group : undefined)),
                // A group deleted since the listing, say: leave it out this time.
                catchError(() => of(undefined)),
              ),
            GROUP_CONCURRENCY,
          ),
          toArray(),
          map((found) => found.filter((g): g is string => g !== undefined)),
        ),
      ),
      map((groups) => {
        const sorted = groups.sort();
        if (sorted.length !== this.groups.length || sorted.some((g, i) => g !== this.groups[i])) {
          logger.info('Checkpointing consumer groups.', { count: sorted.length, groups: sorted.slice(0, 20) });
        }
        this.groups = sorted;
        status.groups = sorted.length;
      }),
      tap(() => this.outages.groups.succeeded()),
      catchError((error: unknown) => {
        status.errors++;
        if (isRetriable(error)) this.outages.groups.failed(error);
        else {
          this.countError(error, this.parts.settings.source);
          logger.warn('Listing consumer groups on the source failed; will retry at the next refresh.', { error: describeError(error) });
        }
        return EMPTY;
      }),
    );
  }

  /** One checkpoint pass (MM2's `poll`): nothing until both stores are loaded. */
  private pass(): Observable<void> {
    const { scheduler, status } = this.parts;
    return defer(() => {
      const syncs = this.syncs;
      if (syncs === undefined || !syncs.isReadToEnd) return EMPTY;
      status.offsetSyncPartitions = syncs.partitionCount;
      const startedAt = scheduler.now();
      // Without offsets: preserve nothing is read, and the pass stays synchronous up to its first request.
      const preserved$ = this.parts.preservationMarkers === undefined ? of(NONE_PRESERVED) : from(this.preservedPartitions());
      return preserved$.pipe(mergeMap((preserved) => this.passWith(syncs, preserved, startedAt)));
    });
  }

  /**
   * The partitions of a flow with `offsets: preserve` that hold their source's offsets, with the
   * first offset preserved and the target's end, by remote topic-partition; empty when the
   * markers cannot be read (then every offset is translated, as always).
   */
  private async preservedPartitions(): Promise<ReadonlyMap<string, { readonly since: number; readonly end: number }>> {
    const group = this.parts.preservationMarkers;
    const found = new Map<string, { since: number; end: number }>();
    if (group === undefined) return found;
    try {
      const markers = await readPreservationMarkers(this.parts.targetAdmin, group);
      const topics = new Set<string>();
      for (const [key, marker] of markers) if (marker.preserved) topics.add(key.slice(0, key.lastIndexOf('-')));
      for (const topic of topics) {
        for (const p of await firstValueFrom(this.parts.targetAdmin.partitionOffsets(topic))) {
          const marker = markers.get(topicPartitionKey({ topic, partition: p.partition }));
          if (marker?.preserved === true) found.set(topicPartitionKey({ topic, partition: p.partition }), { since: marker.offset, end: p.latest });
        }
      }
    } catch (error) {
      this.parts.logger.debug('Reading which partitions keep their offsets failed; this pass translates every offset.', { error: describeError(error) });
      found.clear();
    }
    return found;
  }

  private passWith(
    syncs: OffsetSyncStore,
    preserved: ReadonlyMap<string, { readonly since: number; readonly end: number }>,
    startedAt: number,
  ): Observable<void> {
    const { sourceAdmin, scheduler, logger, status } = this.parts;
    const ctx = this.context(syncs, preserved);
    return from(this.groups).pipe(
      mergeMap((group) => {
        const timestamp = scheduler.now();
        return sourceAdmin.fetchGroupOffsets(group).pipe(
          map((offsets): GroupCheckpoints => ({
            group,
            timestamp,
            checkpoints: checkpointsForGroup(group, offsets, ctx),
            translationLag: groupTranslationLag(offsets, ctx.shouldCheckpointTopic, (tp, offset) => syncs.translate(tp, offset)),
          })),
          catchError((error: unknown) => {
            status.errors++;
            this.countError(error, this.parts.settings.source);
            logger.warn("Reading a consumer group's offsets on the source failed; skipped this pass.", { group, error: describeError(error) });
            return EMPTY;
          }),
        );
      }, GROUP_CONCURRENCY),
      toArray(),
      mergeMap((all) => {
        const results = all.filter((g) => g.checkpoints.length > 0);
        return this.write(results).pipe(map(() => ({ all, results })));
      }),
      map(({ all, results }) => {
        // Only acknowledged checkpoints count as emitted, so a failed write is retried next pass.
        let written = 0;
        let oldest = Number.POSITIVE_INFINITY;
        for (const r of results) {
          this.checkpoints.update(r.checkpoints);
          written += r.checkpoints.length;
          oldest = Math.min(oldest, r.timestamp);
        }
        const now = scheduler.now();
        status.recordPass(written, startedAt, now, written > 0 ? Math.max(0, now - oldest) : undefined);
        status.recordTranslationLag(all, this.groups);
        if (written > 0) logger.debug('Checkpoints written.', { checkpoints: written, groups: results.length });
        this.outages.passes.succeeded();
      }),
      catchError((error: unknown) => {
        status.errors++;
        if (isRetriable(error)) this.outages.passes.failed(error);
        else {
          this.countError(error, this.parts.settings.target);
          logger.warn('Writing checkpoints failed; will retry at the next interval.', { error: describeError(error) });
        }
        return EMPTY;
      }),
    );
  }

  /** A failure no outage tracker counts: by its kind, `checkpoint-failed` when it has no other. */
  private countError(error: unknown, cluster: string): void {
    const kind = errorKind(error);
    this.parts.outages.errors.record(error, cluster, kind === 'other' ? 'checkpoint-failed' : kind);
  }

  private context(syncs: OffsetSyncStore, preserved: ReadonlyMap<string, { readonly since: number; readonly end: number }>): CheckpointContext {
    const { policy, settings, topicFilter } = this.parts;
    const renamed = new Map<string, string>();
    const rename = (tp: TopicPartition): TopicPartition => {
      let topic = renamed.get(tp.topic);
      if (topic === undefined) {
        topic = renameTopicPartition(tp, policy, settings.source, settings.target).topic;
        renamed.set(tp.topic, topic);
      }
      return { topic, partition: tp.partition };
    };
    return {
      shouldCheckpointTopic: (topic) => topicFilter.shouldReplicateTopic(topic),
      // A preserved partition's offset is the same on the target, once replicated up to it.
      translate: (tp, offset) => {
        const exact = preserved.size === 0 ? undefined : preserved.get(topicPartitionKey(rename(tp)));
        if (exact !== undefined && offset >= exact.since && offset <= exact.end) return offset;
        return syncs.translateDownstream(tp, offset);
      },
      rename,
      store: this.checkpoints,
    };
  }

  private write(results: readonly GroupCheckpoints[]): Observable<void> {
    const { writer, settings, scheduler, logger } = this.parts;
    const records: OutboundRecord[] = [];
    for (const r of results) {
      for (const cp of r.checkpoints) {
        records.push({
          topic: settings.checkpointsTopic,
          partition: 0,
          timestamp: r.timestamp,
          key: encodeCheckpointKey(cp),
          value: encodeCheckpointValue(cp),
          headers: [],
        });
      }
    }
    if (records.length === 0) return of(undefined);
    const chunks: OutboundRecord[][] = [];
    for (let i = 0; i < records.length; i += WRITE_CHUNK) chunks.push(records.slice(i, i + WRITE_CHUNK));
    return from(chunks).pipe(
      concatMap((chunk) =>
        writer.write(chunk).pipe(
          retryWithBackoff({
            retries: 3,
            initialDelayMs: 500,
            maxDelayMs: 5000,
            factor: 2,
            jitter: 0.2,
            scheduler,
            onRetry: (error, attempt, delayMs) => logger.warn('Writing checkpoints failed; retrying.', { error: describeError(error), attempt, delayMs }),
          }),
        ),
      ),
      ignoreElements(),
      endWith(undefined),
    );
  }
}
