import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import { type Observable, type SchedulerLike, defer, firstValueFrom } from '#rxjs';
import type { ClusterAdmin, TopicConfigEntry, TopicDescription } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { describeError } from '../../core/errors';

/** A source topic and the remote topic it is replicated to. */
export interface ReplicatedTopic {
  readonly source: string;
  readonly target: string;
  readonly partitions: number;
  /** The source topic's id, when the source cluster gives ids: it changes when the topic is recreated. */
  readonly topicId?: string;
}

export interface TopicSyncOptions {
  readonly sourceAdmin: ClusterAdmin;
  readonly targetAdmin: ClusterAdmin;
  /** The replication policy's `formatRemoteTopic` for this flow's source. */
  readonly remoteTopic: (sourceTopic: string) => string;
  /** MM2's `shouldReplicateTopic`: filters, heartbeats, internal topics, cycles. */
  readonly shouldReplicate: (sourceTopic: string) => boolean;
  /** Which source configs a new remote topic gets (MM2's ConfigPropertyFilter / targetConfig). */
  readonly targetConfig: (entries: readonly TopicConfigEntry[]) => Record<string, string>;
  readonly syncConfigs: boolean;
  readonly replicationFactor: number;
  readonly logger: Logger;
  /** Told how many remote topics each refresh created (for the flow's status). */
  readonly onCreated?: (count: number) => void;
  /** Its `now()` is the clock of `UNLISTED_GRACE_MS`: asyncScheduler in production, virtual time in specs. */
  readonly scheduler: SchedulerLike;
}
/** DI token of the parts the container gives a TopicSync; a token and its interface share a name. */
export const TopicSyncOptions = token<TopicSyncOptions>('TopicSyncOptions');

/** How long a remote topic this sync created, and the target does not list yet, is not asked for again. */
export const UNLISTED_GRACE_MS = 5 * 60_000;

/**
 * Kafka lets only one of two topic names exist that differ only in `.` against `_` (their metric
 * names collide); the broker refuses to create the second.
 */
const collisionKey = (topic: string): string => topic.replace(/\./g, '_');

/**
 * MM2's topic discovery and creation (MirrorSourceConnector.computeAndCreateTopicPartitions):
 * find the source topics to replicate, create missing remote topics with the source's partition
 * count and configs, grow remote topics whose source grew. Never deletes or shrinks anything.
 */
@injectable()
export class TopicSync {
  /** Ids from the last refresh that got them. */
  private lastIds: ReadonlyMap<string, string> = new Map();
  /**
   * Remote topics this sync created that the target's listing has not shown since, by name, with
   * when they were asked for. A broker lists a new topic only once it has applied the
   * controller's records, and one that had just been asked for thousands of partitions fell
   * minutes behind: each refresh took them for missing and asked the controller again (refused
   * as existing, a request per refresh and one per topic), loading it further. Such a topic is not
   * asked for until the listing shows it or `UNLISTED_GRACE_MS` passed. A topic deleted on the
   * target before any listing showed it looks the same from here, so it is asked for at once
   * when the listing shows a topic whose name collides with it: Kafka allows only one of the two,
   * so it is not there (deleted, then blocked by the other). Once listed, a topic deleted later
   * is missing from the listing and asked for at the next refresh, as any.
   */
  private readonly unlisted = new Map<string, number>();

  constructor(@inject(TopicSyncOptions) private readonly options: TopicSyncOptions) {}

  /**
   * Topic ids only tell recreated topics apart: failing to get them must not stop topics from
   * being replicated, and keeping the last ones keeps the subscription as it is.
   */
  private async topicIds(topics: readonly TopicDescription[]): Promise<ReadonlyMap<string, string>> {
    // Usually the listing gave them (see ClusterAdmin.listTopics).
    const listed = topics.flatMap((t) => (t.topicId === undefined ? [] : [[t.name, t.topicId] as const]));
    if (listed.length > 0) return (this.lastIds = new Map(listed));
    try {
      this.lastIds = await firstValueFrom(this.options.sourceAdmin.topicIds(topics.map((t) => t.name)));
    } catch (error) {
      this.options.logger.warn('Reading source topic ids failed; recreated topics are noticed by their offsets only until it works again.', {
        error: describeError(error),
      });
    }
    return this.lastIds;
  }

  /**
   * One pass; emits the topics being replicated, sorted by source name. `listed` is told them
   * as soon as the source has been asked, before anything is created on the target.
   */
  refresh(listed?: (topics: readonly ReplicatedTopic[]) => void): Observable<readonly ReplicatedTopic[]> {
    return defer(async () => {
      const { sourceAdmin, targetAdmin, remoteTopic, shouldReplicate, logger } = this.options;
      // Asked side by side: on a distant link each request made after another costs a round trip.
      const targetListing = firstValueFrom(targetAdmin.listTopics());
      targetListing.catch(() => undefined); // awaited below; a failure surfaces there
      const sourceTopics = (await firstValueFrom(sourceAdmin.listTopics())).filter((t) => shouldReplicate(t.name));
      if (sourceTopics.length === 0) {
        listed?.([]);
        return [];
      }
      const ids = await this.topicIds(sourceTopics);
      const replicated = sourceTopics
        .map((t): ReplicatedTopic => {
          const topicId = ids.get(t.name);
          return { source: t.name, target: remoteTopic(t.name), partitions: t.partitions, ...(topicId === undefined ? {} : { topicId }) };
        })
        .sort((a, b) => a.source.localeCompare(b.source));
      listed?.(replicated);
      const targetTopics = new Map<string, TopicDescription>((await targetListing).map((t) => [t.name, t]));

      const now = this.options.scheduler.now();
      this.forgetListedOrStale(targetTopics, now);
      const missing = replicated.filter((t) => !targetTopics.has(t.target) && !this.unlisted.has(t.target));
      if (missing.length > 0) {
        const configs = this.options.syncConfigs
          ? await firstValueFrom(sourceAdmin.describeTopicConfigs(missing.map((t) => t.source)))
          : new Map<string, readonly TopicConfigEntry[]>();
        const created = await firstValueFrom(
          targetAdmin.createTopics(
            missing.map((t) => ({
              name: t.target,
              partitions: t.partitions,
              replicationFactor: this.options.replicationFactor,
              configs: this.options.targetConfig(configs.get(t.source) ?? []),
            })),
            // Not waited for: the writer retries a partition its leader does not serve yet, and
            // the consumer joins its group meanwhile. 2,000 new partitions took the benchmark's
            // broker more than 10 s to serve, which held every partition back.
            { served: false },
          ),
        );
        // Only the topics created: one refused as existing is not this sync's (it may collide
        // with another's name, which may be gone by the next refresh) and is asked for again.
        for (const name of created) this.unlisted.set(name, now);
        for (const name of created) logger.info('Remote topic created.', { topic: name });
        if (created.length > 0) this.options.onCreated?.(created.length);
      }
      for (const t of replicated) {
        const existing = targetTopics.get(t.target);
        if (existing && existing.partitions < t.partitions) {
          await firstValueFrom(targetAdmin.createPartitions(t.target, t.partitions));
          logger.info('Remote topic partitions added.', { topic: t.target, from: existing.partitions, to: t.partitions });
        }
      }
      return replicated;
    });
  }

  /** Forgets the created topics the listing shows, those whose grace passed, and those a listed topic's name collides with. */
  private forgetListedOrStale(targetTopics: ReadonlyMap<string, TopicDescription>, now: number): void {
    if (this.unlisted.size === 0) return;
    const colliding = new Set([...targetTopics.keys()].map(collisionKey));
    for (const [name, askedAt] of this.unlisted) {
      if (targetTopics.has(name) || now - askedAt >= UNLISTED_GRACE_MS || colliding.has(collisionKey(name))) this.unlisted.delete(name);
    }
  }
}

/**
 * True when two refreshes describe the same subscription (same topics, same partition counts,
 * same topic ids: a recreated topic is subscribed afresh).
 */
export function sameTopics(a: readonly ReplicatedTopic[], b: readonly ReplicatedTopic[]): boolean {
  return (
    a.length === b.length &&
    a.every((t, i) => t.source === b[i]!.source && t.partitions === b[i]!.partitions && t.target === b[i]!.target && t.topicId === b[i]!.topicId)
  );
}
