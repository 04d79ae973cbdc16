/**
 * Consumer groups, checkpoints and heartbeats on one test cluster, for the checkpoint tests:
 * commits as a consumer would make them, real kafkajs consumers that resume from committed
 * offsets, and the checkpoints topic read with mirrorflow's own CheckpointStore.
 */
import { type Observable, firstValueFrom, lastValueFrom, timeout, toArray } from '#rxjs';
import { KafkajsClients } from '../../src/kafka';
import { Kafka, logLevel } from '../../src/kafka/kafkajs';
import { registerCodecs } from '../../src/kafka/codecs';
import { silentLogger } from '../../src/core/ports/logger';
import type { GroupOffset, GroupState } from '../../src/core/ports/cluster-admin';
import { type Checkpoint, decodeCheckpoint, decodeHeartbeat, type Heartbeat } from '../../src/formats';
import { CheckpointStore } from '../../src/flow/checkpoints/checkpoint-store';
import { KafkaKit } from '../support/kafka-kit';
import type { TestClusters } from '../support/clusters';

/** A read that stops delivering for this long has hung: fail it, so the test says why. */
const READ_STALL_MS = 30_000;

function allBatches<T>(source: Observable<T>): Promise<T[]> {
  return lastValueFrom(source.pipe(timeout({ each: READ_STALL_MS }), toArray()));
}

export interface Consumed {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

export class GroupKit {
  private readonly clients: KafkajsClients;
  private readonly kafka: Kafka;

  constructor(readonly bootstrap: string) {
    registerCodecs();
    this.clients = new KafkajsClients({
      clusters: [
        { alias: 'kit', bootstrapServers: bootstrap.split(','), security: { protocol: 'plaintext' }, connectionTimeoutMs: 10_000, requestTimeoutMs: 30_000 },
      ],
      logger: silentLogger,
      clientIdPrefix: 'mirrorflow-test-groups',
    });
    this.kafka = new Kafka({ brokers: bootstrap.split(','), clientId: 'mirrorflow-test-consumer', logLevel: logLevel.NOTHING });
  }

  /** Commits offsets for a group with no members, as a consumer that processed up to there would. */
  async commit(group: string, offsets: readonly { topic: string; partition: number; offset: number }[]): Promise<void> {
    await firstValueFrom(
      this.clients.admin('kit').commitGroupOffsets(
        group,
        offsets.map((o) => ({ ...o, metadata: '' })),
      ),
    );
  }

  /** The group's committed offsets by `topic-partition`. */
  async committed(group: string): Promise<Map<string, GroupOffset>> {
    const offsets = await firstValueFrom(this.clients.admin('kit').fetchGroupOffsets(group));
    return new Map(offsets.map((o) => [`${o.topic}-${o.partition}`, o]));
  }

  async groupState(group: string): Promise<GroupState> {
    return (await firstValueFrom(this.clients.admin('kit').describeGroups([group]))).get(group) ?? 'dead';
  }

  /** A share group's start offsets by `topic-partition` (partitions where it has none left out). */
  async shareStartOffsets(group: string): Promise<Map<string, number>> {
    const offsets = await firstValueFrom(this.clients.admin('kit').fetchShareGroupOffsets(group));
    return new Map(offsets.map((o) => [`${o.topic}-${o.partition}`, o.startOffset]));
  }

  async endOffsets(topic: string): Promise<number[]> {
    return (await firstValueFrom(this.clients.admin('kit').partitionOffsets(topic))).map((o) => o.latest);
  }

  /**
   * Consumes `topics` in `group` (from the committed offsets; from the beginning where there are
   * none) until `count` records arrived, committing as kafkajs does; then leaves the group.
   */
  async consume(group: string, topics: readonly string[], count: number, timeoutMs = 60_000): Promise<Consumed[]> {
    const session = this.join(group, topics);
    try {
      await session.until((seen) => seen.length >= count, timeoutMs, `${count} records in group ${group}`);
      return session.records();
    } finally {
      await session.leave();
    }
  }

  /** A consumer in `group` that keeps consuming until `leave()`: a group with an active member. */
  join(group: string, topics: readonly string[]): ConsumerSession {
    const consumer = this.kafka.consumer({ groupId: group, maxWaitTimeInMs: 200, allowAutoTopicCreation: false });
    const seen: Consumed[] = [];
    let assigned = false;
    consumer.on(consumer.events.GROUP_JOIN, () => (assigned = true));
    const started = (async () => {
      await consumer.connect();
      await consumer.subscribe({ topics: [...topics], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ topic, partition, message }) => {
          seen.push({ topic, partition, offset: Number(message.offset), value: message.value?.toString() ?? '' });
        },
      });
    })();
    const session: ConsumerSession = {
      records: () => [...seen],
      joined: () => assigned,
      until: async (check, timeoutMs, what) => {
        await started;
        const deadline = Date.now() + timeoutMs;
        while (!check(seen)) {
          if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; consumed ${seen.length}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      leave: async () => {
        await started.catch(() => undefined);
        await consumer.disconnect();
      },
    };
    return session;
  }

  /** Every checkpoint of `group` on a checkpoints topic, in log order (partition 0). */
  async checkpointLog(topic: string, group: string): Promise<Checkpoint[]> {
    const batches = await allBatches(this.clients.reader('kit').readToEnd(topic));
    const out: Checkpoint[] = [];
    for (const batch of batches) {
      if (batch.partition !== 0) continue;
      for (const r of batch.records) {
        const cp = decodeCheckpoint(r.key, r.value);
        if (cp.consumerGroupId === group) out.push(cp);
      }
    }
    return out;
  }

  /** The latest checkpoint of `group` per target topic-partition (`topic-partition` keys). */
  async checkpoints(topic: string, group: string): Promise<ReadonlyMap<string, Checkpoint>> {
    const store = await firstValueFrom(
      CheckpointStore.read(this.clients.reader('kit'), topic, { acceptGroup: (g) => g === group }).pipe(timeout({ first: READ_STALL_MS * 2 })),
    );
    return store.get(group) ?? new Map();
  }

  async topicExists(topic: string): Promise<boolean> {
    return (await firstValueFrom(this.clients.admin('kit').listTopics())).some((t) => t.name === topic);
  }

  async topicConfig(topic: string, name: string): Promise<string | null | undefined> {
    const described = await firstValueFrom(this.clients.admin('kit').describeTopicConfigs([topic]));
    return described.get(topic)?.find((e) => e.name === name)?.value;
  }

  async partitions(topic: string): Promise<number | undefined> {
    return (await firstValueFrom(this.clients.admin('kit').listTopics())).find((t) => t.name === topic)?.partitions;
  }

  /** Heartbeats on a heartbeats topic with their record timestamps (partition 0). */
  async heartbeats(topic: string): Promise<(Heartbeat & { recordTimestamp: number; partition: number })[]> {
    const batches = await allBatches(this.clients.reader('kit').readToEnd(topic));
    return batches.flatMap((b) => b.records.map((r) => ({ ...decodeHeartbeat(r.key, r.value), recordTimestamp: r.timestamp, partition: r.partition })));
  }

  async close(): Promise<void> {
    await this.clients.close();
  }
}

export interface ConsumerSession {
  records(): Consumed[];
  joined(): boolean;
  until(check: (seen: readonly Consumed[]) => boolean, timeoutMs: number, what: string): Promise<void>;
  leave(): Promise<void>;
}

/**
 * MM2's assertMonotonicCheckpoints: per group and topic-partition, the downstream offset never
 * goes down along the topic, except where the upstream offset went down too (a rewind).
 */
export function assertMonotonic(log: readonly Checkpoint[]): string | undefined {
  const last = new Map<string, Checkpoint>();
  for (const cp of log) {
    const key = `${cp.consumerGroupId}/${cp.topicPartition.topic}-${cp.topicPartition.partition}`;
    const previous = last.get(key);
    if (previous && cp.downstreamOffset < previous.downstreamOffset && cp.upstreamOffset >= previous.upstreamOffset) {
      return `checkpoint went back for ${key}: ${previous.upstreamOffset}→${previous.downstreamOffset} then ${cp.upstreamOffset}→${cp.downstreamOffset}`;
    }
    last.set(key, cp);
  }
  return undefined;
}

/** The kits a checkpoint test uses: records and consumer groups on each test cluster. */
export interface CheckpointKits {
  readonly source: KafkaKit;
  readonly target: KafkaKit;
  readonly sourceGroups: GroupKit;
  readonly targetGroups: GroupKit;
}

/** Opens the checkpoint tests' kits (for `useKits`). */
export function openCheckpointKits(clusters: TestClusters): CheckpointKits {
  return {
    source: new KafkaKit(clusters.primary),
    target: new KafkaKit(clusters.backup),
    sourceGroups: new GroupKit(clusters.primary),
    targetGroups: new GroupKit(clusters.backup),
  };
}
