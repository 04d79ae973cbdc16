/**
 * Topic housekeeping and progress polling for the benchmark, through a plain kafkajs admin
 * client (via mirrorflow's one door to kafkajs). None of this is timed work of a replicator.
 */
import { Kafka, logLevel, type Admin } from '../../src/kafka/kafkajs';
import { waitFor } from '../support/wait-for';

/** The longest one admin call may take (a delete of 320 partitions takes seconds, not minutes). */
const CALL_DEADLINE_MS = 120_000;

export interface NewTopic {
  readonly name: string;
  readonly partitions: number;
  /** Default 1. */
  readonly replicationFactor?: number;
  readonly configs?: Readonly<Record<string, string>>;
}

export class BenchAdmin {
  private readonly admin: Admin;
  private connected: Promise<void> | undefined;

  constructor(
    readonly bootstrap: string,
    clientId: string,
    /** Of the topics it creates: 1, or 3 on clusters of three brokers (`--brokers`). */
    private readonly replicationFactor = 1,
  ) {
    this.admin = new Kafka({
      brokers: bootstrap.split(','),
      clientId,
      logLevel: logLevel.NOTHING,
      // The poller asks every 100 ms; a slow answer must not pile up retries behind it.
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
      requestTimeout: 30_000,
    }).admin();
  }

  private connect(): Promise<void> {
    this.connected ??= this.admin.connect();
    return this.connected;
  }

  /**
   * One admin call, connecting first, that fails after CALL_DEADLINE_MS: kafkajs sets no deadline
   * of its own on some of them, and a broker that stopped answering once left a whole benchmark
   * waiting, idle, for as long as it was left alone.
   */
  private async ask<T>(what: string, call: (admin: Admin) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} on ${this.bootstrap} did not answer within ${CALL_DEADLINE_MS / 1000} s.`)), CALL_DEADLINE_MS);
    });
    try {
      return await Promise.race([this.connect().then(() => call(this.admin)), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  async createTopics(topics: readonly NewTopic[]): Promise<void> {
    await this.ask('Creating topics', (admin) =>
      admin.createTopics({
        // createReadyTopics waits, with its own deadline: kafkajs' wait gives up after its retries.
        waitForLeaders: false,
        topics: topics.map((t) => ({
          topic: t.name,
          numPartitions: t.partitions,
          replicationFactor: t.replicationFactor ?? this.replicationFactor,
          // Keep old timestamps from retention; nothing here should ever be deleted by time.
          configEntries: Object.entries({ 'retention.ms': '-1', ...(t.configs ?? {}) }).map(([name, value]) => ({ name, value })),
        })),
      }),
    );
  }

  /**
   * Creates the topics and waits until every partition answers ListOffsets: a broker that has
   * the metadata but not yet the log answers NOT_LEADER_OR_FOLLOWER, which made the Java
   * producer's first batches of a 320-partition preload fail.
   */
  async createReadyTopics(topics: readonly NewTopic[], timeoutMs = 60_000): Promise<void> {
    await this.createTopics(topics);
    await waitFor(
      async () => {
        const offsets = await this.endOffsets(topics.map((t) => t.name));
        return topics.every((t) => (offsets.get(t.name) ?? []).filter((o) => o !== undefined).length === t.partitions);
      },
      { what: `a leader for every partition of ${topics.map((t) => t.name).join(', ')}`, timeoutMs },
    );
  }

  /**
   * Waits until the cluster's group coordinators answer. A cluster's first FindCoordinator
   * creates `__consumer_offsets` (50 partitions), which takes a few hundred ms; a cluster in use
   * has it, so the warm-up makes it rather than the first replicator timed.
   */
  async groupCoordinatorsReady(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        await this.ask('Describing a group', (admin) => admin.describeGroups(['bench-warm-up']));
        return true;
      },
      { what: `the group coordinators of ${this.bootstrap}`, timeoutMs },
    );
  }

  async listTopics(): Promise<string[]> {
    return this.ask('Listing topics', (admin) => admin.listTopics());
  }

  /** Deletes the topics whose name contains `marker`; returns their names. */
  async deleteTopicsContaining(marker: string): Promise<string[]> {
    const names = (await this.listTopics()).filter((name) => name.includes(marker));
    if (names.length > 0) await this.ask('Deleting topics', (admin) => admin.deleteTopics({ topics: names, timeout: 30_000 }));
    return names;
  }

  /**
   * High watermarks of each topic by partition; a topic that does not exist (yet) is left out.
   * `known` is the caller's cache of existing topics, so that polling does not list all topics
   * each time once they exist.
   */
  async endOffsets(topics: readonly string[], known?: Set<string>): Promise<Map<string, number[]>> {
    let existing = topics.filter((t) => known?.has(t));
    if (existing.length < topics.length) {
      const all = new Set(await this.listTopics());
      existing = topics.filter((t) => all.has(t));
      for (const t of existing) known?.add(t);
    }
    const result = new Map<string, number[]>();
    await Promise.all(
      existing.map(async (topic) => {
        const offsets = await this.ask('Reading end offsets', (admin) => admin.fetchTopicOffsets(topic));
        const byPartition: number[] = [];
        for (const o of offsets) byPartition[o.partition] = Number(o.high);
        result.set(topic, byPartition);
      }),
    );
    return result;
  }

  async close(): Promise<void> {
    if (this.connected !== undefined) await this.admin.disconnect().catch(() => undefined);
  }
}

/** Sum of all partitions of all topics. */
export function sumOffsets(offsets: ReadonlyMap<string, readonly number[]>): number {
  let sum = 0;
  for (const list of offsets.values()) for (const value of list) sum += value ?? 0;
  return sum;
}

/** True when every topic of `expected` exists in `actual` and each partition reached its expected offset. */
export function reached(
  actual: ReadonlyMap<string, readonly number[]>,
  expected: ReadonlyMap<string, readonly number[]>,
  rename: (topic: string) => string,
): boolean {
  for (const [topic, wanted] of expected) {
    const have = actual.get(rename(topic));
    if (have === undefined || have.length < wanted.length) return false;
    for (let p = 0; p < wanted.length; p++) if ((have[p] ?? 0) < (wanted[p] ?? 0)) return false;
  }
  return true;
}

/** The end offsets of a new topic's partitions after `records` records, record i to partition i % partitions. */
export function evenSpread(records: number, partitions: number): number[] {
  return Array.from({ length: partitions }, (_, p) => Math.floor(records / partitions) + (p < records % partitions ? 1 : 0));
}
