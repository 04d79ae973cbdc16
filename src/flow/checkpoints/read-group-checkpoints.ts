/**
 * One checkpoint pass's reading: each group's committed source offsets, read side by side, as the
 * checkpoints it emits and its translation lag. A group whose offsets cannot be read is skipped
 * this pass (logged and counted); the next pass reads it again.
 */
import { type Observable, type SchedulerLike, EMPTY, catchError, from, map, mergeMap, tap, toArray } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { describeError } from '../../core/errors';
import type { OutageStatus } from '../status/outage-status';
import { checkpointsForGroup, type CheckpointContext, type GroupCheckpoints } from './checkpoint-emission';
import { countCheckpointError, type CheckpointStatus } from './checkpoint-status';
import { GROUP_CONCURRENCY } from './group-discovery';
import type { GroupHolds } from './group-holds';
import { translationCoverage, type GroupSyncStates } from './group-sync-states';
import type { OffsetSyncStore } from './offset-sync-store';
import { groupTranslationLag } from './translation-lag';

export interface ReadGroupsParts {
  readonly sourceAdmin: ClusterAdmin;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: CheckpointStatus;
  readonly settings: { readonly source: string };
  readonly outages: OutageStatus;
  /** Where the offsets groups sit at are held while the offset syncs stream by (absent before the syncs load). */
  readonly holds: GroupHolds | undefined;
  readonly groupStates: GroupSyncStates;
}

export function readGroupCheckpoints(
  groups: readonly string[],
  ctx: CheckpointContext,
  syncs: OffsetSyncStore,
  parts: ReadGroupsParts,
): Observable<GroupCheckpoints[]> {
  const { sourceAdmin, scheduler, logger, status, settings, holds, groupStates } = parts;
  return from(groups).pipe(
    mergeMap((group) => {
      const timestamp = scheduler.now();
      return sourceAdmin.fetchGroupOffsets(group).pipe(
        tap((offsets) => {
          // Held before they are translated: syncs arriving until the next pass are kept for them.
          holds?.read(
            group,
            offsets.filter((o) => ctx.shouldCheckpointTopic(o.topic)),
          );
          const coverage = translationCoverage(offsets, ctx.shouldCheckpointTopic, ctx.translate);
          groupStates.translated(group, coverage.partitions, coverage.translated);
        }),
        map((offsets): GroupCheckpoints => ({
          group,
          timestamp,
          checkpoints: checkpointsForGroup(group, offsets, ctx),
          translationLag: groupTranslationLag(offsets, ctx.shouldCheckpointTopic, (tp, offset) => syncs.translate(tp, offset)),
        })),
        catchError((error: unknown) => {
          status.errors++;
          countCheckpointError(parts.outages, error, settings.source);
          logger.warn("Reading a consumer group's offsets on the source failed; skipped this pass.", { group, error: describeError(error) });
          return EMPTY;
        }),
      );
    }, GROUP_CONCURRENCY),
    toArray(),
  );
}
