/**
 * `checkpoints.sync_group_offsets` (MM2's `sync.group.offsets.enabled`): commits the translated
 * offsets of the checkpointed groups into the target's consumer groups, so consumers that fail
 * over to the target resume where they were instead of at `auto.offset.reset`.
 *
 * MM2's rules (`MirrorCheckpointTask.syncGroupOffset`): a group the target does not know gets
 * every translated offset; a group with no members gets a partition's offset only when it has
 * none there or the translated one is ahead — an idle group's offsets never move backwards; new
 * partitions are added.
 *
 * Where MM2 hurts its users, this does better: MM2 sends the commit to active
 * groups too and lets the broker refuse it, leaving only a warning in the log, so "the sync does
 * not work" is a common report. Here a group with members is skipped before anything is sent,
 * counted on the flow's status and named in one warning per pass. And the target groups' states
 * and offsets are read right before committing, not up to one interval earlier as in MM2, so a
 * consumer that joined meanwhile is not overwritten.
 */
import { type Observable, EMPTY, catchError, concat, defer, from, ignoreElements, map, mergeMap, of, tap, toArray } from '#rxjs';
import { GroupActiveError, type ClusterAdmin, type GroupOffset, type GroupState } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { topicPartitionKey } from '../../core/record';
import { describeError } from '../../core/errors';
import type { GroupSyncStatus } from './checkpoint-status';
import type { GroupSyncResult, GroupSyncStates } from './group-sync-states';

/** What to do with one group. */
export type GroupSyncPlan =
  /** The group has members (or a state we cannot judge): leave it alone. */
  | { readonly kind: 'skip-active'; readonly state: GroupState }
  /** Nothing to change: every target offset is at or ahead of the translated one. */
  | { readonly kind: 'up-to-date' }
  | { readonly kind: 'commit'; readonly reason: 'new-group' | 'idle-group'; readonly offsets: readonly GroupOffset[] };

const IDLE: ReadonlySet<GroupState> = new Set(['empty']);
const UNKNOWN_TO_BROKER: ReadonlySet<GroupState> = new Set(['dead']);

/**
 * MM2's decision for one group. `converted` are the checkpoints' downstream offsets; `target`
 * the group's committed offsets on the target (read only for an idle group).
 */
export function planGroupOffsetSync(converted: readonly GroupOffset[], state: GroupState, target: readonly GroupOffset[]): GroupSyncPlan {
  if (UNKNOWN_TO_BROKER.has(state)) return converted.length === 0 ? { kind: 'up-to-date' } : { kind: 'commit', reason: 'new-group', offsets: converted };
  if (!IDLE.has(state)) return { kind: 'skip-active', state };
  const current = new Map(target.map((o) => [topicPartitionKey(o), o.offset]));
  const offsets = converted.filter((o) => {
    const existing = current.get(topicPartitionKey(o));
    return existing === undefined || existing < o.offset;
  });
  return offsets.length === 0 ? { kind: 'up-to-date' } : { kind: 'commit', reason: 'idle-group', offsets };
}

export interface GroupOffsetSyncOptions {
  readonly targetAdmin: ClusterAdmin;
  readonly logger: Logger;
  readonly status: GroupSyncStatus;
  /** Told what each pass did with each group. */
  readonly states?: GroupSyncStates;
  /** Groups handled at once. */
  readonly concurrency?: number;
}

interface GroupOutcome {
  readonly group: string;
  readonly result: 'committed' | 'up-to-date' | 'active' | 'failed';
  readonly offsets: number;
  /** For `active`: the group's state on the target. */
  readonly targetState?: GroupState;
  /** For `failed`: why. */
  readonly error?: string;
}

export class GroupOffsetSync {
  constructor(private readonly options: GroupOffsetSyncOptions) {}

  /** One pass over every group that has checkpoints; never errors (failures are counted and logged). */
  sync(converted: ReadonlyMap<string, readonly GroupOffset[]>): Observable<void> {
    const { targetAdmin, logger, status } = this.options;
    return defer(() => {
      const groups = [...converted.keys()].sort();
      if (groups.length === 0) return of(undefined).pipe(tap(() => this.finish([])));
      return targetAdmin.describeGroups(groups).pipe(
        mergeMap((states) =>
          from(groups).pipe(
            mergeMap((group) => this.syncGroup(group, converted.get(group) ?? [], states.get(group) ?? 'dead'), this.options.concurrency ?? 4),
            toArray(),
          ),
        ),
        tap((outcomes) => this.finish(outcomes)),
        map(() => undefined),
        catchError((error: unknown) => {
          status.passes++;
          status.errors++;
          logger.warn('Syncing consumer group offsets to the target failed; will retry at the next interval.', { error: describeError(error) });
          return EMPTY;
        }),
      );
    });
  }

  private syncGroup(group: string, converted: readonly GroupOffset[], state: GroupState): Observable<GroupOutcome> {
    const { targetAdmin, logger } = this.options;
    const targetOffsets$ = IDLE.has(state) ? targetAdmin.fetchGroupOffsets(group) : of<readonly GroupOffset[]>([]);
    return targetOffsets$.pipe(
      mergeMap((target) => {
        const plan = planGroupOffsetSync(converted, state, target);
        if (plan.kind === 'skip-active') return of<GroupOutcome>({ group, result: 'active', offsets: 0, targetState: plan.state });
        if (plan.kind === 'up-to-date') return of<GroupOutcome>({ group, result: 'up-to-date', offsets: converted.length });
        return concat(
          targetAdmin.commitGroupOffsets(group, plan.offsets).pipe(ignoreElements()),
          defer(() => {
            logger.debug('Consumer group offsets synced to the target.', { group, reason: plan.reason, partitions: plan.offsets.length });
            return of<GroupOutcome>({ group, result: 'committed', offsets: plan.offsets.length });
          }),
        );
      }),
      catchError((error: unknown) => {
        // A consumer joined between the state check and the commit: the broker refused it.
        if (error instanceof GroupActiveError) return of<GroupOutcome>({ group, result: 'active', offsets: 0, targetState: 'stable' });
        logger.warn("Could not sync a consumer group's offsets to the target.", { group, error: describeError(error) });
        return of<GroupOutcome>({ group, result: 'failed', offsets: 0, error: describeError(error) });
      }),
    );
  }

  private finish(outcomes: readonly GroupOutcome[]): void {
    const { status, logger } = this.options;
    status.passes++;
    const active = outcomes.filter((o) => o.result === 'active').map((o) => o.group);
    for (const o of outcomes) {
      if (o.result === 'committed') {
        status.groupsSynced++;
        status.offsetsCommitted += o.offsets;
      } else if (o.result === 'failed') {
        status.errors++;
      }
    }
    status.skippedActive += active.length;
    this.options.states?.synced(new Map(outcomes.map((o) => [o.group, syncResult(o)])));
    status.activeConsumerGroups = active;
    if (active.length > 0) {
      logger.warn('Consumer groups with active members on the target were not synced.', { count: active.length, groups: active.slice(0, 50) });
    }
  }
}

function syncResult(o: GroupOutcome): GroupSyncResult {
  switch (o.result) {
    case 'active':
      return { result: 'active', targetState: o.targetState ?? 'unknown' };
    case 'failed':
      return { result: 'failed', error: o.error ?? 'unknown error' };
    default:
      return { result: o.result, partitions: o.offsets };
  }
}
