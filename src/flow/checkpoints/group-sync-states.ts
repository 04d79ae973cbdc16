/**
 * Every consumer group's sync state on one flow, with its reason: what an operator asks before a
 * failover ("will group G resume on the target, and if not, why?"). MM2 answers none of it: a
 * group that is filtered out, active on the target, or not translatable yet is simply absent
 * from the target, and the log says nothing or one warning among thousands of lines.
 *
 * The state is derived from what the checkpoint flow's three timers learn of the group:
 *
 *   group refresh     filtered out by the groups filter; no committed offsets on replicated topics;
 *                     a share group (KIP-932)
 *   checkpoint pass   how many of its partitions translate (an offset sync at or below the
 *                     committed offset, or a preserved partition)
 *   group offset sync committed or already there; skipped because active on the target; failed;
 *                     left alone because `mirrorflow migrate cutover` moved it. A share group's
 *                     start offsets are read, translated and altered by this sync alone
 *                     (share-group-offset-sync.ts): it has no checkpoints.
 *
 * Each change of a group's state is logged once, with the reason (filtered-out groups at debug:
 * they follow from the file, and a cluster may have thousands of them); a share group's as
 * `Share group sync state changed.`.
 */
import type { GroupState } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';

/**
 * - `synced`: the group on the target holds the translated offsets (committed, or already there);
 * - `checkpointed`: the translated offsets are in the checkpoints, and the group on the target is
 *   not written (`checkpoints.sync_group_offsets` is off, or the next sync has not run yet);
 * - `active-on-target`: left alone because it has members on the target;
 * - `not-translatable`: no partition of it translates yet (no offset sync at or below its
 *   committed offset);
 * - `no-replicated-offsets`: its committed offsets are all on topics the flow does not replicate;
 * - `filtered-out`: the flow's groups filter leaves it out;
 * - `share-group`: a share group (KIP-932, Kafka 4.2+) whose share-partition start offsets are
 *   not copied: `checkpoints.sync_group_offsets` is off (MM2's checkpoints have no share groups),
 *   so its consumers on the target start where the target's `share.auto.offset.reset` says. With
 *   the sync on, a share group takes the states above (`synced`, `active-on-target`, …) as its
 *   start offsets are read, translated and altered;
 * - `cut-over`: `mirrorflow migrate cutover` moved it to the target; its offsets there are its
 *   consumers' own;
 * - `failed`: the last sync of its offsets to the target failed.
 */
export type GroupSyncState =
  'synced' | 'checkpointed' | 'active-on-target' | 'not-translatable' | 'no-replicated-offsets' | 'filtered-out' | 'share-group' | 'cut-over' | 'failed';

/** One group's state as status, metrics and `mirrorflow status` show it. */
export interface GroupSyncEntry {
  readonly group: string;
  readonly state: GroupSyncState;
  /** A sentence saying why, naming clusters and counts. */
  readonly reason: string;
  /** Epoch ms the group entered this state. */
  readonly since: number;
  /** Its partitions on replicated topics with a committed offset on the source, at the last pass that read it. */
  readonly partitions?: number;
  /** Of those, the partitions that translate. */
  readonly translated?: number;
  /** The group's state on the target, when the sync read it. */
  readonly targetState?: GroupState;
}

/** What the last group offset sync did with a group. */
export type GroupSyncResult =
  | { readonly result: 'committed' | 'up-to-date'; readonly partitions: number }
  | { readonly result: 'active'; readonly targetState: GroupState }
  | { readonly result: 'failed'; readonly error: string }
  | { readonly result: 'cut-over' };

interface GroupFacts {
  listed?: 'checkpointed' | 'filtered-out' | 'no-replicated-offsets' | 'share-group';
  translation?: { readonly partitions: number; readonly translated: number };
  sync?: GroupSyncResult;
}

/** Filtered-out groups shown by name, at most; the rest are counted. */
export const MAX_FILTERED_OUT_LISTED = 200;

export interface GroupSyncStatesOptions {
  readonly source: string;
  readonly target: string;
  /** `checkpoints.sync_group_offsets.enabled`. */
  readonly syncEnabled: boolean;
  /** Whether the group has checkpoints (written by the flow, or loaded at its start). */
  readonly hasCheckpoints: (group: string) => boolean;
  readonly logger: Logger;
  readonly now: () => number;
}

/** The live states of one flow's groups; `entries` is what status reads. */
export class GroupSyncStates {
  private readonly facts = new Map<string, GroupFacts>();
  private readonly current = new Map<string, GroupSyncEntry>();
  private filteredOutTotal = 0;

  constructor(private readonly options: GroupSyncStatesOptions) {}

  /** Every group's entry, sorted by group; filtered-out groups beyond MAX_FILTERED_OUT_LISTED are left out (see `filteredOut`). */
  entries(): GroupSyncEntry[] {
    const out: GroupSyncEntry[] = [];
    let filtered = 0;
    for (const group of [...this.current.keys()].sort()) {
      const entry = this.current.get(group)!;
      if (entry.state === 'filtered-out' && ++filtered > MAX_FILTERED_OUT_LISTED) continue;
      out.push(entry);
    }
    return out;
  }

  /** Groups of the source the groups filter leaves out, all of them. */
  get filteredOut(): number {
    return this.filteredOutTotal;
  }

  get(group: string): GroupSyncEntry | undefined {
    return this.current.get(group);
  }

  /**
   * A group refresh: the groups checkpointed, those the filter leaves out, those with no
   * offsets on replicated topics, the share groups the filter lets through. A group in none of them is gone from the source; it stays while
   * it has checkpoints (they are still synced), and is dropped otherwise.
   */
  listed(listing: {
    readonly checkpointed: readonly string[];
    readonly filteredOut: readonly string[];
    readonly noReplicatedOffsets: readonly string[];
    readonly shareGroups?: readonly string[];
  }): void {
    const seen = new Map<string, GroupFacts['listed']>();
    for (const g of listing.checkpointed) seen.set(g, 'checkpointed');
    for (const g of listing.noReplicatedOffsets) seen.set(g, 'no-replicated-offsets');
    for (const g of listing.shareGroups ?? []) seen.set(g, 'share-group');
    for (const g of listing.filteredOut) seen.set(g, 'filtered-out');
    this.filteredOutTotal = listing.filteredOut.length;
    for (const [group, facts] of this.facts) {
      if (seen.has(group)) continue;
      if (this.options.hasCheckpoints(group)) facts.listed = undefined;
      else this.facts.delete(group);
    }
    for (const [group, listed] of seen) {
      const facts = this.factsOf(group);
      facts.listed = listed;
      // Offsets it no longer has on replicated topics are no longer translated (a share group's are read by the sync).
      if (listed !== 'checkpointed' && listed !== 'share-group') facts.translation = undefined;
    }
    this.recompute();
  }

  /** A checkpoint pass read the group: of its `partitions` on replicated topics, `translated` translate. */
  translated(group: string, partitions: number, translated: number): void {
    this.factsOf(group).translation = { partitions, translated };
    this.recompute([group]);
  }

  /** A group offset sync pass's outcome per group. */
  synced(results: ReadonlyMap<string, GroupSyncResult>): void {
    for (const [group, result] of results) this.factsOf(group).sync = result;
    this.recompute([...results.keys()]);
  }

  /**
   * A share group's pass of the group offset sync: of its `partitions` start offsets on replicated
   * topics, `translated` translate; `result` is what became of them on the target (none when
   * nothing translates). Taken together, so a change is logged once.
   */
  shareSynced(group: string, partitions: number, translated: number, result: GroupSyncResult | undefined): void {
    const facts = this.factsOf(group);
    facts.translation = { partitions, translated };
    if (result !== undefined) facts.sync = result;
    this.recompute([group]);
  }

  /** Looks at every group again (after a pass wrote checkpoints, say). */
  refresh(): void {
    this.recompute();
  }

  private factsOf(group: string): GroupFacts {
    let facts = this.facts.get(group);
    if (facts === undefined) this.facts.set(group, (facts = {}));
    return facts;
  }

  private recompute(groups: Iterable<string> = [...this.facts.keys(), ...this.current.keys()]): void {
    const now = this.options.now();
    for (const group of new Set(groups)) {
      const facts = this.facts.get(group);
      const previous = this.current.get(group);
      if (facts === undefined) {
        this.current.delete(group);
        continue;
      }
      const next = this.describe(facts, this.options.hasCheckpoints(group));
      const entry: GroupSyncEntry = {
        group,
        state: next.state,
        reason: next.reason,
        since: previous !== undefined && previous.state === next.state ? previous.since : now,
        ...(facts.translation === undefined ? {} : { partitions: facts.translation.partitions, translated: facts.translation.translated }),
        ...(facts.sync?.result === 'active' ? { targetState: facts.sync.targetState } : {}),
      };
      this.current.set(group, entry);
      if (previous?.state !== next.state) this.logChange(entry, previous?.state, facts.listed === 'share-group');
    }
  }

  private logChange(entry: GroupSyncEntry, previous: GroupSyncState | undefined, share: boolean): void {
    const { logger } = this.options;
    const meta = { group: entry.group, state: entry.state, previous: previous ?? 'none', reason: entry.reason };
    const message = share ? 'Share group sync state changed.' : 'Consumer group sync state changed.';
    if (entry.state === 'filtered-out' || (previous === 'filtered-out' && entry.state === 'no-replicated-offsets')) {
      logger.debug(message, meta);
    } else if (entry.state === 'failed') {
      logger.warn(message, meta);
    } else {
      logger.info(message, meta);
    }
  }

  private describe(facts: GroupFacts, hasCheckpoints: boolean): { state: GroupSyncState; reason: string } {
    const { source, target, syncEnabled } = this.options;
    if (facts.listed === 'filtered-out') {
      return { state: 'filtered-out', reason: `the flow's groups filter (groups, groups_exclude) leaves it out` };
    }
    if (facts.listed === 'share-group') return this.describeShareGroup(facts);
    if (facts.listed === 'no-replicated-offsets') {
      return { state: 'no-replicated-offsets', reason: `its committed offsets on ${source} are all on topics this flow does not replicate` };
    }
    if (facts.sync?.result === 'cut-over') {
      return { state: 'cut-over', reason: `mirrorflow migrate cutover moved it to ${target}; its offsets there are its consumers' own` };
    }
    const t = facts.translation;
    const pending = t === undefined ? 0 : t.partitions - t.translated;
    const partial =
      t !== undefined && pending > 0
        ? `; ${pending} of its ${t.partitions} partitions have no offset sync at or below the committed offset yet and are not translated`
        : '';
    if (!hasCheckpoints) {
      if (t === undefined) return { state: 'not-translatable', reason: 'no checkpoint pass has read its offsets yet' };
      return {
        state: 'not-translatable',
        reason:
          `none of its ${t.partitions} partitions on replicated topics has an offset sync at or below its committed offset yet ` +
          `(replication has not reached the offset, or the offset is older than every offset sync kept)`,
      };
    }
    if (!syncEnabled) {
      return {
        state: 'checkpointed',
        reason: `its translated offsets are in the checkpoints on ${target}; checkpoints.sync_group_offsets is off, so its group there is not written${partial}`,
      };
    }
    const sync = facts.sync;
    if (sync === undefined) return { state: 'checkpointed', reason: `checkpointed; the next group offset sync writes its offsets on ${target}${partial}` };
    switch (sync.result) {
      case 'active':
        return {
          state: 'active-on-target',
          reason: `it has active members on ${target} (state ${sync.targetState}): its offsets there cannot be written while they run`,
        };
      case 'failed':
        return { state: 'failed', reason: `syncing its offsets to ${target} failed: ${sync.error}` };
      default:
        return {
          state: 'synced',
          reason: `its group on ${target} holds the translated offsets${sync.result === 'committed' ? ` (${sync.partitions} committed by the last sync)` : ''}${partial}`,
        };
    }
  }

  /** A share group's state: it has no checkpoints; the group offset sync reads, translates and alters its start offsets. */
  private describeShareGroup(facts: GroupFacts): { state: GroupSyncState; reason: string } {
    const { source, target, syncEnabled } = this.options;
    if (!syncEnabled) {
      return {
        state: 'share-group',
        reason:
          `a share group (KIP-932): its share-partition start offsets are copied to ${target} by checkpoints.sync_group_offsets alone ` +
          `(MM2's checkpoints have no share groups), which is off; after a failover its consumers on ${target} start where share.auto.offset.reset says`,
      };
    }
    if (facts.sync?.result === 'cut-over') {
      return { state: 'cut-over', reason: `mirrorflow migrate cutover moved it to ${target}; its start offsets there are its consumers' own` };
    }
    const t = facts.translation;
    if (t === undefined) return { state: 'not-translatable', reason: `a share group whose start offsets on ${source} no group offset sync has read yet` };
    if (t.partitions === 0) {
      return {
        state: 'no-replicated-offsets',
        reason: `a share group with no share-partition start offset on ${source} on a topic this flow replicates (it has read none of them yet)`,
      };
    }
    if (t.translated === 0) {
      return {
        state: 'not-translatable',
        reason:
          `a share group none of whose ${t.partitions} start offsets on replicated topics has an offset sync at or below it yet ` +
          `(replication has not reached the offset, or the offset is older than every offset sync kept)`,
      };
    }
    const pending = t.partitions - t.translated;
    const partial =
      pending > 0 ? `; ${pending} of its ${t.partitions} partitions have no offset sync at or below the start offset yet and are not translated` : '';
    const sync = facts.sync;
    switch (sync?.result) {
      case 'active':
        return {
          state: 'active-on-target',
          reason: `a share group with active members on ${target} (state ${sync.targetState}): its start offsets there cannot be altered while they run`,
        };
      case 'failed':
        return { state: 'failed', reason: `syncing its share-partition start offsets to ${target} failed: ${sync.error}` };
      case 'committed':
      case 'up-to-date':
        return {
          state: 'synced',
          reason:
            `its share group on ${target} holds the translated start offsets or is further ahead` +
            `${sync.result === 'committed' ? ` (${sync.partitions} altered by the last sync)` : ''}${partial}`,
        };
      default:
        return { state: 'share-group', reason: `a share group (KIP-932): the next group offset sync copies its start offsets to ${target}${partial}` };
    }
  }
}

/**
 * A group's partitions on replicated topics and how many of them translate, for `translated`:
 * `shouldCheckpointTopic` is the flow's topic filter, `translate` the pass's translation
 * (undefined or negative: no offset sync at or below the offset).
 */
export function translationCoverage(
  offsets: readonly { readonly topic: string; readonly partition: number; readonly offset: number }[],
  shouldCheckpointTopic: (topic: string) => boolean,
  translate: (tp: { readonly topic: string; readonly partition: number }, offset: number) => number | undefined,
): { partitions: number; translated: number } {
  let partitions = 0;
  let translated = 0;
  for (const o of offsets) {
    if (!shouldCheckpointTopic(o.topic)) continue;
    partitions++;
    const downstream = translate(o, o.offset);
    if (downstream !== undefined && downstream >= 0) translated++;
  }
  return { partitions, translated };
}
