/**
 * One flow's topic ACL sync, MM2's `MirrorSourceConnector.syncTopicAcls`: at start and then every
 * interval, reads the source's topic ACLs (literal and prefixed), keeps those `planTopicAcls`
 * copies, and creates on the target those it does not have yet. Target ACLs are never deleted
 * or changed: an ACL removed on the source stays on the target, as with MM2.
 *
 * Each ACL skipped is logged and counted once, with the reason. A cluster without an authorizer
 * (SECURITY_DISABLED) has no ACLs: that is said once at info and the sync ends for the flow,
 * replication going on. An outage is retried through (`retryThroughOutage`); another failure (the
 * principal may not read or create ACLs) is logged, counted, and tried again at the next interval.
 *
 * A self-contained observable (`run`), so whatever decides which process of a pipeline runs
 * the once-per-flow jobs can start and stop it.
 */
import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import {
  type Observable,
  type SchedulerLike,
  catchError,
  defer,
  exhaustMap,
  finalize,
  ignoreElements,
  map,
  of,
  switchMap,
  takeUntil,
  takeWhile,
  timer,
} from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { SecurityDisabledError, describeTopicAcl, topicAclKey, type TopicAcl } from '../../core/ports/topic-acl';
import { describeError } from '../../core/errors';
import type { AclSkipReason, AclSyncStatus } from './acl-sync-status';
import type { OutageStatus, OutageTracker } from '../status/outage-status';
import { planTopicAcls } from './topic-acl-plan';
import { retryThroughOutage } from '../operators/retry-through-outage';
import { withStopSignal } from '../operators/with-stop-signal';

export interface AclSyncSettings {
  readonly source: string;
  readonly target: string;
  /** `topic_sync.acls.interval_ms` (MM2 `sync.topic.acls.interval.seconds`). */
  readonly intervalMs: number;
  /** `topic_sync.acls.prefixed`: copy prefixed ACLs too. */
  readonly prefixed: boolean;
}

export interface AclSyncParts {
  readonly settings: AclSyncSettings;
  readonly sourceAdmin: ClusterAdmin;
  readonly targetAdmin: ClusterAdmin;
  /** The policy's `formatRemoteTopic` for the flow's source. */
  readonly remoteTopic: (sourceTopic: string) => string;
  /** MM2's `shouldReplicateTopic` for the flow. */
  readonly shouldReplicate: (sourceTopic: string) => boolean;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: AclSyncStatus;
  readonly outages: OutageStatus;
}
/** DI token of the parts the container gives an AclSync; a token and its interface share a name. */
export const AclSyncParts = token<AclSyncParts>('AclSyncParts');

/** How long an ACL just created counts as there while the target does not list it yet. */
const PENDING_MS = 60_000;

/** How a pass ended: `stop` when a cluster has no authorizer. */
type PassResult = 'continue' | 'stop';

const SKIP_MESSAGES: Record<AclSkipReason, string> = {
  'allow-write': 'Topic ACL not copied: ALLOW WRITE is never copied, only the replication writes remote topics.',
  wildcard: 'Topic ACL not copied: a literal "*" would cover topics of the target that are not remote topics of this source.',
  prefixed: 'Topic ACL not copied: prefixed ACLs are not copied (topic_sync.acls.prefixed is off).',
  'not-replicated': 'Topic ACL not copied: no topic it covers is replicated by this flow.',
  refused: 'Topic ACL not copied: the target refused to create it.',
};

@injectable()
export class AclSync {
  /** Keys (ACL and reason) of the skips already logged and counted. */
  private readonly skippedSeen = new Set<string>();
  /**
   * ACLs this job created that the target has not listed yet, by key, with when: a broker under
   * load may list a new ACL seconds later. Counted as present until listed, or for PENDING_MS.
   */
  private readonly pending = new Map<string, number>();
  /** Failures that are not an outage since the last good pass: only the first is logged at warn. */
  private failures = 0;
  private readonly outage: OutageTracker;

  constructor(@inject(AclSyncParts) private readonly parts: AclSyncParts) {
    this.outage = parts.outages.tracker(parts.settings.source, 'syncing topic ACLs', parts.logger, () => parts.scheduler.now());
  }

  run(stop$: Observable<unknown>): Observable<never> {
    const { settings, scheduler, status } = this.parts;
    return withStopSignal(stop$, (stopped$) =>
      defer(() => {
        status.state = 'starting';
        // As MM2: the first pass at start, then one per interval; a pass never overlaps the next.
        return timer(0, settings.intervalMs, scheduler).pipe(
          exhaustMap(() => this.pass()),
          takeWhile((result) => result === 'continue'),
          ignoreElements(),
          takeUntil(stopped$),
          finalize(() => {
            if (status.state !== 'no-authorizer') status.state = 'stopped';
          }),
        );
      }),
    );
  }

  /** One pass, retried through outages; never errors. */
  pass(): Observable<PassResult> {
    const { sourceAdmin, targetAdmin, scheduler, logger, status } = this.parts;
    return defer(() => sourceAdmin.describeTopicAcls()).pipe(
      switchMap((acls) => this.withReplicatedTopics(acls)),
      map(({ acls, topics }) => this.plan(acls, topics)),
      switchMap((copies) => targetAdmin.describeTopicAcls().pipe(map((existing) => this.missing(copies, existing)))),
      switchMap((missing) => (missing.length === 0 ? of([]) : targetAdmin.createTopicAcls(missing))),
      retryThroughOutage({ tracker: this.outage, scheduler }),
      map((results): PassResult => {
        for (const result of results) {
          if (result.error === undefined) {
            this.pending.set(topicAclKey(result.acl), scheduler.now());
            status.created++;
            logger.info('Topic ACL created on the target.', { cluster: targetAdmin.cluster, acl: describeTopicAcl(result.acl) });
          } else this.skip(result.acl, 'refused', result.error);
        }
        status.passes++;
        status.lastPassAt = scheduler.now();
        status.state = 'running';
        status.lastError = undefined;
        if (this.failures > 0) logger.info('Topic ACLs are synced again.', { failures: this.failures });
        this.failures = 0;
        return 'continue';
      }),
      catchError((error: unknown) => of(this.failed(error))),
    );
  }

  /** The copies the target lacks, neither listed nor created by this job a moment ago. */
  private missing(copies: readonly TopicAcl[], existing: readonly TopicAcl[]): TopicAcl[] {
    const have = new Set(existing.map(topicAclKey));
    const now = this.parts.scheduler.now();
    for (const [key, at] of this.pending) if (have.has(key) || now - at >= PENDING_MS) this.pending.delete(key);
    return copies.filter((acl) => !have.has(topicAclKey(acl)) && !this.pending.has(topicAclKey(acl)));
  }

  /** The source topics replicated now, needed only to decide on prefixed ACLs. */
  private withReplicatedTopics(acls: readonly TopicAcl[]): Observable<{ acls: readonly TopicAcl[]; topics: readonly string[] }> {
    const { settings, sourceAdmin, shouldReplicate } = this.parts;
    if (!settings.prefixed || !acls.some((acl) => acl.patternType === 'PREFIXED')) return of({ acls, topics: [] });
    return sourceAdmin.listTopics().pipe(map((topics) => ({ acls, topics: topics.map((t) => t.name).filter(shouldReplicate) })));
  }

  private plan(acls: readonly TopicAcl[], topics: readonly string[]): readonly TopicAcl[] {
    const { settings, remoteTopic, shouldReplicate } = this.parts;
    const plan = planTopicAcls(acls, { remoteTopic, shouldReplicate, replicatedTopics: topics, prefixed: settings.prefixed });
    for (const { acl, reason } of plan.skipped) this.skip(acl, reason);
    return plan.copies;
  }

  /** Logs and counts a skipped ACL the first time it is skipped for that reason. */
  private skip(acl: TopicAcl, reason: AclSkipReason, error?: string): void {
    const key = `${reason}\u0000${topicAclKey(acl)}`;
    if (this.skippedSeen.has(key)) return;
    this.skippedSeen.add(key);
    this.parts.status.skipped[reason]++;
    const meta = { cluster: this.parts.sourceAdmin.cluster, acl: describeTopicAcl(acl), reason, ...(error === undefined ? {} : { error }) };
    // ACLs of topics this flow does not replicate are most of a shared cluster's: not worth a line each at info.
    if (reason === 'not-replicated') this.parts.logger.debug(SKIP_MESSAGES[reason], meta);
    else if (reason === 'refused') this.parts.logger.warn(SKIP_MESSAGES[reason], meta);
    else this.parts.logger.info(SKIP_MESSAGES[reason], meta);
  }

  private failed(error: unknown): PassResult {
    const { logger, status } = this.parts;
    if (error instanceof SecurityDisabledError) {
      status.state = 'no-authorizer';
      logger.info('A cluster has no authorizer, so it keeps no ACLs: topic ACLs are not synced for this flow.', {
        cluster: error.cluster,
        hint: 'set topic_sync.acls.enabled to false (MM2: sync.topic.acls.enabled = false) to say so',
      });
      return 'stop';
    }
    status.errors++;
    status.state = 'failing';
    status.lastError = describeError(error);
    if (this.failures++ === 0) logger.warn('Syncing topic ACLs failed; will try again at the next interval.', { error: status.lastError });
    else logger.debug('Syncing topic ACLs failed again.', { error: status.lastError, failures: this.failures });
    return 'continue';
  }
}
