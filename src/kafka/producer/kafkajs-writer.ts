import type { Observable } from '#rxjs';
import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer, type RecordMetadata } from '../kafkajs';
import type { OutboundItem, RecordWriter, WriteOptions } from '../../core/ports/record-writer';
import type { WriterOptions } from '../../core/ports/kafka-clients';
import { COMPRESSION_CODES } from '../compression-codes';
import type { RetryConfig } from '../../core/retry';
import type { Logger } from '../../core/ports/logger';
import { SendOrder, pushPartitionMessages } from '../wire/produce-request';
import { Idempotence, initProducerIdFrom, type InitProducerId } from './idempotence';
import { InflightIdempotence } from './inflight-idempotence';
import { ProduceEngine, type PartitionAnswer, type ProduceAttempt, type ProducePartition, type ProduceTransport } from './produce-engine';
import { UNSEQUENCED, type SequenceSource } from './sequence-source';

/**
 * Retries for the partitions left over when others of the same write were acknowledged: for as
 * long as their failure is retriable, since giving up would make the caller send the write again
 * whole, writing the acknowledged partitions twice. A stop ends them (unsubscribing).
 */
export const PARTIAL_RETRY: RetryConfig = { retries: Number.POSITIVE_INFINITY, initialDelayMs: 100, maxDelayMs: 5_000, factor: 2, jitter: 0.2 };

/**
 * RecordWriter over a kafkajs producer, at least once: the produce engine (produce-engine.ts:
 * partial answers, batches split to fit, forwarded batches narrowed, refusals) with this class as
 * its transport. acks=all, no topic auto-creation, one request in flight per broker or,
 * idempotent and with `options.maxInFlight` > 1, that many (their sequences:
 * inflight-idempotence.ts; writes overlap, each partition's records stay in order), and
 * idempotent unless `options.idempotent` is false (idempotence.ts: a write sent again after its
 * answer was lost is not appended twice). MM2's Connect producer is not idempotent: Connect's
 * Worker sets `enable.idempotence=false` on the producers it makes (so that brokers before 0.11,
 * or before 2.8 without the IDEMPOTENT_WRITE ACL, keep working), although the Java producer's own
 * default is true since Kafka 3.0; `producer.enable.idempotence=true` turns it on there.
 *
 * Each round goes out in one sendBatch, which kafkajs splits into one request per broker; each
 * partition's items form one record batch, in order, forwarded record batches as they are or
 * joined when several (../wire/produce-request.ts). The engine needs each partition's answer of a
 * partly refused request: `kafka` is made with a writer's connection behaviour
 * (../wire/connection-behaviour.ts, as KafkajsClients makes it), without which kafkajs throws the
 * first partition error and sends the whole request again.
 */
export class KafkajsWriter implements RecordWriter {
  private producer: Producer;
  private connected: Promise<void> | undefined;
  private readonly compression: CompressionTypes;
  private readonly timeoutMs: number;
  /** Produce requests in flight per broker connection. */
  private readonly maxInFlight: number;
  private readonly engine: ProduceEngine;
  /** Sends under way per producer (`hold`/`release`). */
  private readonly holds = new Map<Producer, number>();
  /** Producers replaced by `reset` while sends were under way on them: disconnected by the last `release`. */
  private readonly retired = new Set<Producer>();
  /**
   * The order the requests of sends are encoded in: kafkajs's producer lets a later sendBatch
   * overtake an earlier one before its request is made, so a request's encoding waits until the
   * earlier ones were encoded, or their sends ended (SendTurn).
   */
  private readonly sendOrder = new SendOrder();

  constructor(
    readonly cluster: string,
    private readonly kafka: Kafka,
    options: WriterOptions,
    logger?: Logger,
    partialRetry: RetryConfig = PARTIAL_RETRY,
    initProducerId: InitProducerId = initProducerIdFrom(kafka, cluster),
  ) {
    this.compression = COMPRESSION_CODES[options.compression] as CompressionTypes;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    // Without idempotence a retried request could land after a later one: one in flight, as
    // Connect's producer (and Java's rule for more than one without idempotence: reordering).
    this.maxInFlight = options.idempotent === false ? 1 : Math.max(1, options.maxInFlight ?? 1);
    // The producer id and sequences outlive the kafkajs producer, which is made anew after a failure (`renew`).
    const sequences: SequenceSource =
      options.idempotent === false
        ? UNSEQUENCED
        : this.maxInFlight > 1
          ? new InflightIdempotence(cluster, initProducerId, logger)
          : new Idempotence(cluster, initProducerId, logger);
    this.producer = this.newProducer();
    const transport: ProduceTransport = {
      ready: () => this.connect(),
      send: (partitions, attempt) => this.send(partitions, attempt),
      // A new producer (and with it fresh metadata), unless another write's renewal made one since `attempt` was sent.
      renew: (attempt) => this.reset(attempt.sentThrough),
    };
    this.engine = new ProduceEngine({
      cluster,
      transport,
      sequences,
      batchLimits: new Map(),
      delivery: { kind: 'at-least-once', partialRetry },
      ...(logger === undefined ? {} : { logger }),
    });
  }

  private newProducer(): Producer {
    // Every record names its partition, so the partitioner is never used; naming one silences
    // kafkajs's warning about its default.
    return this.kafka.producer({
      allowAutoTopicCreation: false,
      idempotent: false,
      maxInFlightRequests: this.maxInFlight,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  write(items: readonly OutboundItem[], options: WriteOptions = {}): Observable<Float64Array> {
    return this.engine.write(items, options);
  }

  /**
   * Connects the producer once; concurrent writes share the connect. A connect that fails (the
   * cluster down) is forgotten with its producer, so the next write connects anew: kept, its
   * rejection would fail every later write, even once the cluster is back.
   */
  private async connect(): Promise<void> {
    if (this.connected === undefined) this.connected = this.producer.connect();
    const connecting = this.connected;
    try {
      await connecting;
    } catch (error) {
      if (this.connected === connecting) await this.reset();
      throw error;
    }
  }

  /** One round in one sendBatch; each partition's first message carries its producer fields, if any. */
  private async send(partitions: readonly ProducePartition[], attempt: ProduceAttempt): Promise<readonly PartitionAnswer[]> {
    // Rounds are sent in the order of their sequences (inflight-idempotence.ts); their requests keep it.
    const turn = this.sendOrder.take();
    const byTopic = new Map<string, object[]>();
    for (const p of partitions) {
      let messages = byTopic.get(p.topic);
      if (messages === undefined) byTopic.set(p.topic, (messages = []));
      pushPartitionMessages(messages, p.partition, p.items, p.stamp, turn);
    }
    // Read once, so a round never switches producer midway, and held until its answers are in: a
    // reset meanwhile (another write's partial failure) leaves this producer connected until then.
    const producer = this.producer;
    this.hold(producer);
    try {
      // Connected by `ready`, unless another write's reset replaced it since: then this connects the new one.
      await this.connect();
      attempt.sentThrough = producer;
      // The producer's connections report each partition's answer (../wire/connection-behaviour.ts).
      const answers = (await producer.sendBatch({
        acks: -1,
        timeout: this.timeoutMs,
        compression: this.compression,
        // Our produce encoder (../wire/produce-request.ts) reads the messages as pushPartitionMessages makes them.
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages: messages as Message[] })),
      })) as (RecordMetadata & { errorCode: number })[];
      return answers.map((a) => ({ topic: a.topicName, partition: a.partition, errorCode: a.errorCode, baseOffset: Number(a.baseOffset) }));
    } finally {
      // Encoded (the usual case, done already) or failed before: later sends wait no longer.
      turn.done();
      this.release(producer);
    }
  }

  /** A send is under way on `producer`: a reset meanwhile leaves it connected until `release`. */
  private hold(producer: Producer): void {
    this.holds.set(producer, (this.holds.get(producer) ?? 0) + 1);
  }

  private release(producer: Producer): void {
    const left = (this.holds.get(producer) ?? 1) - 1;
    if (left > 0) {
      this.holds.set(producer, left);
      return;
    }
    this.holds.delete(producer);
    if (!this.retired.delete(producer)) return;
    // Nothing waits for the disconnect of a producer nobody uses; a failure to close its
    // connections leaves nothing to mend.
    void producer.disconnect().catch(() => undefined);
  }

  /**
   * Drops the producer (and its cached metadata); the next write connects a new one. The
   * producer id and sequences stay: the broker knows a producer by its id, not by its
   * connections, so what goes again is still deduplicated. Sends still under way on the old
   * producer (other writes in flight, or overlapping ones) finish on it: it is disconnected once
   * the last one ended, since kafkajs fails a send whose producer was disconnected under it with
   * an error no retry mends (a TypeError reading its emptied metadata).
   */
  private async reset(failed?: object): Promise<void> {
    // Another write's failure made it anew already (several writes in flight).
    if (failed !== undefined && failed !== this.producer) return;
    const old = this.producer;
    const wasConnected = this.connected !== undefined;
    this.producer = this.newProducer();
    this.connected = undefined;
    if (!wasConnected) return;
    if (this.holds.has(old)) this.retired.add(old);
    else await old.disconnect().catch(() => undefined); // a dropped producer: nothing to mend (see above)
  }

  async close(): Promise<void> {
    const retired = [...this.retired];
    this.retired.clear();
    await Promise.all(retired.map((producer) => producer.disconnect().catch(() => undefined))); // unused producers, as above
    if (this.connected === undefined) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }
}
