/**
 * One flow's heartbeats, MM2's MirrorHeartbeatConnector + MirrorHeartbeatTask: creates the
 * target's `heartbeats` topic (compacted, one partition) and writes a heartbeat record
 * `(source, target, now)` to its partition 0 every interval, the first one interval after start.
 *
 * The flow `A->B` replicates `A`'s `heartbeats` topic to `B` as `A.heartbeats` (the replication
 * flow does that, whatever the topic filter says), so tools on `B` can count the hops from `A`.
 *
 * Writes never overlap (a tick during a slow write is dropped, exhaustMap); a failed write is
 * counted and the next tick tries again. Emitting `stop$` ends the timer; a write under way is
 * finished (so the next elected member's heartbeats never come before it), then the observable
 * completes.
 */
import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import { type Observable, type SchedulerLike, EMPTY, catchError, concat, defer, exhaustMap, finalize, ignoreElements, takeUntil, tap, timer } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import type { RecordWriter } from '../../core/ports/record-writer';
import { describeError, isRetriable } from '../../core/errors';
import { encodeHeartbeatKey, encodeHeartbeatValue } from '../../formats';
import type { HeartbeatStatus } from './heartbeat-status';
import type { OutageStatus, OutageTracker } from '../status/outage-status';
import { withStopSignal } from '../operators/with-stop-signal';

export interface HeartbeatFlowSettings {
  readonly source: string;
  readonly target: string;
  /** `heartbeats.interval_ms` (MM2 `emit.heartbeats.interval.seconds`). */
  readonly intervalMs: number;
  /** The policy's `heartbeatsTopic()`: `heartbeats`. */
  readonly topic: string;
  readonly replicationFactor: number;
}

export interface HeartbeatFlowParts {
  readonly settings: HeartbeatFlowSettings;
  readonly targetAdmin: ClusterAdmin;
  readonly writer: RecordWriter;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: HeartbeatStatus;
  /** The flow's outages: a target that cannot take heartbeats is reported there. */
  readonly outages: OutageStatus;
}
/** DI token of the parts the container gives a HeartbeatFlow; a token and its interface share a name. */
export const HeartbeatFlowParts = token<HeartbeatFlowParts>('HeartbeatFlowParts');

@injectable()
export class HeartbeatFlow {
  /** Failures that are not retriable since the last success: only the first is logged at warn. */
  private failures = 0;
  /** Retriable failures (the target down) are an outage, reported at growing intervals. */
  private readonly outage: OutageTracker;

  constructor(@inject(HeartbeatFlowParts) private readonly parts: HeartbeatFlowParts) {
    this.outage = parts.outages.tracker(parts.settings.target, 'writing heartbeats', parts.logger, () => parts.scheduler.now());
  }

  run(stop$: Observable<unknown>): Observable<never> {
    const { settings, scheduler, status } = this.parts;
    return withStopSignal(stop$, (stopped$) => {
      status.state = 'starting';
      const beats$ = timer(settings.intervalMs, settings.intervalMs, scheduler).pipe(
        // eslint-disable-next-line rxjs-x/no-unsafe-takeuntil -- a stop ends the ticks; a beat under way (one write, no retry) finishes
        takeUntil(stopped$),
        exhaustMap(() => this.beat()),
      );
      return concat(
        this.ensureTopic().pipe(takeUntil(stopped$)),
        defer(() => {
          status.state = 'running';
          return beats$;
        }),
      ).pipe(
        ignoreElements(),
        finalize(() => (status.state = 'stopped')),
      );
    });
  }

  /** MM2's `createSinglePartitionCompactedTopic`; carries on if it cannot (the topic may exist). */
  private ensureTopic(): Observable<never> {
    const { settings, targetAdmin, logger } = this.parts;
    return targetAdmin
      .createTopics([{ name: settings.topic, partitions: 1, replicationFactor: settings.replicationFactor, configs: { 'cleanup.policy': 'compact' } }])
      .pipe(
        tap((created) => {
          if (created.length > 0) logger.info('Internal topic created.', { cluster: targetAdmin.cluster, topic: settings.topic });
        }),
        ignoreElements(),
        catchError((error: unknown) => {
          logger.warn('Could not create an internal topic.', { cluster: targetAdmin.cluster, topic: settings.topic, error: describeError(error) });
          return EMPTY;
        }),
      );
  }

  private beat(): Observable<never> {
    const { settings, writer, scheduler, logger, status } = this.parts;
    return defer(() => {
      const timestamp = scheduler.now();
      const heartbeat = { sourceClusterAlias: settings.source, targetClusterAlias: settings.target, timestamp };
      return writer
        .write([{ topic: settings.topic, partition: 0, timestamp, key: encodeHeartbeatKey(heartbeat), value: encodeHeartbeatValue(heartbeat), headers: [] }])
        .pipe(
          tap(() => {
            status.written++;
            status.lastAt = timestamp;
            this.outage.succeeded();
            if (this.failures > 0) logger.info('Heartbeats are written again.', { topic: settings.topic, failures: this.failures });
            this.failures = 0;
          }),
          ignoreElements(),
          catchError((error: unknown) => {
            status.errors++;
            // The next tick is the retry either way.
            if (isRetriable(error)) this.outage.failed(error);
            else if (this.failures++ === 0)
              logger.warn('Writing a heartbeat failed; will retry at the next interval.', { topic: settings.topic, error: describeError(error) });
            return EMPTY;
          }),
        );
    });
  }
}
