/**
 * MM2's periodic topic config sync (`MirrorSourceConnector.syncTopicConfigs`, every
 * `sync.topic.configs.interval.seconds`): for every source topic being replicated whose remote
 * topic exists, the source's configs that `ConfigPropertyFilter` lets through are SET on the
 * remote topic, and source defaults are DELETEd there (back to the target's default) unless
 * `use.defaults.from=source` copies them. Uses IncrementalAlterConfigs, so the target's other
 * configs (excluded ones, say) stay as they are.
 *
 * Where mirrorflow differs on purpose (see `src/policy/config-drift.ts`): only changes that change
 * something are sent, and when the target refuses a topic's changes (the broker applies a topic's
 * changes all or none), they are sent again one by one, so one refused config (a broker-level
 * bound, a config the target's version does not know) is logged with the broker's reason and
 * counted, and the topic's other configs are still applied. MM2 logs the topic and applies none.
 *
 * A self-contained, timer-driven job (first pass at once, then every interval, passes never
 * overlapping), which lists the topics itself: it can run wherever it is told to. Cluster
 * failures are retried through outages; other failures are counted and the next interval tries
 * again. Never errors; completes on stop.
 */
import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import { type Observable, type SchedulerLike, EMPTY, catchError, defer, exhaustMap, finalize, firstValueFrom, ignoreElements, takeUntil, timer } from '#rxjs';
import type { ClusterAdmin, TopicConfigChange, TopicConfigResult } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { describeError } from '../../core/errors';
import { compareTopicConfigs, configChanges, type ConfigPropertyFilter } from '../../policy';
import type { ConfigSyncStatus, RefusedConfig } from './config-sync-status';
import type { OutageStatus, OutageTracker } from '../status/outage-status';
import { retryThroughOutage } from '../operators/retry-through-outage';
import { withStopSignal } from '../operators/with-stop-signal';

export interface TopicConfigSyncOptions {
  readonly source: string;
  readonly target: string;
  readonly sourceAdmin: ClusterAdmin;
  readonly targetAdmin: ClusterAdmin;
  /** The replication policy's `formatRemoteTopic` for this flow's source. */
  readonly remoteTopic: (sourceTopic: string) => string;
  /** MM2's `shouldReplicateTopic`, as topic sync uses it. */
  readonly shouldReplicate: (sourceTopic: string) => boolean;
  readonly filter: ConfigPropertyFilter;
  /** `topic_sync.configs_interval_ms` (MM2 `sync.topic.configs.interval.seconds`). */
  readonly intervalMs: number;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: ConfigSyncStatus;
  readonly outages: OutageStatus;
}
/** DI token of the parts the container gives a TopicConfigSync; a token and its interface share a name. */
export const TopicConfigSyncOptions = token<TopicConfigSyncOptions>('TopicConfigSyncOptions');

/** What one pass did. */
export interface ConfigSyncPass {
  readonly topics: number;
  readonly applied: number;
  readonly refused: readonly RefusedConfig[];
}

const refusedKey = (r: RefusedConfig): string => `${r.topic}\u0000${r.name}\u0000${r.message}`;

@injectable()
export class TopicConfigSync {
  private readonly outage: OutageTracker;
  /** Failures that are not retriable since the last good pass: only the first is logged at warn. */
  private failures = 0;
  /** Refusals already logged at warn, so a refusal repeated every interval is not. */
  private warned = new Set<string>();

  constructor(@inject(TopicConfigSyncOptions) private readonly options: TopicConfigSyncOptions) {
    this.outage = options.outages.tracker(options.target, 'syncing topic configs', options.logger, () => options.scheduler.now());
  }

  run(stop$: Observable<unknown>): Observable<never> {
    const { intervalMs, scheduler, status, logger } = this.options;
    return withStopSignal(stop$, (stopped$) => {
      status.enabled = true;
      return timer(0, intervalMs, scheduler).pipe(
        exhaustMap(() =>
          this.pass().pipe(
            retryThroughOutage({ tracker: this.outage, scheduler }),
            catchError((error: unknown) => {
              status.errors++;
              if (this.failures++ === 0) logger.warn('Syncing topic configs failed; will retry at the next interval.', { error: describeError(error) });
              return EMPTY;
            }),
          ),
        ),
        ignoreElements(),
        takeUntil(stopped$),
        finalize(() => (status.enabled = false)),
      );
    });
  }

  /** One pass over the topics being replicated; errors when a cluster call fails. */
  pass(): Observable<ConfigSyncPass> {
    return defer(async () => {
      const { sourceAdmin, targetAdmin, remoteTopic, shouldReplicate, filter, status, scheduler } = this.options;
      const targetTopics = new Set((await firstValueFrom(targetAdmin.listTopics())).map((t) => t.name));
      // MM2's "topics being replicated": replicated source topics whose remote topic exists.
      const pairs = (await firstValueFrom(sourceAdmin.listTopics()))
        .filter((t) => shouldReplicate(t.name) && targetTopics.has(remoteTopic(t.name)))
        .map((t) => ({ source: t.name, target: remoteTopic(t.name) }));
      const changes = new Map<string, TopicConfigChange[]>();
      if (pairs.length > 0) {
        const sourceConfigs = await firstValueFrom(sourceAdmin.describeTopicConfigs(pairs.map((p) => p.source)));
        const targetConfigs = await firstValueFrom(targetAdmin.describeTopicConfigs(pairs.map((p) => p.target)));
        for (const p of pairs) {
          const source = sourceConfigs.get(p.source);
          const target = targetConfigs.get(p.target);
          if (source === undefined || target === undefined) continue; // deleted meanwhile
          const list = configChanges(compareTopicConfigs(filter, source, target));
          if (list.length > 0) changes.set(p.target, list);
        }
      }
      const result = await this.apply(changes);
      status.passes++;
      status.topics = pairs.length;
      status.changesApplied += result.applied;
      status.changesRefused += result.refused.length;
      status.refused = result.refused;
      status.lastPassAt = scheduler.now();
      this.failures = 0;
      return { topics: pairs.length, ...result };
    });
  }

  /** Sends the changes; a topic refused as a whole is tried again change by change. */
  private async apply(changes: ReadonlyMap<string, readonly TopicConfigChange[]>): Promise<Omit<ConfigSyncPass, 'topics'>> {
    const { targetAdmin, logger } = this.options;
    let applied = 0;
    const refused: RefusedConfig[] = [];
    if (changes.size === 0) {
      this.warned.clear(); // nothing refused any more: a refusal that comes back is warned about again
      return { applied, refused };
    }
    const results = await firstValueFrom(targetAdmin.alterTopicConfigs(changes));
    const retryOneByOne: [string, TopicConfigChange][] = [];
    for (const [topic, list] of changes) {
      const result = results.get(topic) ?? { ok: false, error: 'NO_ANSWER', message: 'the broker did not answer for this topic', retriable: true };
      if (result.ok) {
        applied += list.length;
        logger.info('Remote topic configs synced.', { topic, changes: list.map(describeChange) });
      } else if (result.retriable) {
        // A topic deleted meanwhile, a controller moving: the next interval tries again.
        logger.info("Could not sync a remote topic's configs now; will retry at the next interval.", { topic, error: result.error, reason: result.message });
      } else if (list.length > 1) retryOneByOne.push(...list.map((c): [string, TopicConfigChange] => [topic, c]));
      else this.refuse(refused, topic, list, result);
    }
    // One request per change: the broker takes each topic once per request.
    for (const [topic, change] of retryOneByOne) {
      const result = (await firstValueFrom(targetAdmin.alterTopicConfigs(new Map([[topic, [change]]])))).get(topic);
      if (result?.ok === true) {
        applied++;
        logger.info('Remote topic configs synced.', { topic, changes: [describeChange(change)] });
      } else this.refuse(refused, topic, [change], result ?? { ok: false, error: 'NO_ANSWER', message: 'the broker did not answer', retriable: true });
    }
    const current = new Set(refused.map(refusedKey));
    this.warned = new Set([...this.warned].filter((k) => current.has(k)));
    return { applied, refused };
  }

  private refuse(refused: RefusedConfig[], topic: string, list: readonly TopicConfigChange[], result: Exclude<TopicConfigResult, { ok: true }>): void {
    for (const change of list) {
      const entry: RefusedConfig = { topic, name: change.name, error: result.error, message: result.message };
      refused.push(entry);
      const key = refusedKey(entry);
      const meta = { cluster: this.options.target, topic, change: describeChange(change), error: result.error, reason: result.message };
      if (this.warned.has(key)) {
        this.options.logger.debug('The target still refuses a topic config change.', meta);
      } else {
        this.warned.add(key);
        this.options.logger.warn('The target refused a topic config change; the topic keeps its value there.', meta);
      }
    }
  }
}

function describeChange(change: TopicConfigChange): string {
  return change.op === 'set' ? `${change.name}=${change.value}` : `${change.name} reset to the target's default`;
}
