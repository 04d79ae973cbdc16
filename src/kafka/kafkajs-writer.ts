// size: one class, the target producer: produce rounds, partial retries, batches split to fit, refusals and the two sequence modes (one send at a time, or several in flight) share one round's groups and answers.
import { Observable, catchError, defer, firstValueFrom, throwError } from 'rxjs';
import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer, type RecordMetadata } from './kafkajs';
import { isRecordBatch, outboundItemBytes, type OutboundItem, type OutboundRecord, type RecordWriter, type WriteOptions } from '../core/ports/record-writer';
import type { OutboundRecordBatch } from '../core/record';
import type { ForwardedBatchMessage } from './wire/produce-request';
import type { WriterOptions } from '../core/ports/kafka-clients';
import { toTransportError } from './errors';
import { COMPRESSION_CODES } from './compression-codes';
import { KafkaTransportError, RecordRefusedError, describeError, isRetriable, type MirrorflowError } from '../core/errors';
import { retryWithBackoff, type RetryConfig } from '../core/retry';
import type { Logger } from '../core/ports/logger';
import { isBatchTooLarge } from './wire/produce-response';
import { kafkajsProtocolErrors } from './wire/kafkajs-internals';
import { decodeRecordBatch } from './wire/fetch-decoder';
import type { StampedMessage } from './wire/produce-request';
import { DUPLICATE_SEQUENCE_NUMBER, Idempotence, initProducerIdFrom, type InitProducerId } from './idempotence';
import { InflightIdempotence, type Ticket, type TicketPart } from './inflight-idempotence';

/**
 * Retries for the partitions left over when others of the same write were acknowledged: for as
 * long as their failure is retriable, since giving up would make the caller send the write again
 * whole, writing the acknowledged partitions twice. A stop ends them (unsubscribing).
 */
export const PARTIAL_RETRY: RetryConfig = { retries: Number.POSITIVE_INFINITY, initialDelayMs: 100, maxDelayMs: 5_000, factor: 2, jitter: 0.2 };

interface PartitionGroup {
  readonly messages: Message[];
  readonly indices: number[];
  /** Records per item: 1 for a record, the record count for a forwarded batch. */
  readonly counts: number[];
  /** Item bytes, counted only under a learnt batch limit. */
  bytes: number;
  /** Items of this partition left for a later round, because the batch would be too large. */
  heldBack: boolean;
}

/** An idempotent write with several in flight: each item's place in its partition's ticket (inflight-sequences.ts). */
interface WritePlan {
  /** Per item, the records before it in the write's ticket of its partition. */
  readonly positions: Float64Array;
  /** Per partition (`topic\0partition`), the write's ticket. */
  readonly tickets: Map<string, Ticket>;
}

/** Which producer a write's last round went through, so that a failure resets that one only. */
interface SentWith {
  producer?: Producer;
}

interface RoundResult {
  /** Items not acknowledged, in order. */
  readonly left: number[];
  /** The first partition error, if any (a batch split to fit is not one). */
  readonly failure?: MirrorflowError;
  /** Items are left only because a batch had to be made smaller, or needs a new producer id: send them again at once. */
  readonly again: boolean;
}

/**
 * RecordWriter over a kafkajs producer: acks=all, no topic auto-creation, one request in flight
 * per broker or, idempotent and with `options.maxInFlight` > 1, that many (their sequences:
 * inflight-idempotence.ts; writes overlap, each partition's records stay in order), and
 * idempotent unless `options.idempotent` is false (idempotence.ts: a write
 * sent again after its answer was lost is not appended twice). MM2's Connect producer is not
 * idempotent: Connect's Worker sets `enable.idempotence=false` on the producers it makes (so that
 * brokers before 0.11, or before 2.8 without the IDEMPOTENT_WRITE ACL, keep working), although
 * the Java producer's own default is true since Kafka 3.0; `producer.enable.idempotence=true`
 * turns it on there. Records go out in one sendBatch per write, which kafkajs splits into one
 * request per broker; each partition's records form one record batch, in order. Forwarded record
 * batches go into the request as they are, or joined when several (wire/produce-request.ts).
 * Partitions the target refused go again alone: as they are when the failure is retriable, in
 * smaller batches when the batch was too large for the topic. That needs each partition's answer
 * of a partly refused request: `kafka` is made with a writer's connection behaviour
 * (wire/connection-behaviour.ts, as KafkajsClients makes it), without which kafkajs throws the
 * first partition error and sends the whole request again.
 */
export class KafkajsWriter implements RecordWriter {
  private producer: Producer;
  private connected: Promise<void> | undefined;
  /**
   * Per topic, the most item bytes of one partition that go in one request, learnt from the
   * target refusing a batch as too large: a topic whose `max.message.bytes` is below the
   * producer's request bound still takes everything, in more requests (as Java's producer splits
   * a batch the broker refused as too large).
   */
  private readonly batchLimits = new Map<string, number>();
  private readonly compression: CompressionTypes;
  private readonly timeoutMs: number;
  /** The producer id and sequences, one send at a time; kept when the producer is made anew (`reset`). */
  private readonly idempotence: Idempotence | undefined;
  /** The producer id and sequences with several sends in flight (instead of `idempotence`). */
  private readonly inflight: InflightIdempotence | undefined;
  /** Produce requests in flight per broker connection. */
  private readonly maxInFlight: number;
  /** The last send of an idempotent writer, which the next one waits for (`exclusive`). */
  private sending: Promise<void> = Promise.resolve();
  /** Sends under way per producer (`hold`/`release`). */
  private readonly holds = new Map<Producer, number>();
  /** Producers replaced by `reset` while sends were under way on them: disconnected by the last `release`. */
  private readonly retired = new Set<Producer>();

  constructor(
    readonly cluster: string,
    private readonly kafka: Kafka,
    options: WriterOptions,
    private readonly logger?: Logger,
    private readonly partialRetry: RetryConfig = PARTIAL_RETRY,
    initProducerId: InitProducerId = initProducerIdFrom(kafka, cluster),
  ) {
    this.compression = COMPRESSION_CODES[options.compression] as CompressionTypes;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    // Without idempotence a retried request could land after a later one: one in flight, as
    // Connect's producer (and Java's rule for more than one without idempotence: reordering).
    this.maxInFlight = options.idempotent === false ? 1 : Math.max(1, options.maxInFlight ?? 1);
    this.idempotence = options.idempotent === false || this.maxInFlight > 1 ? undefined : new Idempotence(cluster, initProducerId, logger);
    this.inflight = options.idempotent !== false && this.maxInFlight > 1 ? new InflightIdempotence(cluster, initProducerId, logger) : undefined;
    this.producer = this.newProducer();
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
    return this.writeAt(items, options);
  }

  /**
   * `place`: a nested write (a forwarded batch narrowed to its records) takes its parent's ticket
   * from the batch's place on. An idempotent write with several in flight takes its tickets when
   * subscribed (the same ones when the same items go again) and gives them up when unsubscribed
   * before it settled, so later writes of its partitions are not held behind it.
   */
  private writeAt(items: readonly OutboundItem[], options: WriteOptions, place?: TicketPart): Observable<Float64Array> {
    const inflight = this.inflight;
    if (inflight === undefined) return this.writeWith(items, options, undefined);
    return new Observable<Float64Array>((subscriber) => {
      const plan = this.plan(inflight, items, place);
      let settled = false;
      const subscription = this.writeWith(items, options, plan).subscribe({
        next: (offsets) => subscriber.next(offsets),
        error: (error: unknown) => {
          settled = true;
          subscriber.error(error);
        },
        complete: () => {
          settled = true;
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        if (!settled && place === undefined) inflight.drop(plan.tickets.values());
      };
    });
  }

  private plan(inflight: InflightIdempotence, items: readonly OutboundItem[], place: TicketPart | undefined): WritePlan {
    const positions = new Float64Array(items.length);
    const partitions = new Map<string, { topic: string; partition: number; first: object; total: number }>();
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const key = partitionKey(item.topic, item.partition);
      let p = partitions.get(key);
      if (p === undefined) partitions.set(key, (p = { topic: item.topic, partition: item.partition, first: item, total: 0 }));
      positions[i] = (place?.position ?? 0) + p.total;
      p.total += isRecordBatch(item) ? item.batch.recordCount : 1;
    }
    const tickets = new Map<string, Ticket>();
    for (const [key, p] of partitions) tickets.set(key, place?.ticket ?? inflight.ticket(p.topic, p.partition, p.first, p.total));
    return { positions, tickets };
  }

  private writeWith(items: readonly OutboundItem[], options: WriteOptions, plan: WritePlan | undefined): Observable<Float64Array> {
    const sentWith: SentWith = {};
    return defer(() => {
      const offsets = new Float64Array(items.length);
      let pending: readonly number[] = items.map((_, i) => i);
      /** Sends what is pending; fails when something is left (retriably, unless a partition's error is not). */
      const round = async (): Promise<Float64Array> => {
        for (;;) {
          let result: RoundResult;
          // Held until the round's answers are in: a reset meanwhile (another write's partial
          // failure) leaves this producer connected until then.
          const producer = this.producer;
          this.hold(producer);
          try {
            result = await this.send(producer, items, pending, offsets, options, plan, sentWith);
          } catch (error) {
            throw toTransportError(this.cluster, error, `Writing records to ${topicsOf(items, pending)}`);
          } finally {
            this.release(producer);
          }
          const { left, failure, again } = result;
          pending = left;
          if (left.length === 0) return offsets;
          if (failure !== undefined && !failure.retriable) throw failure;
          if (failure === undefined && again) continue;
          const reason = failure?.message ?? 'partitions missing from the producer metadata';
          throw new KafkaTransportError(
            this.cluster,
            `Writing records failed: ${left.length} of ${items.length} items were not acknowledged (${reason})`,
            true,
          );
        }
      };
      return defer(round).pipe(
        catchError((error: unknown) => {
          // Nothing of this write is on the target yet (the caller retries it whole), or
          // retrying cannot help.
          if (pending.length === items.length || !isRetriable(error)) return throwError(() => error);
          // Some partitions were written and others not. Sending the write again whole would
          // write the first ones twice, so only the rest go again, with fresh metadata (a
          // partition not led where the producer thought, or one it did not know of yet).
          this.logger?.warn('Some partitions of a write were not acknowledged; writing them again.', { items: pending.length, error: describeError(error) });
          return defer(async () => {
            await this.reset(sentWith.producer);
            return round();
          }).pipe(
            retryWithBackoff({
              ...this.partialRetry,
              onRetry: (retryError, attempt, delayMs) => {
                const meta = { items: pending.length, attempt, delayMs, error: describeError(retryError) };
                // A caller that reports outages is told instead of a warning per retry.
                if (options.onRetry === undefined) this.logger?.warn('Some partitions of a write were not acknowledged; writing them again.', meta);
                else {
                  this.logger?.debug('Some partitions of a write were not acknowledged; writing them again.', meta);
                  options.onRetry(retryError);
                }
              },
            }),
          );
        }),
      );
    });
  }

  /**
   * One produce round for `indices` of `items` through `producer`: sets `offsets` for the items
   * whose partition acknowledged, returns the others with the first partition error, if any. A
   * partition's items over its topic's learnt batch limit wait for the next round.
   */
  private async send(
    producer: Producer,
    items: readonly OutboundItem[],
    indices: readonly number[],
    offsets: Float64Array,
    options: WriteOptions,
    plan: WritePlan | undefined,
    sentWith: SentWith,
  ): Promise<RoundResult> {
    const byTopic = new Map<string, Map<number, PartitionGroup>>();
    const heldBack: number[] = [];
    for (const i of indices) {
      const item = items[i]!;
      let partitions = byTopic.get(item.topic);
      if (!partitions) byTopic.set(item.topic, (partitions = new Map()));
      let group = partitions.get(item.partition);
      if (!group) partitions.set(item.partition, (group = { messages: [], indices: [], counts: [], bytes: 0, heldBack: false }));
      const limit = this.batchLimits.get(item.topic);
      if (limit !== undefined) {
        // Sizes are counted only for topics that refused a batch as too large.
        const bytes = outboundItemBytes(item);
        if (group.heldBack || (group.indices.length > 0 && group.bytes + bytes > limit)) {
          group.heldBack = true;
          heldBack.push(i);
          continue;
        }
        group.bytes += bytes;
      }
      if (isRecordBatch(item)) {
        const message: ForwardedBatchMessage & { partition: number } = { partition: item.partition, value: null, recordBatch: item.batch };
        group.messages.push(message as unknown as Message);
        group.counts.push(item.batch.recordCount);
      } else {
        // The record itself is the kafkajs message: our produce encoder (wire/) reads partition,
        // key, value, numeric timestamp and the ordered header list from it, so no copy is made.
        group.messages.push(item as unknown as Message);
        group.counts.push(1);
      }
      group.indices.push(i);
    }
    // The caller read `producer` from this.producer just before (nothing awaited since): connect it.
    await this.connect();
    const sendBatch = (): Promise<(RecordMetadata & { errorCode: number })[]> => {
      sentWith.producer = producer;
      // The producer's connections report each partition's answer (wire/connection-behaviour.ts).
      return producer.sendBatch({
        acks: -1,
        timeout: this.timeoutMs,
        compression: this.compression,
        topicMessages: [...byTopic].map(([topic, partitions]) => ({
          topic,
          messages: [...partitions.values()].flatMap((g) => g.messages),
        })),
      }) as Promise<(RecordMetadata & { errorCode: number })[]>;
    };
    const parts = plan === undefined ? undefined : ticketParts(byTopic, plan);
    const { acks, renew, behind } =
      parts === undefined
        ? await this.exclusive(async () => {
            if (this.idempotence !== undefined) await this.stamp(byTopic, items);
            const answers = await sendBatch();
            // Each answer settles its partition's sequences before another send may stamp it.
            return {
              acks: answers,
              renew: new Set(answers.filter((a) => this.idempotence?.answer(a.topicName, a.partition, a.errorCode) === 'renew')),
              behind: [],
            };
          })
        : await this.sendInflight(byTopic, parts, sendBatch);
    let failure: MirrorflowError | undefined;
    let again = heldBack.length > 0;
    if (behind.length > 0) {
      // Not written, because an earlier write of the partition is not yet: in order after it.
      await Promise.all(behind.map((ticket) => this.inflight!.whenAhead(ticket)));
    }
    for (const ack of acks) {
      const group = byTopic.get(ack.topicName)?.get(ack.partition);
      if (!group) continue;
      if (renew.has(ack)) {
        again = true;
        continue;
      }
      if (isBatchTooLarge(ack.errorCode) && group.indices.length > 1) {
        // Half as much for this topic from now on; the items go again at once.
        const bytes = group.indices.reduce((sum, i) => sum + outboundItemBytes(items[i]!), 0);
        this.batchLimits.set(ack.topicName, Math.min(this.batchLimits.get(ack.topicName) ?? Infinity, Math.floor(bytes / 2)));
        again = true;
        continue;
      }
      if (isBatchTooLarge(ack.errorCode)) {
        // One item alone is too large for the topic: a forwarded batch is narrowed to its
        // records; a single record is refused for good.
        const index = group.indices[0]!;
        const item = items[index]!;
        if (isRecordBatch(item) && item.batch.recordCount > 1) {
          const part = parts?.get(partitionKey(ack.topicName, ack.partition));
          offsets[index] = await this.writeNarrowed(
            item,
            index,
            options,
            part === undefined ? undefined : { ticket: part.ticket, position: plan!.positions[index]! },
          );
          byTopic.get(ack.topicName)!.delete(ack.partition);
          continue;
        }
        const error = this.refusal(ack.topicName, ack.partition, index, item, ack.errorCode);
        if (options.onRefused === undefined) {
          failure ??= error;
          continue;
        }
        const record = isRecordBatch(item) ? (await this.decode(item))[0]! : item;
        options.onRefused({ index, offsetInBatch: 0, record, error });
        offsets[index] = -1;
        const part = parts?.get(partitionKey(ack.topicName, ack.partition));
        if (part !== undefined) this.inflight!.refused(part, group.counts[0]!);
        byTopic.get(ack.topicName)!.delete(ack.partition);
        continue;
      }
      if (ack.errorCode !== 0 && ack.errorCode !== DUPLICATE_SEQUENCE_NUMBER) {
        failure ??= this.partitionFailure(ack.topicName, ack.partition, ack.errorCode);
        continue;
      }
      byTopic.get(ack.topicName)!.delete(ack.partition);
      // A duplicate the broker has no offsets for any more comes with -1: written, no offsets.
      let offset = Number(ack.baseOffset);
      for (let j = 0; j < group.indices.length; j++) {
        offsets[group.indices[j]!] = offset < 0 ? -1 : offset;
        offset += group.counts[j]!;
      }
    }
    // What is left: partitions that failed, and those kafkajs left out of the request because
    // its metadata does not know them yet (right after partitions were added, say).
    const left: number[] = [];
    for (const partitions of byTopic.values()) for (const group of partitions.values()) for (const i of group.indices) left.push(i);
    // Held-back items follow the sent ones of their partition: in item order, they stay in order.
    if (heldBack.length > 0) {
      left.push(...heldBack);
      left.sort((a, b) => a - b);
    }
    return failure === undefined ? { left, again } : { left, failure, again };
  }

  /**
   * One round with several in flight: stamped when its partitions' earlier writes are placed,
   * sent at once (so requests leave in the order of their sequences), each answer taken by its
   * ticket. 'behind' partitions go again once the earlier writes are acknowledged.
   */
  private async sendInflight(
    byTopic: Map<string, Map<number, PartitionGroup>>,
    parts: Map<string, TicketPart>,
    sendBatch: () => Promise<(RecordMetadata & { errorCode: number })[]>,
  ): Promise<{ acks: (RecordMetadata & { errorCode: number })[]; renew: Set<RecordMetadata>; behind: Ticket[] }> {
    const inflight = this.inflight!;
    const entries = [...byTopic].flatMap(([topic, partitions]) =>
      [...partitions].map(([partition, group]) => ({ group, part: parts.get(partitionKey(topic, partition))! })),
    );
    const stamps = await inflight.dispatch(entries.map((e) => e.part));
    entries.forEach(({ group }, i) => {
      const stamped: StampedMessage = { ...(group.messages[0] as object), producer: stamps[i]! };
      group.messages[0] = stamped as Message;
    });
    let answers: (RecordMetadata & { errorCode: number })[];
    try {
      answers = await sendBatch();
    } finally {
      inflight.settled();
    }
    const renew = new Set<RecordMetadata>();
    const behind: Ticket[] = [];
    for (const a of answers) {
      const part = parts.get(partitionKey(a.topicName, a.partition));
      const group = byTopic.get(a.topicName)?.get(a.partition);
      if (part === undefined || group === undefined) continue;
      const verdict = inflight.answer(
        part,
        group.counts.reduce((x, y) => x + y, 0),
        a.errorCode,
      );
      if (verdict === 'renew') renew.add(a);
      else if (verdict === 'behind') {
        renew.add(a);
        behind.push(part.ticket);
      }
    }
    return { acks: answers, renew, behind };
  }

  /**
   * Runs the sends of an idempotent writer one at a time (writes of the internal topics may
   * overlap): a send stamped while another to the same partition is unanswered would find it in
   * doubt and take a new producer id. Without idempotence, sends overlap as before.
   */
  private exclusive<T>(send: () => Promise<T>): Promise<T> {
    if (this.idempotence === undefined) return send();
    const run = this.sending.then(send);
    this.sending = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Puts each partition's producer fields (id, epoch, base sequence) on its first message, for
   * the produce request; a forwarded batch counts its records.
   */
  private async stamp(byTopic: Map<string, Map<number, PartitionGroup>>, items: readonly OutboundItem[]): Promise<void> {
    const groups = [...byTopic].flatMap(([topic, partitions]) => [...partitions].map(([partition, group]) => ({ topic, partition, group })));
    const stamps = await this.idempotence!.stamp(
      groups.map(({ topic, partition, group }) => ({ topic, partition, count: group.counts.reduce((a, b) => a + b, 0), first: items[group.indices[0]!]! })),
    );
    groups.forEach(({ group }, i) => {
      const stamped: StampedMessage = { ...(group.messages[0] as object), producer: stamps[i]! };
      group.messages[0] = stamped as Message;
    });
  }

  private partitionFailure(topic: string, partition: number, errorCode: number): MirrorflowError {
    return toTransportError(this.cluster, kafkajsProtocolErrors().createErrorFromCode(errorCode), `Writing records to ${topic}-${partition}`);
  }

  /** One record (or a forwarded batch of one) is too large: no smaller batch can carry it. */
  private refusal(topic: string, partition: number, index: number, item: OutboundItem, errorCode: number): RecordRefusedError {
    return new RecordRefusedError(
      this.cluster,
      index,
      0,
      `a record of about ${outboundItemBytes(item)} bytes is larger than ${topic}-${partition} takes (the target topic's max.message.bytes, or the broker's message.max.bytes); raise that limit on the target.`,
      { cause: kafkajsProtocolErrors().createErrorFromCode(errorCode) },
    );
  }

  /**
   * A forwarded batch the topic refused even alone: its records go as records, in as many
   * rounds as they need, so that only a record too large on its own is refused. Returns where
   * its first record landed, or -1 when one was refused (the others then do not sit at
   * consecutive offsets, which is what a forwarded batch's offset promises).
   */
  private async writeNarrowed(item: OutboundRecordBatch, index: number, options: WriteOptions, place: TicketPart | undefined): Promise<number> {
    const records = await this.decode(item);
    let refused = false;
    const { onRefused } = options;
    const nested: WriteOptions =
      onRefused === undefined
        ? {}
        : {
            onRefused: (r) => {
              refused = true;
              onRefused({ index, offsetInBatch: r.index, record: r.record, error: r.error.at(index, r.index) });
            },
          };
    try {
      const offsets = await firstValueFrom(this.writeAt(records, nested, place));
      return refused ? -1 : offsets[0]!;
    } catch (error) {
      throw error instanceof RecordRefusedError ? error.at(index, error.index) : error;
    }
  }

  private async decode(item: OutboundRecordBatch): Promise<OutboundRecord[]> {
    return (await decodeRecordBatch(item.batch.bytes)).map((r) => ({
      topic: item.topic,
      partition: item.partition,
      timestamp: Number(r.timestamp),
      key: r.key,
      value: r.value,
      headers: r.headers,
    }));
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
   * the last one ended, since kafkajs fails a send whose producer is disconnected under it with
   * an error no retry mends.
   */
  private async reset(failed?: Producer): Promise<void> {
    // Another write's failure made it anew already (several writes in flight).
    if (failed !== undefined && failed !== this.producer) return;
    const old = this.producer;
    const wasConnected = this.connected !== undefined;
    this.producer = this.newProducer();
    this.connected = undefined;
    if (!wasConnected) return;
    if (this.holds.has(old)) this.retired.add(old);
    else await old.disconnect().catch(() => undefined);
  }

  async close(): Promise<void> {
    const retired = [...this.retired];
    this.retired.clear();
    await Promise.all(retired.map((producer) => producer.disconnect().catch(() => undefined)));
    if (this.connected === undefined) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }
}

const partitionKey = (topic: string, partition: number): string => `${topic}\0${partition}`;

/** Each partition's part of a round: the write's ticket, from the round's first item on. */
function ticketParts(byTopic: Map<string, Map<number, PartitionGroup>>, plan: WritePlan): Map<string, TicketPart> {
  const parts = new Map<string, TicketPart>();
  for (const [topic, partitions] of byTopic)
    for (const [partition, group] of partitions) {
      const key = partitionKey(topic, partition);
      parts.set(key, { ticket: plan.tickets.get(key)!, position: plan.positions[group.indices[0]!]! });
    }
  return parts;
}

/** `topic "a"` or `topics "a", "b" and 3 more`: where the pending items of a write go, for messages. */
function topicsOf(items: readonly OutboundItem[], pending: readonly number[]): string {
  const topics = [...new Set(pending.map((i) => items[i]!.topic))];
  const shown = topics.slice(0, 5).map((t) => `"${t}"`);
  const more = topics.length - shown.length;
  return `${topics.length === 1 ? 'topic' : 'topics'} ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
