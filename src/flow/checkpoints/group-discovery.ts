import { type Observable, EMPTY, catchError, from, map, merge, mergeMap, of, tap, toArray } from '#rxjs';
import type { ClusterAdmin, GroupOffset } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { isMirrorflowGroup, type GroupFilter, type TopicFilter } from '../../policy';
import type { OutageStatus, OutageTracker } from '../status/outage-status';
import { checkpointStepFailed, type CheckpointStatus } from './checkpoint-status';
import type { GroupSyncStates } from './group-sync-states';

/** Groups whose offsets are read at once, in discovery and in a pass. */
export const GROUP_CONCURRENCY = 8;

export interface GroupDiscoveryParts {
  /** The source cluster, for failures no outage tracker counts. */
  readonly source: string;
  readonly sourceAdmin: ClusterAdmin;
  readonly groupFilter: GroupFilter;
  /** MM2's `shouldCheckpointTopic`: the flow's topic filter alone. */
  readonly topicFilter: TopicFilter;
  /** The flow's outage of listing consumer groups. */
  readonly outage: OutageTracker;
  readonly outages: OutageStatus;
  readonly logger: Logger;
  readonly status: CheckpointStatus;
  /** Told which groups are filtered out or have no offsets on replicated topics. */
  readonly states?: GroupSyncStates;
  /** Read the share groups' start offsets too (when the group offset sync copies them), for `offsets`. */
  readonly readShareGroupOffsets?: boolean;
}

/**
 * MM2's `findConsumerGroups`: the source's consumer groups that the group filter accepts and that
 * have committed offsets on topics the topic filter accepts, found again at each refresh; and,
 * apart, the share groups the group filter accepts (whose start offsets the group offset sync
 * reads itself).
 */
export class GroupDiscovery {
  private found: readonly string[] = [];
  private sharesFound: readonly string[] = [];
  private offsetsFound: ReadonlyMap<string, readonly GroupOffset[]> = new Map();
  private succeeded = false;

  constructor(private readonly parts: GroupDiscoveryParts) {}

  /** The groups checkpointed, sorted; the last listing's, or none before one succeeded. */
  get groups(): readonly string[] {
    return this.found;
  }

  /** The share groups (KIP-932) the groups filter lets through, sorted; the last listing's. */
  get shareGroups(): readonly string[] {
    return this.sharesFound;
  }

  /**
   * The committed offsets each group of `groups` had when it was listed; with
   * `readShareGroupOffsets`, also each share group's start offsets (as offsets, no metadata).
   */
  get offsets(): ReadonlyMap<string, readonly GroupOffset[]> {
    return this.offsetsFound;
  }

  /** True once a listing succeeded (`groups` is then the source's, not a placeholder). */
  get listed(): boolean {
    return this.succeeded;
  }

  /** Lists the groups again. Keeps the previous set if the listing fails, which is reported and retried at the next refresh. */
  refresh(): Observable<void> {
    const { sourceAdmin, groupFilter, topicFilter, logger, status, outage } = this.parts;
    let filteredOut: string[] = [];
    const noReplicatedOffsets: string[] = [];
    let shareGroups: readonly string[] = [];
    return sourceAdmin.listGroupKinds().pipe(
      mergeMap((listed) => {
        // mirrorflow's own groups are neither checkpointed nor listed among the filtered out.
        const consumers = listed.consumer.filter((g) => !isMirrorflowGroup(g));
        const share = listed.share.filter((g) => !isMirrorflowGroup(g));
        filteredOut = [...consumers, ...share].filter((g) => !groupFilter.shouldReplicateGroup(g));
        // Share groups commit no offsets: never checkpointed; the group offset sync copies their start offsets.
        shareGroups = share.filter((g) => groupFilter.shouldReplicateGroup(g)).sort();
        const consumerReads = from(consumers.filter((g) => groupFilter.shouldReplicateGroup(g))).pipe(
          mergeMap(
            (group) =>
              sourceAdmin.fetchGroupOffsets(group).pipe(
                map((offsets) => {
                  if (offsets.some((o) => topicFilter.shouldReplicateTopic(o.topic))) return { group, offsets, share: false };
                  noReplicatedOffsets.push(group);
                  return undefined;
                }),
                // A group deleted since the listing, say: leave it out this time.
                catchError(() => of(undefined)),
              ),
            GROUP_CONCURRENCY,
          ),
        );
        // Share groups' start offsets, for the offset-sync store to hold from its start (the sync reads them again).
        const shareReads = !this.parts.readShareGroupOffsets
          ? EMPTY
          : from(shareGroups).pipe(
              mergeMap(
                (group) =>
                  sourceAdmin.fetchShareGroupOffsets(group).pipe(
                    map((starts) => ({
                      group,
                      offsets: starts.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.startOffset, metadata: '' })),
                      share: true,
                    })),
                    catchError(() => of(undefined)),
                  ),
                GROUP_CONCURRENCY,
              ),
            );
        return merge(consumerReads, shareReads).pipe(
          toArray(),
          map((found) => found.filter((g) => g !== undefined)),
        );
      }),
      map((found) => {
        const sorted = found
          .filter((g) => !g.share)
          .map((g) => g.group)
          .sort();
        this.offsetsFound = new Map(found.map((g) => [g.group, g.offsets]));
        if (sorted.length !== this.found.length || sorted.some((g, i) => g !== this.found[i])) {
          logger.info('Checkpointing consumer groups.', { count: sorted.length, groups: sorted.slice(0, 20) });
        }
        this.found = sorted;
        this.sharesFound = shareGroups;
        this.succeeded = true;
        status.groups = sorted.length;
        this.parts.states?.listed({ checkpointed: sorted, filteredOut, noReplicatedOffsets, shareGroups });
      }),
      tap(() => outage.succeeded()),
      catchError((error: unknown) => {
        checkpointStepFailed(error, {
          status,
          outage,
          outages: this.parts.outages,
          cluster: this.parts.source,
          logger,
          warning: 'Listing consumer groups on the source failed; will retry at the next refresh.',
        });
        return EMPTY;
      }),
    );
  }
}
