/**
 * Share groups' progress copied to the target (KIP-932, Kafka 4.2+), with
 * `checkpoints.sync_group_offsets` on: MM2 has no such thing, and its checkpoint format has no
 * share groups, so this writes no checkpoint records; it sets the target share group of the same
 * name directly, as `Admin.alterShareGroupOffsets` does.
 *
 * A share group's progress on a partition, as far as it can be read and set, is its
 * share-partition start offset: every record before it is done with (acknowledged, rejected or
 * archived), the record at it is not. Records after it may have been acknowledged one by one;
 * that is not copied (Kafka offers no way to set it), so after a failover they are delivered again:
 * a share group's delivery is at least once anyway.
 *
 * Per share group of the source that the groups filter lets through, at each sync:
 *
 *   1. its start offsets on topics the flow replicates, read on the source (a partition it has
 *      none on, never read, is left alone: on the target, too, share.auto.offset.reset decides);
 *   2. each translated through the offset syncs as a consumer group's committed offset is
 *      (MM2's translateDownstream): never ahead of what was copied, so a record not yet done with
 *      on the source is never skipped on the target;
 *   3. the target groups of the same names described, all of the pass's in one
 *      DescribeShareGroups (each alone when that fails): one with members is left alone (its
 *      start offsets cannot be changed while they run, and the broker refuses it), and the start
 *      offsets of an idle one read;
 *   4. the share configs set on the source group copied where the target's differ
 *      (share-group-configs.ts: `share.auto.offset.reset` and the like): for all the pass's idle
 *      groups at once, one DescribeConfigs per cluster and one IncrementalAlterConfigs;
 *   5. every partition where the target group has no start offset, or one behind the translated
 *      offset, altered in one request per group: a target share group that is further ahead is
 *      never moved back, and a group the target does not know is created with them.
 *
 * A group a member joined between 3 and 5 is refused by the broker (NON_EMPTY_GROUP) and counted
 * as active. Each group's outcome goes to its sync state (group-sync-states.ts).
 */
import { EMPTY, type Observable, catchError, concat, defer, forkJoin, from, ignoreElements, map, mergeMap, of, tap, toArray } from '#rxjs';
import {
  GroupActiveError,
  type ClusterAdmin,
  type GroupState,
  type ShareGroupStartOffset,
  type TopicConfigChange,
  type TopicConfigEntry,
} from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { describeError } from '../../core/errors';
import type { GroupSyncStatus } from './checkpoint-status';
import type { CheckpointTranslation } from './checkpoint-translation';
import type { GroupHolds } from './group-holds';
import type { GroupSyncResult, GroupSyncStates } from './group-sync-states';
import { describeConfigChanges, shareGroupConfigChanges } from './share-group-configs';
import { planShareGroupSync, translateShareGroup, type ShareGroupSyncPlan } from './share-group-sync-plan';

export interface ShareGroupOffsetSyncOptions {
  readonly sourceAdmin: ClusterAdmin;
  readonly targetAdmin: ClusterAdmin;
  readonly logger: Logger;
  /** The flow's group sync counters, shared with consumer groups. */
  readonly status: GroupSyncStatus;
  /** Told each group's translation and what the sync did with it. */
  readonly states?: GroupSyncStates;
  /** Groups handled at once. */
  readonly concurrency?: number;
}

interface ShareGroupOutcome {
  readonly group: string;
  /** Its start offsets on replicated topics, and how many of them translate (none when `unread`). */
  readonly coverage?: { readonly partitions: number; readonly translated: number };
  /** `none`: nothing translates (the translation's state says why); `unread`: the source could not be read this time. */
  readonly result: 'altered' | 'up-to-date' | 'active' | 'failed' | 'none' | 'unread';
  readonly offsets: number;
  readonly targetState?: GroupState;
  readonly error?: string;
}

/** A group idle on the target (no members), its start offsets planned: it gets the source group's configs, then those. */
interface IdleShareGroup {
  readonly group: string;
  readonly coverage: { readonly partitions: number; readonly translated: number };
  /** How many of its start offsets translate. */
  readonly translated: number;
  readonly plan: Exclude<ShareGroupSyncPlan, { kind: 'skip-active' }>;
}

/** A group read on the source: done (unread, nothing translates), or its translated start offsets to plan on the target. */
type ReadShareGroup =
  | { readonly done: ShareGroupOutcome }
  | {
      readonly group: string;
      readonly coverage: { readonly partitions: number; readonly translated: number };
      readonly translated: readonly ShareGroupStartOffset[];
    };

/** What the target says of a share group. */
type TargetShareGroup = { readonly state: GroupState; readonly members: number };

/** A group's first half of a pass: done (nothing to set, active, failed), or idle on the target. */
type PlannedShareGroup = { readonly done: ShareGroupOutcome } | { readonly idle: IdleShareGroup };

/** A group's configs on one cluster, or why they could not be read. */
type GroupConfigsRead = ReadonlyMap<string, readonly TopicConfigEntry[] | { readonly error: string }>;

export class ShareGroupOffsetSync {
  /** Groups read, described alone or set at once. */
  private readonly concurrency: number;

  constructor(private readonly options: ShareGroupOffsetSyncOptions) {
    this.concurrency = options.concurrency ?? 4;
  }

  /**
   * One pass over `groups` (the source's share groups the filter lets through) with one
   * checkpoint pass's translation; `holds` keeps the offset syncs near their start offsets.
   * Per group its offsets are read and planned; then the configs of every group idle on the
   * target are read with one DescribeConfigs per cluster and set with one IncrementalAlterConfigs
   * on the target; then the groups' start offsets are set. Never errors: failures are counted
   * and logged per group.
   */
  sync(groups: readonly string[], translation: CheckpointTranslation, holds?: GroupHolds): Observable<void> {
    return defer(() => {
      if (groups.length === 0) return of(undefined).pipe(tap(() => this.finish([])));
      return from([...groups].sort()).pipe(
        mergeMap((group) => this.readGroup(group, translation, holds), this.concurrency),
        toArray(),
        mergeMap((read) => this.planTargets(read)),
        mergeMap((planned) => {
          const done = planned.flatMap((p) => ('done' in p ? [p.done] : []));
          const idle = planned.flatMap((p) => ('idle' in p ? [p.idle] : []));
          return concat(this.copyConfigs(idle.map((g) => g.group).sort()), from(idle).pipe(mergeMap((g) => this.setStartOffsets(g), this.concurrency))).pipe(
            toArray(),
            map((outcomes) => [...done, ...outcomes]),
          );
        }),
        tap((outcomes) => this.finish(outcomes)),
        map(() => undefined),
      );
    });
  }

  /** Reads the group's start offsets on the source and translates them: done, or to be planned against the target. */
  private readGroup(group: string, translation: CheckpointTranslation, holds: GroupHolds | undefined): Observable<ReadShareGroup> {
    const { sourceAdmin, logger } = this.options;
    return defer(() => sourceAdmin.fetchShareGroupOffsets(group)).pipe(
      catchError((error: unknown) => {
        logger.warn("Reading a share group's start offsets on the source failed; skipped this time.", { group, error: describeError(error) });
        return of(undefined);
      }),
      map((upstream): ReadShareGroup => {
        if (upstream === undefined) return { done: { group, result: 'unread', offsets: 0 } };
        // Held as a consumer group's offsets are: syncs arriving until the next pass are kept for them.
        holds?.read(
          group,
          upstream
            .filter((o) => translation.shouldCheckpointTopic(o.topic))
            .map((o) => ({ topic: o.topic, partition: o.partition, offset: o.startOffset, metadata: '' })),
        );
        const { partitions, translated } = translateShareGroup(upstream, translation);
        const coverage = { partitions, translated: translated.length };
        if (translated.length === 0) return { done: { group, coverage, result: 'none', offsets: 0 } };
        return { group, coverage, translated };
      }),
    );
  }

  /**
   * The target groups of every group read with offsets that translate, described in one
   * DescribeShareGroups, then each planned; in the order `read` has them.
   */
  private planTargets(read: readonly ReadShareGroup[]): Observable<PlannedShareGroup[]> {
    const toPlan = read.flatMap((r) => ('done' in r ? [] : [r]));
    if (toPlan.length === 0) return of(read.map((r) => r as { readonly done: ShareGroupOutcome }));
    return this.describeTargets(toPlan.map((r) => r.group)).pipe(
      mergeMap((described) =>
        from(toPlan).pipe(
          mergeMap(
            (r) =>
              this.planTarget(r.group, r.translated, described.get(r.group)!).pipe(
                map((planned): [string, PlannedShareGroup] => [
                  r.group,
                  'done' in planned ? { done: { ...planned.done, coverage: r.coverage } } : { idle: { ...planned.idle, coverage: r.coverage } },
                ]),
              ),
            this.concurrency,
          ),
          toArray(),
        ),
      ),
      map((entries) => {
        const planned = new Map(entries);
        return read.map((r) => ('done' in r ? r : planned.get(r.group)!));
      }),
    );
  }

  /**
   * The target's share groups, in one request. The broker's answer is taken as a whole (one group
   * refused fails it), so when it fails each group is asked alone: one group refused does not
   * keep the others from being synced. Never errors: a group that cannot be described has its error.
   */
  private describeTargets(groups: readonly string[]): Observable<ReadonlyMap<string, TargetShareGroup | { readonly error: unknown }>> {
    const { targetAdmin } = this.options;
    const ask = (ids: readonly string[]) =>
      defer(() => targetAdmin.describeShareGroups(ids)).pipe(
        map((described) => new Map(ids.map((id) => [id, described.get(id) ?? { state: 'dead' as const, members: 0 }]))),
      );
    const alone = (group: string): Observable<readonly [string, TargetShareGroup | { readonly error: unknown }]> =>
      ask([group]).pipe(
        map((described) => [group, described.get(group)!] as const),
        catchError((error: unknown) => of([group, { error }] as const)),
      );
    if (groups.length === 1) return alone(groups[0]!).pipe(map((entry) => new Map([entry])));
    return ask(groups).pipe(
      catchError(() =>
        from(groups).pipe(
          mergeMap(alone, this.concurrency),
          toArray(),
          map((entries) => new Map<string, TargetShareGroup | { readonly error: unknown }>(entries)),
        ),
      ),
    );
  }

  /** The target group, as described, and when idle its start offsets read and planned. */
  private planTarget(
    group: string,
    translated: readonly ShareGroupStartOffset[],
    target: TargetShareGroup | { readonly error: unknown },
  ): Observable<{ readonly done: ShareGroupOutcome } | { readonly idle: Omit<IdleShareGroup, 'coverage'> }> {
    const { targetAdmin } = this.options;
    if ('error' in target) return of({ done: this.targetFailure(group, target.error) });
    // A group its application runs on at the target is left alone, its configs too.
    if (planShareGroupSync(translated, target, []).kind === 'skip-active') {
      return of({ done: { group, result: 'active' as const, offsets: 0, targetState: target.state } });
    }
    const current$ = target.state === 'dead' ? of<readonly ShareGroupStartOffset[]>([]) : defer(() => targetAdmin.fetchShareGroupOffsets(group));
    return current$.pipe(
      map((current) => {
        const plan = planShareGroupSync(translated, target, current);
        if (plan.kind === 'skip-active') return { done: { group, result: 'active' as const, offsets: 0, targetState: plan.state } };
        return { idle: { group, translated: translated.length, plan } };
      }),
      catchError((error: unknown) => of({ done: this.targetFailure(group, error) })),
    );
  }

  /** Sets the start offsets planned for an idle target group. */
  private setStartOffsets({ group, coverage, translated, plan }: IdleShareGroup): Observable<ShareGroupOutcome> {
    const { targetAdmin, logger } = this.options;
    if (plan.kind === 'up-to-date') return of<ShareGroupOutcome>({ group, coverage, result: 'up-to-date', offsets: translated });
    return concat(
      defer(() => targetAdmin.alterShareGroupOffsets(group, plan.offsets)).pipe(ignoreElements()),
      defer(() => {
        logger.debug('Share group start offsets synced to the target.', { group, reason: plan.reason, partitions: plan.offsets.length });
        return of<ShareGroupOutcome>({ group, coverage, result: 'altered', offsets: plan.offsets.length });
      }),
    ).pipe(catchError((error: unknown) => of({ ...this.targetFailure(group, error), coverage })));
  }

  private targetFailure(group: string, error: unknown): ShareGroupOutcome {
    // A consumer joined between the describe and the alter: the broker refused it.
    if (error instanceof GroupActiveError) return { group, result: 'active', offsets: 0, targetState: 'stable' };
    this.options.logger.warn("Could not sync a share group's start offsets to the target.", { group, error: describeError(error) });
    return { group, result: 'failed', offsets: 0, error: describeError(error) };
  }

  /**
   * The share configs set on the source groups, set on the target groups (idle there) where they
   * differ (share-group-configs.ts), before their start offsets: a group the target creates then
   * starts with them. One DescribeConfigs per cluster for all of them and one
   * IncrementalAlterConfigs for those that differ. A group whose configs cannot be read or set is
   * logged, and its start offsets are synced all the same.
   */
  private copyConfigs(groups: readonly string[]): Observable<never> {
    const { sourceAdmin, targetAdmin, logger } = this.options;
    if (groups.length === 0) return EMPTY;
    const notCopied = (group: string, error: string): void =>
      logger.warn("Could not copy a share group's configs to the target; its start offsets are synced all the same.", { group, error });
    return forkJoin([this.readConfigs(sourceAdmin, groups), this.readConfigs(targetAdmin, groups)]).pipe(
      mergeMap(([source, target]) => {
        const changes = new Map<string, TopicConfigChange[]>();
        for (const group of groups) {
          const onSource = source.get(group) ?? [];
          const onTarget = target.get(group) ?? [];
          if ('error' in onSource) notCopied(group, onSource.error);
          else if ('error' in onTarget) notCopied(group, onTarget.error);
          else {
            const list = shareGroupConfigChanges(onSource, onTarget);
            if (list.length > 0) changes.set(group, list);
          }
        }
        if (changes.size === 0) return EMPTY;
        return defer(() => targetAdmin.alterGroupConfigs(changes)).pipe(
          tap((results) => {
            for (const [group, list] of changes) {
              const result = results.get(group);
              if (result?.ok === true) logger.info("Share group's configs copied to the target.", { group, configs: describeConfigChanges(list) });
              else notCopied(group, result === undefined ? 'the broker did not answer for it' : `${result.error}: ${result.message}`);
            }
          }),
          catchError((error: unknown) => {
            for (const group of changes.keys()) notCopied(group, describeError(error));
            return EMPTY;
          }),
        );
      }),
      ignoreElements(),
    );
  }

  /**
   * The groups' configs on one cluster, in one request. The broker's answer is taken as a whole
   * (kafkajs errors when any group is refused), so when it fails each group is asked alone: one
   * group refused (not authorized, say) does not keep the others' configs from being copied.
   * Never errors.
   */
  private readConfigs(admin: ClusterAdmin, groups: readonly string[]): Observable<GroupConfigsRead> {
    const alone = (group: string): Observable<readonly [string, readonly TopicConfigEntry[] | { readonly error: string }]> =>
      defer(() => admin.describeGroupConfigs([group])).pipe(
        map((read) => [group, read.get(group) ?? []] as const),
        catchError((error: unknown) => of([group, { error: describeError(error) }] as const)),
      );
    if (groups.length === 1) return alone(groups[0]!).pipe(map((entry) => new Map([entry])));
    return defer(() => admin.describeGroupConfigs(groups)).pipe(
      catchError(() =>
        from(groups).pipe(
          mergeMap(alone, this.concurrency),
          toArray(),
          map((entries) => new Map(entries)),
        ),
      ),
    );
  }

  private finish(outcomes: readonly ShareGroupOutcome[]): void {
    const { status, logger, states } = this.options;
    const active = outcomes.filter((o) => o.result === 'active').map((o) => o.group);
    for (const o of outcomes) {
      if (o.result === 'altered') {
        status.groupsSynced++;
        status.offsetsCommitted += o.offsets;
      } else if (o.result === 'failed') {
        status.errors++;
      }
    }
    status.skippedActive += active.length;
    status.activeShareGroups = active;
    for (const o of outcomes) if (o.coverage !== undefined) states?.shareSynced(o.group, o.coverage.partitions, o.coverage.translated, syncResult(o));
    if (active.length > 0) {
      logger.warn('Share groups with active members on the target were not synced.', { count: active.length, groups: active.slice(0, 50) });
    }
  }
}

function syncResult(o: ShareGroupOutcome): GroupSyncResult | undefined {
  switch (o.result) {
    case 'active':
      return { result: 'active', targetState: o.targetState ?? 'unknown' };
    case 'failed':
      return { result: 'failed', error: o.error ?? 'unknown error' };
    case 'altered':
      return { result: 'committed', partitions: o.offsets };
    case 'up-to-date':
      return { result: 'up-to-date', partitions: o.offsets };
    default:
      // Nothing translates: the translation says why; the group's last sync stays what it was.
      return undefined;
  }
}
