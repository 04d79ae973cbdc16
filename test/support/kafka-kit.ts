import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { retryWithBackoff, type RetryConfig } from '../../src/core/retry';
import { createHash } from 'node:crypto';
import { KafkajsClients } from '../../src/kafka';
import { Kafka, logLevel, CompressionTypes } from '../../src/kafka/kafkajs';
import { registerCodecs } from '../../src/kafka/codecs';
import type { Compression, OutboundRecord, RecordWriter } from '../../src/core/ports/record-writer';
import type { KafkaRecord, RecordHeader } from '../../src/core/record';
import type { ClusterSecurity } from '../../src/core/cluster';
import type { TopicConfigEntry } from '../../src/core/ports/cluster-admin';
import { silentLogger } from '../../src/core/ports/logger';
import { waitFor } from './wait-for';

/** A test's own writes retry what passes with time (a new topic's leader), for up to about 20 s. */
const PRODUCE_RETRY: RetryConfig = { retries: 10, initialDelayMs: 200, maxDelayMs: 3_000, factor: 2, jitter: 0.2 };

/** A record as a test writes it or compares it: everything replication must keep. */
export interface TestRecord {
  readonly partition: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
  readonly timestamp: number;
}

/** Kafka access for tests, through the product's own adapters (so headers keep their order). */
export class KafkaKit {
  private readonly clients: KafkajsClients;
  /** One producer per compression, kept open: tests that produce in a loop must not connect each time. */
  private readonly writers = new Map<Compression, RecordWriter>();

  /** The brokers of `bootstrap`, which may name several, comma-separated. */
  private readonly brokers: string[];
  private readonly replicationFactor: number;

  /**
   * `bootstrap` is `host:port`, or every broker of a cluster comma-separated. `security` reaches
   * a secured listener (see secured-clusters.ts); deleteTopic and produceTransactional always
   * connect in plaintext. `replicationFactor` is what createTopic asks for (default 1: the shared
   * test clusters have one broker).
   */
  constructor(bootstrap: string, security: ClusterSecurity = { protocol: 'plaintext' }, options: { replicationFactor?: number } = {}) {
    this.brokers = bootstrap.split(',').map((broker) => broker.trim());
    this.replicationFactor = options.replicationFactor ?? 1;
    this.clients = new KafkajsClients({
      clusters: [
        {
          alias: 'kit',
          bootstrapServers: this.brokers,
          security,
          connectionTimeoutMs: 10_000,
          requestTimeoutMs: 30_000,
        },
      ],
      logger: silentLogger,
      clientIdPrefix: 'mirrorflow-test',
    });
  }

  async createTopic(name: string, partitions = 1, configs: Record<string, string> = {}): Promise<void> {
    // Tests write old explicit timestamps; keep them from being deleted by time retention.
    await firstValueFrom(
      this.clients.admin('kit').createTopics([{ name, partitions, replicationFactor: this.replicationFactor, configs: { 'retention.ms': '-1', ...configs } }]),
    );
  }

  /** `createTopic` of many topics with the same partition count, in as few requests as the admin client makes. */
  async createTopics(names: readonly string[], partitions = 1): Promise<void> {
    await firstValueFrom(
      this.clients
        .admin('kit')
        .createTopics(names.map((name) => ({ name, partitions, replicationFactor: this.replicationFactor, configs: { 'retention.ms': '-1' } }))),
    );
  }

  /**
   * Deletes a topic and waits until the cluster no longer lists it, so a test can create it again
   * under the same name (a new topic id, offsets from 0).
   */
  /** Deletes a partition's records before `beforeOffset`: its log then starts there. */
  async deleteRecords(topic: string, partition: number, beforeOffset: number): Promise<void> {
    await firstValueFrom(this.clients.admin('kit').deleteRecords(topic, partition, beforeOffset), { defaultValue: undefined });
  }

  /** Log start offset per partition. */
  async startOffsets(topic: string): Promise<number[]> {
    const offsets = await firstValueFrom(this.clients.admin('kit').partitionOffsets(topic));
    return offsets.map((o) => o.earliest);
  }

  async deleteTopic(name: string): Promise<void> {
    await this.deleteTopics([name]);
  }

  /** `deleteTopic` of many topics in one request. */
  async deleteTopics(names: readonly string[]): Promise<void> {
    const kafka = new Kafka({ brokers: this.brokers, clientId: 'mirrorflow-test-delete', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: [...names], timeout: 30_000 });
      await waitFor(
        async () => {
          const left = new Set(await admin.listTopics());
          return names.every((name) => !left.has(name));
        },
        { what: names.length === 1 ? `topic ${names[0]} to be deleted` : `${names.length} topics to be deleted` },
      );
    } finally {
      await admin.disconnect();
    }
    // The producers' metadata still describes the deleted topic.
    await this.resetWriters();
  }

  private async resetWriters(): Promise<void> {
    const writers = [...this.writers.values()];
    this.writers.clear();
    await Promise.all(writers.map((w) => w.close()));
  }

  async addPartitions(topic: string, count: number): Promise<void> {
    await firstValueFrom(this.clients.admin('kit').createPartitions(topic, count));
    // A producer keeps its partition metadata for minutes and (kafkajs) silently drops records
    // for partitions it does not know: the next produce must start from fresh metadata.
    await this.resetWriters();
  }

  async topics(): Promise<Map<string, number>> {
    const list = await firstValueFrom(this.clients.admin('kit').listTopics());
    return new Map(list.map((t) => [t.name, t.partitions]));
  }

  /** The topic's config entries by name (value, source, isDefault) as the broker describes them. */
  async topicConfigs(topic: string): Promise<Map<string, TopicConfigEntry>> {
    const described = await firstValueFrom(this.clients.admin('kit').describeTopicConfigs([topic]));
    return new Map((described.get(topic) ?? []).map((entry) => [entry.name, entry]));
  }

  /** Names of the topics whose name contains `text` (tests look for their own unique names). */
  async topicsContaining(text: string): Promise<string[]> {
    return [...(await this.topics()).keys()].filter((name) => name.includes(text)).sort();
  }

  /** Offsets the next record of each partition will get (the high watermarks). */
  async endOffsets(topic: string): Promise<number[]> {
    const offsets = await firstValueFrom(this.clients.admin('kit').partitionOffsets(topic));
    return offsets.map((o) => o.latest);
  }

  /** `endOffsets` of many existing topics in one round (one Metadata request, ListOffsets per leader); a topic whose leaders are not all known yet is left out. */
  async endOffsetsOf(topics: readonly string[]): Promise<Map<string, number[]>> {
    const offsets = await firstValueFrom(this.clients.admin('kit').partitionOffsetsOf(topics));
    return new Map([...offsets].map(([topic, partitions]) => [topic, partitions.map((o) => o.latest)]));
  }

  async count(topic: string): Promise<number> {
    return (await this.endOffsets(topic)).reduce((a, b) => a + b, 0);
  }

  async produce(topic: string, records: readonly TestRecord[], compression: Compression = 'none'): Promise<void> {
    let writer = this.writers.get(compression);
    if (!writer) {
      writer = this.clients.writer('kit', { role: `producer-${compression}`, compression });
      this.writers.set(compression, writer);
    }
    const outbound: OutboundRecord[] = records.map((r) => ({ topic, ...r }));
    // A topic just created answers NOT_LEADER_OR_FOLLOWER for a moment (a busy broker may take
    // seconds to take leadership): retried, as a real producer would.
    for (let i = 0; i < outbound.length; i += 5000) {
      await firstValueFrom(writer.write(outbound.slice(i, i + 5000)).pipe(retryWithBackoff({ ...PRODUCE_RETRY })));
    }
  }

  /** Writes with a transactional producer: `commit` records are committed, `abort` ones aborted. */
  async produceTransactional(topic: string, batches: readonly { records: readonly TestRecord[]; commit: boolean }[]): Promise<void> {
    registerCodecs();
    const kafka = new Kafka({ brokers: this.brokers, clientId: 'mirrorflow-test-tx', logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ transactionalId: `tx-${topic}`, maxInFlightRequests: 1, idempotent: true });
    await producer.connect();
    try {
      for (const batch of batches) {
        const tx = await producer.transaction();
        await tx.send({
          topic,
          compression: CompressionTypes.None,
          messages: batch.records.map((r) => ({
            partition: r.partition,
            key: r.key,
            value: r.value,
            timestamp: String(r.timestamp),
            headers: r.headers as never,
          })),
        });
        if (batch.commit) await tx.commit();
        else await tx.abort();
      }
    } finally {
      await producer.disconnect();
    }
  }

  /** Every record of a topic, by partition, in offset order. */
  async readAll(topic: string): Promise<Map<number, KafkaRecord[]>> {
    const batches = await lastValueFrom(this.clients.reader('kit').readToEnd(topic).pipe(toArray()));
    const byPartition = new Map<number, KafkaRecord[]>();
    for (const batch of batches) {
      const list = byPartition.get(batch.partition) ?? [];
      list.push(...batch.records);
      byPartition.set(batch.partition, list);
    }
    return byPartition;
  }

  /** Every record of a topic in partition, then offset order. */
  async readAllFlat(topic: string): Promise<KafkaRecord[]> {
    const byPartition = await this.readAll(topic);
    return [...byPartition.keys()].sort((a, b) => a - b).flatMap((p) => byPartition.get(p)!);
  }

  async close(): Promise<void> {
    await this.clients.close();
  }
}

/**
 * `count` records to produce: keys `k<n>` and values `v<n>` for n from `from`, spread over
 * partitions 0 … `partitions` − 1 in turn, stamped now.
 */
export function keyedRecords(count: number, partitions: number, from = 0): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    partition: i % partitions,
    key: Buffer.from(`k${from + i}`),
    value: Buffer.from(`v${from + i}`),
    headers: [],
    timestamp: Date.now(),
  }));
}

/** What must survive replication, as comparable plain data. */
export function snapshot(records: readonly (KafkaRecord | TestRecord)[]): object[] {
  return records.map((r) => ({
    partition: r.partition,
    key: r.key === null ? null : r.key.toString('base64'),
    value: r.value === null ? null : r.value.toString('base64'),
    timestamp: r.timestamp,
    headers: r.headers.map((h) => [h.key, h.value === null ? null : h.value.toString('base64')]),
  }));
}

/**
 * The records without repeats, in first-occurrence order. A producer that is not idempotent
 * (the test's own, or mirrorflow's, as MM2's) may write a record twice when a request is retried
 * under load; tests about names and placement compare what is there, not how often.
 */
export function distinct<T extends KafkaRecord | TestRecord>(records: readonly T[]): T[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    const id = JSON.stringify(snapshot([record])[0]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** A short digest of a partition's content, for large comparisons with readable failures. */
export function digest(records: readonly (KafkaRecord | TestRecord)[]): string {
  const hash = createHash('sha256');
  for (const r of snapshot(records)) hash.update(JSON.stringify(r));
  return `${records.length}:${hash.digest('hex').slice(0, 16)}`;
}
