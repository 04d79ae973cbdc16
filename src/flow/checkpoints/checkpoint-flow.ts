/**
 * One flow's checkpoints, MM2's MirrorCheckpointConnector + MirrorCheckpointTask:
 *
 *   start            create `<source>.checkpoints.internal` on the target; load its checkpoints;
 *                    list the groups; load the offset syncs, then keep following them
 *   timer(refresh)   list the source's consumer groups through the group filter; keep those
 *                    with committed offsets on topics the topic filter accepts
 *   timer(interval)  per group: committed offsets on the source → held in the offset-sync store
 *                    (group-holds.ts) → translate → rename to target topic-partitions → emission
 *                    rule → checkpoint records, byte-identical to MM2's, on the checkpoints topic
 *   timer(sync)      optional: translated offsets into the target's idle consumer groups; then the
 *                    source's share groups' start offsets, translated, into the target's idle share
 *                    groups (share-group-offset-sync.ts: no checkpoint records, MM2 has none for them)
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
 *
 * This class runs the timers and the start; its parts: which groups (group-discovery.ts), which
 * partitions keep their offsets (preserved-partitions.ts), how a pass reads the groups
 * (read-group-checkpoints.ts), how offsets translate
 * (checkpoint-translation.ts), and which checkpoints are emitted and how they are written
 * (checkpoint-emission.ts).
 */
import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import {
  type Observable,
  type SchedulerLike,
  EMPTY,
  catchError,
  concat,
  concatMap,
  defer,
  exhaustMap,
  finalize,
  ignoreElements,
  map,
  merge,
  mergeMap,
  retry,
  take,
  takeUntil,
  tap,
  timer,
} from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { RecordWriter } from '../../core/ports/record-writer';
import { describeError, isRetriable } from '../../core/errors';
import { backoffDelay, type RetryConfig } from '../../core/retry';
import type { GroupFilter, ReplicationPolicy, TopicFilter } from '../../policy';
import { CheckpointStore } from './checkpoint-store';
import { countCheckpointError, type CheckpointStatus } from './checkpoint-status';
import { OffsetSyncStore } from './offset-sync-store';
import { followOffsetSyncs } from './follow-offset-syncs';
import { withStopSignal } from '../operators/with-stop-signal';
import type { MigrationWatch } from '../migration-state';
import type { OutageStatus, OutageTracker } from '../status/outage-status';
import { CheckpointEmission } from './checkpoint-emission';
import { readGroupCheckpoints } from './read-group-checkpoints';
import { checkpointTranslation, renameTopicPartition, type CheckpointTranslation, type CheckpointTranslationOf } from './checkpoint-translation';
import { GroupDiscovery } from './group-discovery';
import { GroupHolds } from './group-holds';
import { preservedPartitions } from './preserved-partitions';
import { GroupSyncStates } from './group-sync-states';
import { GroupSyncPass } from './group-sync-pass';

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
  /** Active-active with names kept: the reverse flow's offset syncs, which hold checkpoints back (checkpoint-translation.ts). */
  readonly reverseSyncs?: { readonly reader: TopicReader; readonly topic: string };
}
/** DI token of the parts the container gives a CheckpointFlow; a token and its interface share a name. */
export const CheckpointFlowParts = token<CheckpointFlowParts>('CheckpointFlowParts');

/** How the whole checkpoint flow starts over after it failed. */
const RESTART_BACKOFF: RetryConfig = { retries: Number.POSITIVE_INFINITY, initialDelayMs: 1000, maxDelayMs: 60_000, factor: 2, jitter: 0.2 };

@injectable()
export class CheckpointFlow {
  private checkpoints = new CheckpointStore();
  private syncs: OffsetSyncStore | undefined;
  private reverse: OffsetSyncStore | undefined;
  /** What the groups hold in `syncs` (group-holds.ts). */
  private holds: GroupHolds | undefined;
  private readonly groupSync: GroupSyncPass;
  private readonly discovery: GroupDiscovery;
  private readonly emission: CheckpointEmission;
  private readonly starting: OutageTracker;
  private readonly translationOf: CheckpointTranslationOf;
  private readonly groupStates: GroupSyncStates;

  constructor(@inject(CheckpointFlowParts) private readonly parts: CheckpointFlowParts) {
    const { settings, logger, outages, status } = parts;
    this.groupStates = new GroupSyncStates({
      source: settings.source,
      target: settings.target,
      syncEnabled: settings.syncGroupOffsets.enabled,
      hasCheckpoints: (group) => this.checkpoints.get(group) !== undefined,
      logger,
      now: () => parts.scheduler.now(),
    });
    status.groupStates = this.groupStates;
    this.groupSync = new GroupSyncPass({
      ...parts,
      groupStates: this.groupStates,
      status: status.groupSync,
      converted: () => this.checkpoints.convertedOffsets(),
      shareGroups: () => this.discovery.shareGroups,
      translation: () => this.translation(),
      holds: () => this.holds,
    });
    const track = (cluster: string, operation: string): OutageTracker => outages.tracker(cluster, operation, logger, () => parts.scheduler.now());
    this.starting = track(settings.target, 'loading checkpoints');
    this.translationOf = { source: settings.source, target: settings.target, policy: parts.policy, topicFilter: parts.topicFilter };
    this.discovery = new GroupDiscovery({
      source: settings.source,
      sourceAdmin: parts.sourceAdmin,
      groupFilter: parts.groupFilter,
      topicFilter: parts.topicFilter,
      outage: track(settings.source, 'listing consumer groups'),
      outages,
      logger,
      status,
      states: this.groupStates,
      readShareGroupOffsets: settings.syncGroupOffsets.enabled,
    });
    this.emission = new CheckpointEmission({
      writer: parts.writer,
      checkpointsTopic: settings.checkpointsTopic,
      target: settings.target,
      outage: track(settings.target, 'writing checkpoints'),
      outages,
      scheduler: parts.scheduler,
      logger,
      status,
    });
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
          this.starting.succeeded();
          status.lastError = undefined;
        }),
        takeUntil(stopped$),
      );
      const running$ = (loaded: boolean): Observable<never> => {
        const interval = settings.refreshGroupsIntervalMs;
        const relist = () => this.discovery.refresh();
        // Groups fixed at start: listings go on only until one succeeded.
        const later$ = settings.refreshGroups
          ? timer(interval, interval, scheduler).pipe(exhaustMap(relist))
          : defer(() => (this.discovery.listed ? EMPTY : timer(interval, interval, scheduler).pipe(exhaustMap(relist), take(1))));
        const checkpoints$ = timer(settings.intervalMs, settings.intervalMs, scheduler).pipe(exhaustMap(() => this.pass()));
        const sync$ = settings.syncGroupOffsets.enabled
          ? timer(settings.syncGroupOffsets.intervalMs, settings.syncGroupOffsets.intervalMs, scheduler).pipe(exhaustMap(() => this.groupSync.run()))
          : EMPTY;
        // Syncs are read once the groups were first listed (or that failed), whose offsets are held meanwhile.
        const follow$ = merge(this.followOffsetSyncs(!loaded), this.followReverseSyncs());
        return concat(relist(), merge(follow$, later$, checkpoints$, sync$)).pipe(ignoreElements(), takeUntil(stopped$));
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
              this.starting.failed(error);
            } else {
              status.state = 'failed';
              countCheckpointError(this.parts.outages, error, settings.target);
              logger.error('Checkpoints failed; starting them again later, replication goes on meanwhile.', { error: describeError(error), attempt, delayMs });
            }
            return timer(delayMs, scheduler).pipe(takeUntil(stopped$));
          },
        }),
        finalize(() => {
          this.starting.abandoned();
          status.state = 'stopped';
        }),
      );
    });
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
    const { settings, offsetSyncsReader, logger, status, policy, topicFilter } = this.parts;
    return followOffsetSyncs(this.parts, offsetSyncsReader, settings.offsetSyncsTopic, () => {
      // Held before any sync is read: the offsets the groups were listed at, those of loaded checkpoints.
      const store: OffsetSyncStore = new OffsetSyncStore({
        initializationMustReadToEnd,
        logger,
        onNewPartition: (tp) => holds.checkpointed(tp, renameTopicPartition(tp, policy, settings.source, settings.target), this.checkpoints),
      });
      const holds = new GroupHolds(store);
      for (const [group, offsets] of this.discovery.offsets)
        holds.read(
          group,
          offsets.filter((o) => topicFilter.shouldReplicateTopic(o.topic)),
        );
      this.syncs = store;
      this.holds = holds;
      status.state = 'loading';
      return store;
    }).pipe(
      tap(() => {
        status.state = 'running';
        logger.info('Checkpoints started.', { source: settings.source, target: settings.target, topic: settings.checkpointsTopic });
      }),
      ignoreElements(),
    );
  }

  /** The reverse flow's offset syncs, with their whole history (they only hold checkpoints back); none without a reverse flow. */
  private followReverseSyncs(): Observable<never> {
    const { reverseSyncs } = this.parts;
    if (reverseSyncs === undefined) return EMPTY;
    const { logger } = this.parts;
    return followOffsetSyncs(
      this.parts,
      reverseSyncs.reader,
      reverseSyncs.topic,
      () => (this.reverse = new OffsetSyncStore({ initializationMustReadToEnd: false, logger })),
    ).pipe(ignoreElements());
  }

  /**
   * A pass's translation (checkpoint-translation.ts) with the offset-sync store it reads, once both
   * stores are loaded (nothing before): the preserved partitions read (preserved-partitions.ts) first.
   */
  private translation(): Observable<{ readonly syncs: OffsetSyncStore; readonly translation: CheckpointTranslation }> {
    const { targetAdmin, preservationMarkers, logger } = this.parts;
    return defer(() => {
      const syncs = this.syncs;
      if (syncs === undefined || !syncs.isReadToEnd) return EMPTY;
      const { reverse } = this;
      if (this.parts.reverseSyncs !== undefined && (reverse === undefined || !reverse.isReadToEnd)) return EMPTY;
      return preservedPartitions(targetAdmin, preservationMarkers, logger).pipe(
        map((preserved) => ({ syncs, translation: checkpointTranslation(this.translationOf, syncs, preserved, reverse) })),
      );
    });
  }

  /**
   * One checkpoint pass (MM2's `poll`), nothing until both stores are loaded: every group's
   * offsets translated (`translation`), then what is emitted written (checkpoint-emission.ts).
   */
  private pass(): Observable<void> {
    const { scheduler, status, settings } = this.parts;
    return defer(() => {
      const startedAt = scheduler.now();
      return this.translation().pipe(
        mergeMap(({ syncs, translation }) => {
          status.offsetSyncPartitions = syncs.partitionCount;
          return readGroupCheckpoints(this.discovery.groups, { ...translation, store: this.checkpoints }, syncs, {
            ...this.parts,
            holds: this.holds,
            groupStates: this.groupStates,
          });
        }),
        // Groups no longer checkpointed (once groups were listed) give up what they held; share groups keep theirs while synced.
        tap(() => {
          const holding = settings.syncGroupOffsets.enabled ? [...this.discovery.groups, ...this.discovery.shareGroups] : this.discovery.groups;
          if (this.discovery.listed) this.holds?.keepOnly(holding);
        }),
        mergeMap((read) => this.emission.emit(read, this.checkpoints, startedAt, this.discovery.groups)),
        tap(() => this.groupStates.refresh()),
        catchError((error: unknown) => this.emission.failed(error)),
      );
    });
  }
}
