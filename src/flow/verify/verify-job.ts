/**
 * Continuous verification (`verify.enabled`): while the flow runs, windows of every replicated
 * partition are compared with their copy on the target, as `mirrorflow verify` compares them
 * (compare-partition.ts), within a read budget per interval:
 *
 *   start            follow the offset syncs (they say where a window's copy begins on the target)
 *   timer(interval)  partitions in turn, from where the last pass stopped; per partition the
 *                    window from where it was verified last up to the flow's progress (what the
 *                    target acknowledged), cut to the most recent records the budget allows
 *                    (those it leaves are counted as skipped); the window's counts go to the
 *                    status (verify-status.ts), and a finding is logged as a warning
 *
 * A window ends at the flow's own progress, so nothing in it is still on its way: a record the
 * target lacks is missing. Every timer takes the injected scheduler; a pass that takes longer than
 * the interval is not overlapped; a stop ends the pass under way. A failing pass (a cluster down,
 * no READ on the remote topics) is reported on the status and tried again at the next interval;
 * replication never waits for it.
 */
import { inject, injectable } from '#inversify';
import { Observable, type SchedulerLike, EMPTY, defer, exhaustMap, finalize, firstValueFrom, ignoreElements, merge, takeUntil, timer } from '#rxjs';
import { token } from '../../core/ports/token';
import type { ClusterAdmin, PartitionOffsets } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { RangeReader } from '../../core/ports/range-reader';
import { topicPartitionKey, type KafkaRecord, type TopicPartition } from '../../core/record';
import { describeError } from '../../core/errors';
import { retryWithBackoff } from '../../core/retry';
import { withStopSignal } from '../operators/with-stop-signal';
import { OffsetSyncStore } from '../checkpoints/offset-sync-store';
import { comparePartition } from './compare-partition';
import type { PartitionCounts } from './partition-comparison';
import type { ComparedBy } from './expected-copy';
import type { VerifyStatus } from './verify-status';

/** Source records read past a window, at most, to find where its copy ends on the target. */
const PAST_WINDOW = 1000;
/** The comparison's ring: at least this many records, at most `MAX_CAPACITY`. */
const MIN_CAPACITY = 1024;
const MAX_CAPACITY = 1 << 20;

export interface VerifyJobSettings {
  readonly source: string;
  readonly target: string;
  readonly intervalMs: number;
  /** Source records compared per interval, over all partitions. */
  readonly recordsPerInterval: number;
  readonly isolationLevel: 'read_committed' | 'read_uncommitted';
  /** read_committed for exactly-once flows, whose aborted copies are not copies. */
  readonly targetIsolationLevel: 'read_committed' | 'read_uncommitted';
  readonly comparedBy: ComparedBy;
  /** The flow's topic filter and policy: which source topics it replicates. */
  readonly replicates: (topic: string) => boolean;
  /** Where a source topic's records are written (the policy's name, renamed as the transforms rename it). */
  readonly remoteTopic: (topic: string) => string;
  /** The offset-syncs topic, when the flow writes offset syncs. */
  readonly offsetSyncsTopic: string | undefined;
}

export interface VerifyJobParts {
  readonly settings: VerifyJobSettings;
  readonly sourceAdmin: ClusterAdmin;
  readonly targetAdmin: ClusterAdmin;
  readonly sourceReader: RangeReader;
  readonly targetReader: RangeReader;
  readonly offsetSyncsReader: TopicReader;
  /** The flow's progress: the next source offset of each partition the target acknowledged. */
  readonly progress: { nextOffset(tp: TopicPartition): number | undefined };
  /** A flow with transforms: per source topic, a source record's digest as its copy should be (expected-copy.ts). */
  readonly expected?: (topic: string) => (record: KafkaRecord, out: Uint32Array, at: number) => boolean;
  /** `offsets: preserve`: the remote partitions (by `topic-partition`) whose offsets are the source's. */
  readonly preservedPartitions?: () => Promise<ReadonlySet<string>>;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: VerifyStatus;
}
/** DI token of the parts the container gives a VerifyJob; a token and its interface share a name. */
export const VerifyJobParts = token<VerifyJobParts>('VerifyJobParts');

@injectable()
export class VerifyJob {
  private syncs: OffsetSyncStore | undefined;
  /** Where the next pass starts in the list of partitions. */
  private next = 0;
  /** Partitions that cannot be positioned on the target (no offset sync yet), warned about once each. */
  private readonly unplaced = new Set<string>();
  /** Per partition, the source offset held in the sync store: where its next window starts. */
  private readonly held = new Map<string, number>();

  constructor(@inject(VerifyJobParts) private readonly parts: VerifyJobParts) {}

  run(stop$: Observable<unknown>): Observable<never> {
    const { settings, scheduler, status } = this.parts;
    return withStopSignal(stop$, (stopped$) => {
      status.state = 'starting';
      status.intervalMs = settings.intervalMs;
      status.recordsPerInterval = settings.recordsPerInterval;
      const passes$ = timer(settings.intervalMs, settings.intervalMs, scheduler).pipe(exhaustMap(() => this.pass()));
      return merge(this.followSyncs(), passes$).pipe(
        ignoreElements(),
        takeUntil(stopped$),
        finalize(() => (status.state = 'stopped')),
      );
    });
  }

  /** Follows the offset syncs for the whole run; a failure starts over after a backoff. */
  private followSyncs(): Observable<never> {
    const { settings, offsetSyncsReader, logger, scheduler, status } = this.parts;
    const topic = settings.offsetSyncsTopic;
    if (topic === undefined) return EMPTY;
    return defer(() => {
      const store = new OffsetSyncStore({ initializationMustReadToEnd: false, logger });
      this.syncs = store;
      this.held.clear();
      return store.follow(offsetSyncsReader, topic);
    }).pipe(
      retryWithBackoff({
        retries: Number.POSITIVE_INFINITY,
        initialDelayMs: 1000,
        maxDelayMs: 30_000,
        factor: 2,
        jitter: 0.2,
        scheduler,
        onRetry: (error, attempt, delayMs) => {
          status.errors++;
          logger.warn('Reading offset syncs for verification failed; retrying.', { topic, error: describeError(error), attempt, delayMs });
        },
      }),
      ignoreElements(),
    );
  }

  /** One pass, stopped (its reads abandoned) when unsubscribed. */
  private pass(): Observable<void> {
    return new Observable<void>((subscriber) => {
      const abort = new AbortController();
      this.windows(abort.signal).then(
        () => subscriber.complete(),
        (error: unknown) => {
          if (!abort.signal.aborted) this.failed(error);
          subscriber.complete();
        },
      );
      return () => abort.abort();
    });
  }

  private failed(error: unknown): void {
    const { status, logger } = this.parts;
    status.errors++;
    status.state = 'failing';
    const message = describeError(error);
    if (status.lastError !== message) logger.warn('Verifying the copy failed; trying again at the next interval.', { error: message });
    status.lastError = message;
  }

  /** The windows of one pass, partition after partition, until the budget is spent. */
  private async windows(signal: AbortSignal): Promise<void> {
    const { settings, sourceAdmin, targetAdmin, progress, status, scheduler } = this.parts;
    const syncs = this.syncs;
    if (settings.offsetSyncsTopic !== undefined && (syncs === undefined || !syncs.isReadToEnd)) return;
    const topics = (await firstValueFrom(sourceAdmin.listTopics())).filter((t) => settings.replicates(t.name)).sort((a, b) => a.name.localeCompare(b.name));
    const partitions: TopicPartition[] = topics.flatMap((t) => Array.from({ length: t.partitions }, (_, partition) => ({ topic: t.name, partition })));
    // The progress first, then the clusters' ends: every record below the progress was on the
    // target before its end was read (verify-plan.ts keeps the same order).
    const ends = partitions.map((tp) => progress.nextOffset(tp));
    const preserved = (await this.parts.preservedPartitions?.()) ?? new Set<string>();
    const offsets = new Map<string, Promise<readonly PartitionOffsets[]>>();
    const offsetsOf = (admin: ClusterAdmin, topic: string): Promise<readonly PartitionOffsets[]> => {
      const key = `${admin.cluster}/${topic}`;
      let found = offsets.get(key);
      if (found === undefined) offsets.set(key, (found = firstValueFrom(admin.partitionOffsets(topic))));
      return found;
    };
    let budget = settings.recordsPerInterval;
    const first = this.next;
    for (let i = 0; i < partitions.length && budget > 0; i++) {
      signal.throwIfAborted();
      const index = (first + i) % partitions.length;
      const tp = partitions[index]!;
      const end = ends[index];
      if (end === undefined) continue;
      const source = (await offsetsOf(sourceAdmin, tp.topic)).find((o) => o.partition === tp.partition);
      if (source === undefined) continue;
      const verifiedTo = status.verifiedTo(tp) ?? Math.max(source.earliest, end - budget);
      const from = Math.max(verifiedTo, source.earliest, end - budget);
      if (from >= end) continue;
      const remoteTopic = settings.remoteTopic(tp.topic);
      const target = (await offsetsOf(targetAdmin, remoteTopic).catch(() => [] as PartitionOffsets[])).find((o) => o.partition === tp.partition);
      // A window that follows on from the last one starts where that one's judgement ended on the
      // target, so no target record is judged twice; one after a gap starts at its offset sync.
      const followsOn = from === status.verifiedTo(tp) ? status.targetNext(tp) : undefined;
      const start =
        followsOn !== undefined && target !== undefined
          ? { from: Math.min(Math.max(followsOn, target.earliest), target.latest), leadingSkip: 0 }
          : this.targetStart(tp, from, target, preserved.has(topicPartitionKey({ topic: remoteTopic, partition: tp.partition })));
      if (start === undefined) continue;
      const windowSize = end - from;
      const compared = await comparePartition({
        source: {
          reader: this.parts.sourceReader,
          topic: tp.topic,
          partition: tp.partition,
          from,
          to: Math.min(source.latest, end + PAST_WINDOW),
          isolationLevel: settings.isolationLevel,
        },
        target: {
          reader: this.parts.targetReader,
          topic: remoteTopic,
          partition: tp.partition,
          from: start.from,
          to: target!.latest,
          isolationLevel: settings.targetIsolationLevel,
        },
        bounds: { progress: end, rangeEnd: end, leadingSkip: start.leadingSkip, capacity: capacityFor(windowSize) },
        ...(this.parts.expected === undefined ? {} : { expected: this.parts.expected(tp.topic) }),
        mode: settings.comparedBy,
        signal,
      });
      if (status.verifiedTo(tp) !== undefined && from > verifiedTo) status.skipped += from - verifiedTo;
      status.recordWindow(tp, remoteTopic, from, end, compared.counts.firstBeyondCopy ?? compared.targetReached, compared.counts, scheduler.now());
      this.holdNext(tp, end);
      this.report(tp, remoteTopic, from, end, compared.counts);
      budget -= windowSize;
      this.next = (index + 1) % partitions.length;
    }
    status.passes++;
    status.lastPassAt = scheduler.now();
    status.state = 'running';
    status.lastError = undefined;
  }

  /** Keeps the offset syncs nearest the next window's start while they stream by (held-offsets.ts), and lets the last one go. */
  private holdNext(tp: TopicPartition, next: number): void {
    const syncs = this.syncs;
    if (syncs === undefined) return;
    const key = topicPartitionKey(tp);
    const previous = this.held.get(key);
    if (previous === next) return;
    syncs.hold(tp, next);
    if (previous !== undefined) syncs.release(tp, previous);
    this.held.set(key, next);
  }

  /** Where a window's copy begins on the target; undefined (and said once) when that cannot be known yet. */
  private targetStart(
    tp: TopicPartition,
    from: number,
    target: PartitionOffsets | undefined,
    preserved: boolean,
  ): { from: number; leadingSkip: number } | undefined {
    if (target === undefined) return undefined;
    const clamp = (offset: number): number => Math.min(Math.max(offset, target.earliest), target.latest);
    if (preserved) return { from: clamp(from), leadingSkip: 0 };
    const sync = this.syncs?.translate(tp, from)?.sync;
    if (sync !== undefined) return { from: clamp(sync.downstreamOffset), leadingSkip: from - sync.upstreamOffset };
    const key = topicPartitionKey(tp);
    if (!this.unplaced.has(key)) {
      this.unplaced.add(key);
      this.parts.logger.info('No offset sync at or before the window to verify yet; the partition is verified once there is one.', {
        topic: tp.topic,
        partition: tp.partition,
        from,
      });
    }
    return undefined;
  }

  /** A window that found something: a warning that names the partition, the offsets and the counts. */
  private report(tp: TopicPartition, remoteTopic: string, from: number, to: number, counts: PartitionCounts): void {
    if (counts.missing + counts.duplicates + counts.unexpected === 0) return;
    this.parts.logger.warn('Verification found records missing, duplicated or unexpected on the target.', {
      topic: tp.topic,
      partition: tp.partition,
      remoteTopic,
      fromOffset: from,
      toOffset: to - 1,
      missing: counts.missing,
      duplicates: counts.duplicates,
      unexpected: counts.unexpected,
      ...(counts.firstMissing === undefined ? {} : { firstMissingOffset: counts.firstMissing }),
      ...(counts.firstDuplicate === undefined ? {} : { firstDuplicateTargetOffset: counts.firstDuplicate }),
      ...(counts.firstUnexpected === undefined ? {} : { firstUnexpectedTargetOffset: counts.firstUnexpected }),
    });
  }
}

/** A ring that holds a window and what is read past it. */
function capacityFor(windowSize: number): number {
  const wanted = Math.min(MAX_CAPACITY, Math.max(MIN_CAPACITY, 2 * (windowSize + PAST_WINDOW)));
  return 2 ** Math.ceil(Math.log2(wanted));
}
