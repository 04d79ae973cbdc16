import { token } from '../../core/ports/token';
import { inject, injectable } from '#inversify';
import { type Observable, defer, firstValueFrom } from '#rxjs';
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
}
/** DI token of the parts the container gives a TopicSync; a token and its interface share a name. */
export const TopicSyncOptions = token<TopicSyncOptions>('TopicSyncOptions');

/**
 * MM2's topic discovery and creation (MirrorSourceConnector.computeAndCreateTopicPartitions):
 * find the source topics to replicate, create missing remote topics with the source's partition
 * count and configs, grow remote topics whose source grew. Never deletes or shrinks anything.
 */
@injectable()
export class TopicSync {
  /** Ids from the last refresh that got them. */
  private lastIds: ReadonlyMap<string, string> = new Map();

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

      const missing = replicated.filter((t) => !targetTopics.has(t.target));
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
