/**
 * One tick of the group offset sync (`checkpoints.sync_group_offsets`): the checkpointed consumer
 * groups' translated offsets committed on the target (group-offset-sync.ts), then the source's
 * share groups' start offsets translated and altered there (share-group-offset-sync.ts), without
 * the groups a migration cutover took over: their offsets on the target are their consumers' now.
 * The migration state is read right before the pass; when it cannot be read, the pass is skipped
 * rather than risk moving a cut-over group.
 */
import { type Observable, EMPTY, catchError, concat, defer, mergeMap } from '#rxjs';
import type { ClusterAdmin, GroupOffset } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { describeError } from '../../core/errors';
import type { MigrationWatch } from '../migration-state';
import type { GroupSyncStatus } from './checkpoint-status';
import type { CheckpointTranslation } from './checkpoint-translation';
import type { GroupHolds } from './group-holds';
import { GroupOffsetSync } from './group-offset-sync';
import type { GroupSyncStates } from './group-sync-states';
import { ShareGroupOffsetSync } from './share-group-offset-sync';

export interface GroupSyncPassParts {
  /** Share groups' start offsets are read there. */
  readonly sourceAdmin: ClusterAdmin;
  /** Groups are written there. */
  readonly targetAdmin: ClusterAdmin;
  readonly groupStates: GroupSyncStates;
  readonly status: GroupSyncStatus;
  readonly logger: Logger;
  readonly migration?: Pick<MigrationWatch, 'refreshed' | 'syncStopped'>;
  /** The checkpointed consumer groups' offsets on the target, now (the checkpoints' downstream offsets). */
  readonly converted: () => ReadonlyMap<string, readonly GroupOffset[]>;
  /** The source's share groups the groups filter lets through, now. */
  readonly shareGroups: () => readonly string[];
  /** A checkpoint pass's translation, once the offset syncs are loaded; nothing before. */
  readonly translation: () => Observable<{ readonly translation: CheckpointTranslation }>;
  /** What the groups hold in the offset-sync store, once it is loaded. */
  readonly holds: () => GroupHolds | undefined;
}

export class GroupSyncPass {
  private readonly groupSync: GroupOffsetSync;
  private readonly shareSync: ShareGroupOffsetSync;

  constructor(private readonly parts: GroupSyncPassParts) {
    const { sourceAdmin, targetAdmin, logger, status, groupStates: states } = parts;
    this.groupSync = new GroupOffsetSync({ targetAdmin, logger, status, states });
    this.shareSync = new ShareGroupOffsetSync({ sourceAdmin, targetAdmin, logger, status, states });
  }

  /** One pass; never errors (failures are counted and logged). */
  run(): Observable<void> {
    const { migration, logger, converted, groupStates } = this.parts;
    if (migration === undefined)
      return concat(
        this.groupSync.sync(converted()),
        this.syncShareGroups(() => false),
      );
    return migration.refreshed().pipe(
      mergeMap(() => {
        const all = [...converted()];
        const cutOver = all.filter(([group]) => migration.syncStopped(group)).map(([group]) => [group, { result: 'cut-over' }] as const);
        if (cutOver.length > 0) groupStates.synced(new Map(cutOver));
        return concat(
          this.groupSync.sync(new Map(all.filter(([group]) => !migration.syncStopped(group)))),
          this.syncShareGroups((group) => migration.syncStopped(group)),
        );
      }),
      catchError((error: unknown) => {
        logger.warn('Reading the migration state failed; group offsets are synced at the next interval.', { error: describeError(error) });
        return EMPTY;
      }),
    );
  }

  /** The share groups, translated as a checkpoint pass translates; `cutOver` groups are left alone. */
  private syncShareGroups(cutOver: (group: string) => boolean): Observable<void> {
    const { parts } = this;
    return defer(() => {
      const groups = parts.shareGroups();
      if (groups.length === 0) {
        parts.status.activeShareGroups = [];
        return EMPTY;
      }
      return parts.translation().pipe(
        mergeMap(({ translation }) => {
          const stopped = groups.filter(cutOver);
          if (stopped.length > 0) parts.groupStates.synced(new Map(stopped.map((group) => [group, { result: 'cut-over' }] as const)));
          return this.shareSync.sync(
            groups.filter((group) => !cutOver(group)),
            translation,
            parts.holds(),
          );
        }),
      );
    });
  }
}
