import { Observable, firstValueFrom } from '#rxjs';
import type { Kafka } from '../kafkajs';
import type { CampaignOptions, LeaderElection } from '../../core/ports/leader-election';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { groupHooks } from './group-hooks';
import { toTransportError } from '../errors';
import { watchCrashes } from './kafkajs-reader';
import { DEFAULT_GROUP_TIMINGS } from './kafkajs-source';

/** kafkajs heartbeats from its fetch loop; with the seat paused, a loop turn waits this long. */
const IDLE_WAIT_MS = 500;

/**
 * LeaderElection through a kafkajs consumer group: every process subscribes a member to a
 * one-partition topic, and the member the group assigns partition 0 holds the seat. The seat's
 * partition is paused at once, so the member fetches nothing and only heartbeats. kafkajs's
 * protocol is eager: before any rejoin the elected member steps down (group-hooks.ts), so two
 * members are never elected in the same generation.
 */
export class KafkajsElection implements LeaderElection {
  private leaving: Promise<void> = Promise.resolve();

  constructor(
    readonly cluster: string,
    private readonly kafka: Kafka,
    private readonly admin: ClusterAdmin,
    private readonly logger: Logger,
  ) {}

  campaign({ groupId, topic, replicationFactor, stepDown, group = DEFAULT_GROUP_TIMINGS }: CampaignOptions): Observable<boolean> {
    return new Observable<boolean>((subscriber) => {
      let stopped = false;
      let elected = false;
      const resign = (): void => {
        if (!elected) return;
        elected = false;
        subscriber.next(false);
      };
      const { partitionAssigners } = groupHooks({
        beforeJoin: async () => {
          const wasElected = elected;
          resign();
          if (wasElected) await stepDown();
        },
      });
      const consumer = this.kafka.consumer({
        groupId,
        partitionAssigners,
        // As the flow's source group: a process that dies loses its seat when it loses its partitions.
        sessionTimeout: group.sessionTimeoutMs,
        heartbeatInterval: group.heartbeatIntervalMs,
        rebalanceTimeout: group.rebalanceTimeoutMs,
        maxWaitTimeInMs: IDLE_WAIT_MS,
        allowAutoTopicCreation: false,
      });
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        if (!(event.payload.memberAssignment[topic] ?? []).includes(0)) return;
        consumer.pause([{ topic, partitions: [0] }]);
        if (stopped) return;
        elected = true;
        subscriber.next(true);
      });
      // A crashed member has left the group: whoever gets the seat next must be alone on it.
      consumer.on(consumer.events.CRASH, () => resign());
      watchCrashes(
        consumer,
        () => stopped,
        (error) => subscriber.error(toTransportError(this.cluster, error, 'Electing the member that runs the flow jobs')),
      );
      const started = (async () => {
        await firstValueFrom(this.admin.createTopics([{ name: topic, partitions: 1, replicationFactor, configs: { 'cleanup.policy': 'compact' } }]));
        if (stopped) return;
        await consumer.connect();
        if (stopped) return;
        await consumer.subscribe({ topics: [topic], fromBeginning: false });
        if (stopped) return;
        await consumer.run({ autoCommit: false, eachBatch: async () => undefined });
      })();
      started.catch((error: unknown) => {
        if (!stopped) subscriber.error(toTransportError(this.cluster, error, 'Joining the election group'));
      });
      return () => {
        stopped = true;
        this.leaving = started
          .catch(() => undefined) // reported to the subscriber above, unless it was stopping
          .then(() => consumer.disconnect())
          .catch((error: unknown) => this.logger.warn('Election member did not leave its group cleanly.', { error: String(error) }));
      };
    });
  }

  /** Resolves once the last campaign's member has left its group. */
  stopped(): Promise<void> {
    return this.leaving;
  }
}
