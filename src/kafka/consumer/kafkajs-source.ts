import { Observable } from '#rxjs';
import { PartitionAssigners, type Consumer, type EachBatchPayload, type Kafka } from '../kafkajs';
import type { ConsumeOptions, ForwardRecordBatches, RecordSource } from '../../core/ports/record-source';
import type { GroupTimings, SourceOptions } from '../../core/ports/kafka-clients';
import type { Logger } from '../../core/ports/logger';
import type { SourceBatch, TopicPartition } from '../../core/record';
import type { ForwardPolicy } from '../wire/fetch-decoder';
import { toTransportError } from '../errors';
import { watchCrashes } from './kafkajs-reader';
import { COMPRESSION_CODES } from '../compression-codes';
import { decideAfterRestart, decideFetch, positionAfterFilteredFetch } from './fetch-position';
import { firstFetchedOffset, splitFetch, type FetchedMessage } from './split-fetch';
import { groupHooks } from './group-hooks';
import { slotAssigner } from './slot-assigner';
import { stickyAssigner, type HeldPartitions } from './sticky-assigner';
import { aliveUntil } from './alive-until';

const PARTITIONS_CONSUMED_CONCURRENTLY = 8;
/**
 * The flow's group when the settings give none. A member that crashed holds its partitions until
 * its session expires: 6 s is the shortest session a broker accepts by default
 * (`group.min.session.timeout.ms`), and kafkajs has no static membership to skip the wait; a
 * member that stops cleanly leaves at once. The rebalance timeout is kafkajs's default.
 */
export const DEFAULT_GROUP_TIMINGS: GroupTimings = { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 1_000, rebalanceTimeoutMs: 60_000 };

function forwardPolicy({ minCompressedBytes, maxBytes, compression }: ForwardRecordBatches): ForwardPolicy {
  return { minCompressedBytes, maxBytes, ...(compression === undefined ? {} : { codec: COMPRESSION_CODES[compression] }) };
}

/**
 * RecordSource over a kafkajs consumer group. Partitions are shared between the processes running
 * the flow by the group protocol, but positions come from the flow (its stored progress), never
 * from group commits: the consumer never commits. When a partition is (re)assigned, the first
 * batch is checked against the flow's start offset and the consumer seeks when they differ.
 */
export class KafkajsSource implements RecordSource {
  /** A new consumer waits for the previous one to leave the group, so subscriptions never overlap. */
  private previousStop: Promise<void> = Promise.resolve();
  private readonly group: GroupTimings;

  constructor(
    readonly cluster: string,
    /** The kafkajs instance for a consumer, whose connections fetch ahead; with a policy, they also forward record batches. */
    private readonly kafka: (forward: ForwardPolicy | undefined) => Kafka,
    private readonly options: SourceOptions,
    private readonly logger: Logger,
  ) {
    this.group = options.group ?? DEFAULT_GROUP_TIMINGS;
    warnAboutTimings(this.group, logger);
  }

  consume(options: ConsumeOptions): Observable<SourceBatch> {
    return new Observable<SourceBatch>((subscriber) => {
      const abort = new AbortController();
      const next = new Map<string, number>();
      const starts = new Map<string, Promise<number>>();
      /** The generation whose assignment the fetched batches belong to. */
      let assignedGeneration: number | undefined;
      /** What this member was assigned last: its claims in the sticky assignment. */
      let held: HeldPartitions | undefined;
      const { lifecycle, slots } = options;
      // The sticky assignment first; the assignment of earlier versions while one of them is in
      // the group (the coordinator picks a protocol every member offers).
      const sticky = stickyAssigner({ held: () => held, ...(slots === undefined ? {} : { slots }), logger: this.logger });
      const { partitionAssigners, member } = groupHooks(
        {
          // Eager protocol: every partition is given up before the rejoin; the flow drains and
          // stores their progress first, so the next owner starts where this one stopped.
          beforeJoin: async () => {
            await lifecycle.revoke();
            next.clear();
            starts.clear();
          },
        },
        [sticky, slots === undefined ? PartitionAssigners.roundRobin : slotAssigner(slots, this.logger)],
      );
      // A forwarding consumer's connections hand fetched record batches over whole (../wire/connection-behaviour.ts).
      const forwarding = options.forwardRecordBatches;
      const consumer: Consumer = this.kafka(forwarding && forwardPolicy(forwarding)).consumer({
        groupId: options.groupId,
        partitionAssigners,
        readUncommitted: this.options.isolationLevel === 'read_uncommitted',
        maxBytesPerPartition: this.options.maxBytesPerPartition,
        maxWaitTimeInMs: this.options.maxWaitMs,
        minBytes: this.options.minBytes ?? 1,
        allowAutoTopicCreation: false,
        // A member that crashed holds its partitions until its session expires; a short session
        // lets a restarted process get them back within seconds instead of kafkajs's 30.
        sessionTimeout: this.group.sessionTimeoutMs,
        heartbeatInterval: this.group.heartbeatIntervalMs,
        rebalanceTimeout: this.group.rebalanceTimeoutMs,
        // Fetched from a replica in this rack, when the brokers' replica selector says so (KIP-392).
        ...(this.options.rackId === undefined ? {} : { rackId: this.options.rackId }),
      });
      // kafkajs heartbeats only from its fetch loop: a round longer than the session (the first
      // fetch of thousands of partitions after a join, on a loaded broker) would lose the member,
      // whose rejoin copies partitions again. This timer heartbeats between (group-hooks.ts).
      const keepAlive = setInterval(
        () => void member.keepAlive(this.group.heartbeatIntervalMs).catch(() => undefined), // never rejects: the fetch loop acts on the answer
        this.group.heartbeatIntervalMs,
      );
      // Start positions are decided when partitions are assigned, not when their first batch
      // arrives: for `start: latest`, a partition that is empty now must start at its current
      // end, not at wherever its end is once records show up.
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        next.clear();
        starts.clear();
        const assigned = Object.entries(event.payload.memberAssignment).flatMap(([topic, partitions]) => partitions.map((partition) => ({ topic, partition })));
        // A coordinator that cannot be asked is an outage of the source, retried as one. A consumer
        // this process stopped (a stop, or a restart of the source) leaves its group at once, while
        // its last records are still being acknowledged: the flush after them is its own final word
        // on partitions it owned until it left, not a stale owner's, so it is not fenced. (A next
        // owner that read progress before it lands copies those records again: duplicates, never a gap.)
        // Asked about the generation of this assignment, not the member's latest: a write of
        // partitions given up in a rebalance that outlasted the wait for it (or the exactly-once
        // reset of a slot given up so) must not pass for the new generation's owner.
        const generation = member.generation();
        assignedGeneration = generation;
        const stillMember = (): Promise<boolean> =>
          abort.signal.aborted
            ? Promise.resolve(true)
            : member.stillMember(generation).catch((error: unknown) => {
                throw toTransportError(this.cluster, error, 'Checking the group membership');
              });
        if (generation !== undefined) held = { generation, partitions: assigned };
        // A partition paused in an earlier generation (below) and assigned again starts unpaused.
        consumer.resume(Object.entries(event.payload.memberAssignment).map(([topic, partitions]) => ({ topic, partitions })));
        // Partitions kept from the generation before are fetched from where this member was, not
        // from kafkajs's position of a new assignment (the log's start: it commits nothing), which
        // would cost a fetch of records already copied before the flow's seek.
        const kept = lifecycle.assigned(assigned, generation, stillMember);
        const keptKeys = new Set(kept.map((tp) => `${tp.topic}-${tp.partition}`));
        for (const tp of kept) consumer.seek({ topic: tp.topic, partition: tp.partition, offset: String(tp.nextOffset) });
        const waiting: TopicPartition[] = [];
        for (const tp of assigned) {
          const key = `${tp.topic}-${tp.partition}`;
          const start = lifecycle.startOffset(tp);
          start.catch(() => undefined); // a failure surfaces when the partition's batch awaits it
          starts.set(key, start);
          // While partitions are kept, the new ones must not hold them up: kafkajs sends a broker's
          // next Fetch only once every partition of the last one went through eachBatch, where a
          // new partition waits for its progress to be read. A new one is paused until its start
          // is known, then fetched from there (not first from the log's start).
          if (keptKeys.size === 0 || keptKeys.has(key)) continue;
          waiting.push(tp);
          const resume = (offset?: number): void => {
            if (abort.signal.aborted || assignedGeneration !== generation) return;
            if (offset !== undefined) consumer.seek({ topic: tp.topic, partition: tp.partition, offset: String(offset) });
            consumer.resume([{ topic: tp.topic, partitions: [tp.partition] }]);
          };
          // A failed start is resumed too: its batch then awaits the start and reports the failure.
          start.then(resume, () => resume());
        }
        if (waiting.length > 0) consumer.pause(waiting.map((tp) => ({ topic: tp.topic, partitions: [tp.partition] })));
      });
      // kafkajs does not call eachBatch for a fetch whose records were all filtered out: the
      // flow's position moves past them here (see positionAfterFilteredFetch).
      consumer.on(consumer.events.END_BATCH_PROCESS, (event) => {
        const { topic, partition, batchSize, lastOffset, highWatermark } = event.payload;
        if (batchSize > 0) return;
        const key = `${topic}-${partition}`;
        const start = starts.get(key);
        if (start === undefined) return;
        start.then(
          (startOffset) => {
            const skippedTo = positionAfterFilteredFetch(batchSize, Number(lastOffset), next.get(key) ?? startOffset);
            if (abort.signal.aborted || skippedTo === undefined) return;
            next.set(key, skippedTo);
            subscriber.next({ kind: 'records', topic, partition, records: [], nextOffset: skippedTo, highWatermark: Number(highWatermark), bytes: 0 });
          },
          () => undefined, // a failure surfaces when the partition's batch awaits it
        );
      });
      watchCrashes(
        consumer,
        () => abort.signal.aborted,
        (error) => subscriber.error(toTransportError(this.cluster, error, `Reading records of ${topicList(options.topics)}`)),
      );

      const eachBatch = async ({ batch, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> => {
        // Fetched after kafkajs heard this member is out of its group (its session expired during
        // a network cut, say), before it rejoins: another member may own the partition now. Not
        // copied; the partition's next start is decided by the next assignment.
        if (!member.holds(assignedGeneration)) return;
        const key = `${batch.topic}-${batch.partition}`;
        let expected = next.get(key);
        if (expected === undefined) {
          // The flow may still be starting (the group is joined while progress loads): the
          // member stays in its group meanwhile, and a stop ends the wait.
          const start = await aliveUntil(starts.get(key) ?? lifecycle.startOffset({ topic: batch.topic, partition: batch.partition }), {
            heartbeat,
            intervalMs: this.group.heartbeatIntervalMs,
            signal: abort.signal,
          });
          if (start === undefined || !isRunning() || isStale()) return;
          expected = start;
          next.set(key, expected);
        }
        const lastOffset = Number(batch.lastOffset());
        let decision = decideFetch(expected, lastOffset, Number(batch.highWatermark));
        if (decision.action === 'log-restarted') {
          expected = await lifecycle.logRestarted({ topic: batch.topic, partition: batch.partition }, decision.restart);
          if (!isRunning() || isStale()) return;
          next.set(key, expected);
          decision = decideAfterRestart(expected, lastOffset);
        }
        if (decision.action === 'seek') {
          consumer.seek({ topic: batch.topic, partition: batch.partition, offset: String(decision.offset) });
          return;
        }
        const messages = batch.messages as unknown as FetchedMessage[];
        // Records between the expected offset and the fetch may have expired unread: the flow checks.
        const firstOffset = firstFetchedOffset(messages);
        if (firstOffset !== undefined && firstOffset > expected)
          lifecycle.fetchedPast({ topic: batch.topic, partition: batch.partition }, { expected, firstOffset });
        const pieces = await splitFetch(
          { topic: batch.topic, partition: batch.partition, from: expected, nextOffset: lastOffset + 1, highWatermark: Number(batch.highWatermark) },
          messages,
          options.maxBatch,
        );
        let bytes = 0;
        for (const piece of pieces) bytes += piece.bytes;
        try {
          await options.flowControl.acquire(bytes, heartbeat, abort.signal);
        } catch (error) {
          if (abort.signal.aborted) return;
          throw error;
        }
        if (!isRunning() || isStale() || !member.holds(assignedGeneration)) {
          options.flowControl.release(bytes);
          return;
        }
        next.set(key, lastOffset + 1);
        for (const piece of pieces) subscriber.next(piece);
      };

      const run = (): Promise<void> => consumer.run({ autoCommit: false, partitionsConsumedConcurrently: PARTITIONS_CONSUMED_CONCURRENTLY, eachBatch });
      const start = this.previousStop.then(async () => {
        if (abort.signal.aborted) return;
        await consumer.connect();
        if (abort.signal.aborted) return;
        await consumer.subscribe({ topics: [...options.topics], fromBeginning: true });
        if (abort.signal.aborted) return;
        await run();
      });
      start.catch((error: unknown) => {
        if (!abort.signal.aborted) subscriber.error(toTransportError(this.cluster, error, 'Starting the consumer'));
      });

      return () => {
        abort.abort();
        clearInterval(keepAlive);
        this.previousStop = start
          .catch(() => undefined) // reported to the subscriber above, unless it was stopping
          .then(() => consumer.disconnect())
          .catch((error: unknown) => this.logger.warn('Consumer did not leave its group cleanly.', { error: String(error) }));
      };
    });
  }

  /** Resolves once the last consumer has left its group. */
  stopped(): Promise<void> {
    return this.previousStop;
  }
}

/** Broker defaults of `group.min.session.timeout.ms` and `group.max.session.timeout.ms`. */
const BROKER_SESSION_RANGE = [6_000, 1_800_000] as const;

/** What Kafka documents about a group's timings and the settings do not keep to, logged once per flow. */
export function warnAboutTimings(group: GroupTimings, logger: Logger): void {
  const { sessionTimeoutMs, heartbeatIntervalMs } = group;
  const [min, max] = BROKER_SESSION_RANGE;
  if (sessionTimeoutMs < min || sessionTimeoutMs > max) {
    logger.warn('The session timeout is outside what brokers accept by default; a broker that keeps its defaults refuses the join.', {
      sessionTimeoutMs,
      brokerDefaultMinMs: min,
      brokerDefaultMaxMs: max,
    });
  }
  if (heartbeatIntervalMs * 3 > sessionTimeoutMs) {
    logger.warn(
      'The heartbeat interval is more than a third of the session timeout (Kafka recommends at most a third): a process may leave its group after a heartbeat or two is late.',
      {
        heartbeatIntervalMs,
        sessionTimeoutMs,
      },
    );
  }
}

/** `topic "a"` or `topics "a", "b" and 3 more`, for messages. */
function topicList(topics: readonly string[]): string {
  const shown = topics.slice(0, 5).map((t) => `"${t}"`);
  if (topics.length === 1) return `topic ${shown[0]}`;
  const more = topics.length - shown.length;
  return `topics ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
