import { EMPTY, type Observable, type SchedulerLike, Subscription, concat, defer, ignoreElements, lastValueFrom } from 'rxjs';
import type { ClusterAdmin, PartitionOffsets } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import type { FetchGap, KeptPartition, LogRestart, PartitionLifecycle } from '../../core/ports/record-source';
import type { WritePath } from '../../core/ports/write-path';
import { topicPartitionKey, type SourceBatch, type TopicPartition } from '../../core/record';
import { describeError } from '../../core/errors';
import type { ProgressStore } from '../progress/progress-store';
import type { FlowStatus } from '../status/flow-status';
import type { OutageTracker } from '../status/outage-status';
import type { ReplicatedTopic } from '../topics/topic-sync';
import { retryThroughOutage } from '../operators/retry-through-outage';
import type { ByteBudget } from './flow-control';
import type { LogLifetimes } from './log-lifetimes';
import type { RemoteNames } from './remote-names';
import { SourceResets, type AutoOffsetReset } from './source-resets';
import { TopicOffsetsBatch } from './topic-offsets-batch';

/** How long one answer about a topic's offsets serves partitions assigned together. */
const OFFSETS_REUSE_MS = 2_000;
/**
 * How long a rebalance waits for what was fetched to be acknowledged before its partitions are
 * given up anyway (abandoned: the next owner copies them again), unless the settings say: half
 * the group's rebalance timeout, after which the group would go on without this member.
 */
const DRAIN_TIMEOUT_MS = 30_000;

export interface ReplicatedPartitionsParts {
  readonly settings: {
    readonly start: 'earliest' | 'latest';
    /** Where a source log that restarted below the held position is read from (MM2's `auto.offset.reset`). */
    readonly autoOffsetReset: AutoOffsetReset;
    /** How long a rebalance waits for what was fetched to be acknowledged; 30 s when not given. */
    readonly drainTimeoutMs?: number;
  };
  readonly sourceAdmin: ClusterAdmin;
  readonly progress: ProgressStore;
  readonly writePath: WritePath;
  /** The flow's flush (replication-commits.ts): before partitions are given up, and for `start: latest` positions. */
  readonly commits: { flush(retrying: boolean, stillMember: (() => Promise<boolean>) | undefined): Observable<void> };
  readonly lifetimes: LogLifetimes;
  readonly names: Pick<RemoteNames, 'remote'>;
  readonly budget: ByteBudget;
  /** Resolves once partitions may start (flow-startup.ts). */
  readonly ready: Promise<void>;
  /** The flow's outage of loading progress, which an assignment reads again. */
  readonly loading: OutageTracker;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: FlowStatus;
}

/**
 * The partitions this member replicates, as the source consumer's group hands them over (the
 * task level of MM2's connector and task): where each starts, how far this process has fetched
 * it, what a restarted log means, and what a rebalance does before the partitions go. The source
 * calls it through the PartitionLifecycle port; the flow tells it what it fetched and which
 * topics the consumer follows.
 */
export class ReplicatedPartitions implements PartitionLifecycle {
  /** Next offset to read per partition, for partitions this process has fetched from. */
  private readonly positions = new Map<string, number>();
  private readonly offsetsByTopic = new Map<string, Promise<readonly PartitionOffsets[]>>();
  /** Timers that outlive a single operation (forgetting topic offsets); cancelled by `close`. */
  private readonly timers = new Subscription();
  private readonly resets: SourceResets;
  /** Topic offsets of partitions assigned together, read in one round. */
  private readonly offsets: TopicOffsetsBatch;
  /**
   * The current assignment: `claimed` once the write path is ready for it (exactly-once: its
   * slots claimed), `reloaded` once its progress is read after the previous owners stored theirs;
   * partitions `kept` from the previous generation wait for the first only.
   */
  private assignment:
    | { readonly claimed: Promise<void>; readonly reloaded: Promise<void>; readonly kept: ReadonlySet<string>; readonly stillMember: () => Promise<boolean> }
    | undefined;
  /** The partitions of the current assignment and its generation, until a revoke. */
  private held: { readonly generation: number | undefined; readonly partitions: ReadonlySet<string> } | undefined;
  /**
   * Set by a revoke that drained cleanly (every fetched record acknowledged, progress stored): the
   * generation and partitions given up, whose positions are still true in the next generation
   * when it follows right on (no other member can have held them in between).
   */
  private continuing: { readonly generation: number; readonly partitions: ReadonlySet<string> } | undefined;
  /** The topics the source consumer subscribes to (for the slots no member holds, exactly-once). */
  private topics: readonly ReplicatedTopic[] = [];
  /** Partitions whose `start: latest` position is stored together, before they are read. */
  private startFlush: Promise<void> | undefined;

  constructor(private readonly parts: ReplicatedPartitionsParts) {
    const { lifetimes } = parts;
    this.offsets = new TopicOffsetsBatch({ admin: parts.sourceAdmin, scheduler: parts.scheduler, logger: parts.logger });
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
        lifetimes.restarted(key);
      },
    });
  }

  /** Whether this member still belongs to its assignment's generation; undefined between assignments. */
  get stillMember(): (() => Promise<boolean>) | undefined {
    return this.assignment?.stillMember;
  }

  /**
   * Before this member rejoins its group (it gives up every partition): waits until what was
   * fetched is acknowledged and committed, stores progress, then gives the partitions up. When
   * that went cleanly, their positions are kept for the next assignment (see `assigned`).
   */
  async revoke(): Promise<void> {
    const { logger, budget } = this.parts;
    let timeout: Subscription | undefined;
    const drained = await Promise.race([
      budget.drained().then(() => true),
      new Promise<boolean>(
        (resolve) => (timeout = this.parts.scheduler.schedule(() => resolve(false), this.parts.settings.drainTimeoutMs ?? DRAIN_TIMEOUT_MS)),
      ),
    ]);
    timeout?.unsubscribe();
    if (!drained) logger.warn('Rebalance: records still in flight are abandoned; the next owner copies them again.', { inFlightBytes: budget.inFlightBytes });
    let stored = true;
    try {
      await lastValueFrom(this.parts.commits.flush(false, this.stillMember), { defaultValue: undefined });
    } catch (error) {
      stored = false;
      logger.warn('Rebalance: storing progress failed; the next owner copies those records again.', { error: describeError(error) });
    }
    this.parts.progress.disown();
    this.parts.writePath.revoked();
    this.parts.status.partitionsAssigned = 0;
    const held = this.held;
    this.held = undefined;
    this.assignment = undefined;
    // A second revoke without an assignment between (a join that failed) keeps what the first found.
    if (held === undefined) return;
    if (drained && stored && held.generation !== undefined) this.continuing = { generation: held.generation, partitions: held.partitions };
    else {
      this.continuing = undefined;
      this.positions.clear();
    }
  }

  /**
   * A new assignment. Partitions this member held in the generation just before, given up by a
   * clean revoke, are kept: read on from their positions (returned, for the source to fetch from
   * there), without reading progress again; nobody else can have held them in between. For any
   * other partition, progress is read again, from the topic as it is now. Generations that do not
   * follow on (this member was left out of one) keep nothing.
   */
  assigned(partitions: readonly TopicPartition[], generation: number | undefined, stillMember: () => Promise<boolean>): readonly KeptPartition[] {
    const { logger, writePath, progress, scheduler } = this.parts;
    const continuing = this.continuing;
    this.continuing = undefined;
    const follows = continuing !== undefined && generation === continuing.generation + 1;
    const kept = new Set(follows ? partitions.map(topicPartitionKey).filter((key) => continuing.partitions.has(key)) : []);
    // After a revoke, the positions of partitions that moved are stale; a consumer restarted
    // without one (a new subscription) keeps its positions, as its writes went on meanwhile.
    if (continuing !== undefined) for (const key of this.positions.keys()) if (!kept.has(key)) this.positions.delete(key);
    const added = partitions.filter((tp) => !kept.has(topicPartitionKey(tp)));
    logger.info('Partitions assigned.', { generation, partitions: partitions.length, kept: kept.size });
    this.held = { generation, partitions: new Set(partitions.map(topicPartitionKey)) };
    // Their acknowledgements are stored from now on; the others' once their progress is read.
    progress.keep(partitions.filter((tp) => kept.has(topicPartitionKey(tp))));
    // The write path's part first (exactly-once claims its slots); only then is progress read.
    const assigning$ = writePath.assigning({ partitions, stillMember, subscribed: () => this.subscribedPartitions() });
    // Only once the flow is ready: the group is joined while progress still loads.
    const ready$ = defer(() => this.parts.ready).pipe(ignoreElements());
    const claimed = lastValueFrom(concat(ready$, assigning$), { defaultValue: undefined });
    const reloaded = claimed.then(() =>
      lastValueFrom(
        concat(
          added.length === 0 ? EMPTY : progress.reload(partitions).pipe(retryThroughOutage({ tracker: this.parts.loading, scheduler })),
          writePath.assigned(partitions),
        ),
        { defaultValue: undefined },
      ),
    );
    const assignment = { claimed, reloaded, kept, stillMember };
    // Counted once their progress is read: from then on they are fetched.
    void reloaded
      .then(() => {
        if (this.assignment === assignment) this.parts.status.partitionsAssigned = partitions.length;
      })
      .catch(() => undefined); // only the count waits here; the failure surfaces where a partition's start awaits it
    claimed.catch(() => undefined); // surfaces where a partition's start awaits it
    reloaded.catch(() => undefined); // surfaces where a partition's start awaits it
    this.assignment = assignment;
    return partitions.flatMap((tp) => {
      const nextOffset = this.positions.get(topicPartitionKey(tp));
      return kept.has(topicPartitionKey(tp)) && nextOffset !== undefined ? [{ ...tp, nextOffset }] : [];
    });
  }

  /** Where a newly assigned partition starts: our own position, or what the write path decides (stored progress, or `start`). */
  async startOffset(tp: TopicPartition): Promise<number> {
    await this.parts.ready;
    const assignment = this.assignment;
    await (assignment?.kept.has(topicPartitionKey(tp)) === true ? assignment.claimed : assignment?.reloaded);
    // The flow's own position stays (a consumer restarted in this run).
    const own = this.positions.get(topicPartitionKey(tp));
    if (own !== undefined) return own;
    return this.parts.writePath.startAt({
      tp,
      remote: this.parts.names.remote(tp.topic),
      progress: this.parts.progress.nextOffset(tp),
      sourceLog: async () => (await this.topicOffsets(tp.topic)).find((o) => o.partition === tp.partition),
      bySetting: () => this.bySetting(tp),
    });
  }

  /** The source found a partition's log restarted below the position: read from where `auto_offset_reset` says. */
  logRestarted(tp: TopicPartition, restart: LogRestart): Promise<number> {
    return this.resets.logRestarted(tp, restart);
  }

  /** A fetch began past the expected offset: records that expired unread are told and counted (source-resets.ts). */
  fetchedPast(tp: TopicPartition, gap: FetchGap): void {
    this.resets.fetchedPast(tp, gap).catch((error: unknown) =>
      // Only the warning is lost: replication goes on either way, and the next gap is checked again.
      this.parts.logger.debug('Could not tell whether skipped source records expired.', {
        topic: tp.topic,
        partition: tp.partition,
        error: describeError(error),
      }),
    );
  }

  /** The source consumer (re)starts on `topics`; the previous one is unsubscribed by now, nothing it fetched comes any more. */
  following(topics: readonly ReplicatedTopic[]): void {
    this.parts.lifetimes.unfence();
    this.topics = topics;
    // A new member of the group: nothing of the last one's generations continues.
    this.held = undefined;
    this.continuing = undefined;
  }

  /** Checks the topics of a refresh for recreated ones; a recreated topic's partitions are fenced until the consumer restarts. */
  topicsSeen(topics: readonly ReplicatedTopic[]): Promise<void> {
    return this.parts.lifetimes.fenceRestarted(() => this.resets.topicsSeen(topics));
  }

  /** True for a batch fetched from a partition whose log was found restarted after the fetch, until the consumer restarts. */
  isStale(batch: SourceBatch): boolean {
    return this.parts.lifetimes.isFenced(batch);
  }

  /** A batch was fetched: the partition's position moves past it. Returns the lifetime of the log it came from. */
  fetched(batch: SourceBatch): number {
    const key = topicPartitionKey(batch);
    this.positions.set(key, batch.nextOffset);
    return this.parts.lifetimes.of(key);
  }

  /** Cancels the timers left (the flow ended). */
  close(): void {
    this.timers.unsubscribe();
  }

  /** Where the flow's `start` puts a partition without progress; `start: latest` stores it first. */
  private async bySetting(tp: TopicPartition): Promise<number> {
    const partition = (await this.topicOffsets(tp.topic)).find((o) => o.partition === tp.partition);
    if (!partition) return 0;
    if (this.parts.settings.start === 'earliest') return partition.earliest;
    // Store the starting point before reading, so a member that gets the partition later (this
    // one crashed, say) resumes there instead of at a later end; for an empty partition that is
    // MM2's offset -1 ("resume at 0").
    await this.parts.writePath.storeStart(tp, partition.latest - 1, () => this.flushStarts());
    return partition.latest;
  }

  /** One progress write for the `start: latest` positions of partitions assigned together. */
  private flushStarts(): Promise<void> {
    this.startFlush ??= Promise.resolve().then(() => {
      this.startFlush = undefined;
      return lastValueFrom(this.parts.commits.flush(true, this.stillMember), { defaultValue: undefined });
    });
    return this.startFlush;
  }

  /** Every partition of the topics the source consumer subscribes to. */
  private subscribedPartitions(): TopicPartition[] {
    return this.topics.flatMap((t) => Array.from({ length: t.partitions }, (_, partition) => ({ topic: t.source, partition })));
  }

  /**
   * A topic's offsets, shared by the partitions assigned together: a rebalance asks the broker
   * once per topic, not once per partition, and about all topics assigned together in one round.
   */
  private topicOffsets(topic: string): Promise<readonly PartitionOffsets[]> {
    let pending = this.offsetsByTopic.get(topic);
    if (!pending) {
      pending = this.offsets.read(topic);
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
}
