import {
  type MonoTypeOperatorFunction,
  type SchedulerLike,
  BehaviorSubject,
  EMPTY,
  Observable,
  catchError,
  concat,
  concatMap,
  defer,
  distinctUntilChanged,
  exhaustMap,
  filter,
  from,
  identity,
  ignoreElements,
  map,
  merge,
  startWith,
  take,
  takeUntil,
  takeWhile,
  tap,
  throwError,
  timer,
} from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import { KafkaAuthorizationError, describeError, isRetriable } from '../../core/errors';
import type { ProgressStore } from '../progress/progress-store';
import type { OffsetSyncEmitter } from '../progress/offset-sync-emitter';
import type { FlowStatus } from '../status/flow-status';
import type { OutageTracker } from '../status/outage-status';
import { sameTopics, type ReplicatedTopic, type TopicSync } from '../topics/topic-sync';
import { retryThroughOutage } from '../operators/retry-through-outage';
import type { DeadLetterSink } from './dead-letter-sink';
import type { ReplicationOutages } from './replication-outages';

export interface FlowStartupParts {
  readonly settings: {
    /** false: the topics found by the first refresh that succeeds are the flow's for good (MM2 `refresh.topics.enabled`). */
    readonly refreshTopics: boolean;
    readonly refreshIntervalMs: number;
  };
  readonly topicSync: Pick<TopicSync, 'refresh'>;
  readonly progress: Pick<ProgressStore, 'load'>;
  /** Internal topics created (and waited for) at start, when the flow has them. */
  readonly offsetSyncEmitter: Pick<OffsetSyncEmitter, 'ensureTopic'> | undefined;
  readonly deadLetters: Pick<DeadLetterSink, 'ensureTopic'> | undefined;
  readonly outages: Pick<ReplicationOutages, 'loading' | 'topics' | 'offsetSyncs' | 'deadLetters'>;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: FlowStatus;
}

/** How far start-up is; partitions may start once both hold. */
interface Reached {
  /** Progress is loaded and the internal topics exist. */
  readonly loaded: boolean;
  /** A topic refresh created the remote topics. */
  readonly created: boolean;
}

/** A refresh's topics: the source's list as soon as it is known (`created` false), then what the refresh made. */
interface Refreshed {
  readonly topics: readonly ReplicatedTopic[];
  readonly created: boolean;
}

/**
 * A replication flow's start-up and its topics, the connector level of MM2's connector and task:
 * loading progress, the internal topics, the topic refreshes (which create the remote topics), and
 * when partitions may start.
 *
 * Start-up is as parallel as it can be, since a link to a distant source pays a round trip for
 * every step taken one after another: the first topic refresh runs while progress loads and the
 * internal topics are created, and the source consumer joins its group as soon as that refresh
 * has listed the source's topics. What waits is each partition's start, behind one gate: `ready`
 * resolves once progress is loaded, the internal topics exist and a refresh created the remote
 * topics (and never when the flow stopped first).
 */
export class FlowStartup {
  /** Resolves once partitions may start. */
  readonly ready: Promise<void>;
  private markReady: () => void = () => {};
  private readonly reached = new BehaviorSubject<Reached>({ loaded: false, created: false });

  constructor(private readonly parts: FlowStartupParts) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  /**
   * Loads progress and creates the internal topics, side by side (a cluster down at start delays
   * the start, it does not end the run), then waits for a refresh that created the remote
   * topics. Emits once, when partitions may start (`ready` resolves then), and completes; a stop
   * first completes it without.
   */
  start(stopping$: Observable<void>): Observable<void> {
    const { progress, offsetSyncEmitter, deadLetters, outages } = this.parts;
    return concat(
      merge(
        progress.load().pipe(this.retrying(outages.loading)),
        offsetSyncEmitter?.ensureTopic().pipe(this.retrying(outages.offsetSyncs!)) ?? EMPTY,
        deadLetters?.ensureTopic().pipe(this.retrying(outages.deadLetters)) ?? EMPTY,
      ).pipe(ignoreElements()),
      defer(() => {
        this.reach({ loaded: true });
        // A stop before any refresh succeeded ends the wait (nothing was read, nothing is).
        return this.reached.pipe(
          filter((r) => r.created),
          take(1),
          takeUntil(stopping$),
        );
      }),
    ).pipe(
      map(() => undefined),
      tap(() => this.markReady()),
    );
  }

  /**
   * The topic lists the source consumer follows, changes only: each refresh that succeeded, every
   * `refreshIntervalMs` from the start (a tick during a refresh is dropped), and, until one
   * created the remote topics, the source's list as soon as a refresh has it. `seen` checks each
   * list first (for recreated topics), before the subscription changes. With `refreshTopics`
   * false, refreshes end once one succeeded.
   */
  topics(stopping$: Observable<void>, seen: (topics: readonly ReplicatedTopic[]) => Promise<void>): Observable<readonly ReplicatedTopic[]> {
    const { settings, scheduler, logger, status } = this.parts;
    return timer(settings.refreshIntervalMs, settings.refreshIntervalMs, scheduler).pipe(
      startWith(-1),
      exhaustMap((_, index) => (index === 0 ? this.firstRefresh(seen) : this.refresh(seen))),
      settings.refreshTopics ? identity : takeWhile((r: Refreshed) => !r.created, true),
      map((r) => r.topics),
      distinctUntilChanged(sameTopics),
      tap((topics) => {
        status.topics = topics.length;
        if (topics.length > 0) logger.info('Replicating topics.', { count: topics.length, topics: topics.slice(0, 20).map((t) => `${t.source}→${t.target}`) });
        else logger.info(nothingMatches(settings));
      }),
      takeUntil(stopping$),
    );
  }

  /**
   * The first refresh, made at once beside loading: when it fails (a cluster down at start, say),
   * it is made again once loading is done, through the outage that held loading, and only that
   * try reports its failure.
   */
  private firstRefresh(seen: (topics: readonly ReplicatedTopic[]) => Promise<void>): Observable<Refreshed> {
    return this.attempt(seen).pipe(
      catchError(() =>
        this.reached.pipe(
          filter((r) => r.loaded),
          take(1),
          concatMap(() => this.refresh(seen)),
        ),
      ),
    );
  }

  /** A refresh whose failure is reported; the next refresh is its retry. */
  private refresh(seen: (topics: readonly ReplicatedTopic[]) => Promise<void>): Observable<Refreshed> {
    const { outages, logger } = this.parts;
    return this.attempt(seen).pipe(
      catchError((error: unknown) => {
        // An outage is reported as one, not once per refresh.
        if (isRetriable(error)) outages.topics.failed(error);
        // A missing ACL (reading, creating, describing topics) ends the run, naming it: a
        // topic the flow may not create or read would otherwise be skipped for good.
        else if (error instanceof KafkaAuthorizationError) return throwError(() => error);
        else logger.warn('Topic refresh failed; will retry at the next refresh.', { error: describeError(error) });
        return EMPTY;
      }),
    );
  }

  /** One refresh of the topics, each list checked by `seen` before it passes on. */
  private attempt(seen: (topics: readonly ReplicatedTopic[]) => Promise<void>): Observable<Refreshed> {
    const { topicSync, outages } = this.parts;
    // Until the remote topics exist, the consumer joins on the source's list.
    const early = !this.reached.value.created;
    const refreshed$ = new Observable<Refreshed>((subscriber) =>
      topicSync.refresh(early ? (topics) => subscriber.next({ topics, created: false }) : undefined).subscribe({
        next: (topics) => subscriber.next({ topics, created: true }),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
    return refreshed$.pipe(
      tap((r) => {
        if (!r.created) return;
        outages.topics.succeeded();
        this.reach({ created: true });
      }),
      // Before the subscription changes, so a recreated topic is read from its new start. A
      // list the refresh has not made yet is skipped when the check fails; the refresh goes on.
      concatMap((r) => {
        const checked = from(seen(r.topics)).pipe(map(() => r));
        return r.created ? checked : checked.pipe(catchError(() => EMPTY));
      }),
    );
  }

  private reach(step: Partial<Reached>): void {
    this.reached.next({ ...this.reached.value, ...step });
  }

  private retrying<T>(tracker: OutageTracker): MonoTypeOperatorFunction<T> {
    return retryThroughOutage<T>({ tracker, scheduler: this.parts.scheduler });
  }
}

/** Where no source topic matches: when the flow looks again, since a topic created meanwhile waits for that. */
function nothingMatches({ refreshTopics, refreshIntervalMs }: FlowStartupParts['settings']): string {
  return refreshTopics
    ? `No source topic matches the flow's topics; topics created on the source are looked for every ${refreshIntervalMs / 1000} s (topic_sync.refresh_interval_ms; in an MM2 file refresh.topics.interval.seconds, 600 by default).`
    : "No source topic matches the flow's topics, and topic refresh is off (topic_sync.refresh_enabled; in an MM2 file refresh.topics.enabled): topics created on the source are found at the next start.";
}
