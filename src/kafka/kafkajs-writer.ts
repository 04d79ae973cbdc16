import { catchError, defer, throwError, type Observable } from 'rxjs';
import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer, type RecordMetadata } from './kafkajs';
import { isRecordBatch, outboundItemBytes, type OutboundItem, type RecordWriter } from '../core/ports/record-writer';
import type { ForwardedBatchMessage } from './wire/produce-request';
import type { WriterOptions } from '../core/ports/kafka-clients';
import { toTransportError } from './errors';
import { COMPRESSION_CODES } from './compression-codes';
import { KafkaTransportError, describeError, isRetriable, type MirrorflowError } from '../core/errors';
import { retryWithBackoff, type RetryConfig } from '../core/retry';
import type { Logger } from '../core/ports/logger';
import { isBatchTooLarge, withPartialProduceResults } from './wire/produce-response';
import { kafkajsProtocolErrors } from './wire/kafkajs-internals';

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

interface RoundResult {
  /** Items not acknowledged, in order. */
  readonly left: number[];
  /** The first partition error, if any (a batch split to fit is not one). */
  readonly failure?: MirrorflowError;
  /** Items are left only because a batch had to be made smaller: send them again at once. */
  readonly again: boolean;
}

/**
 * RecordWriter over a kafkajs producer: acks=all, not idempotent (as MM2's Connect producer), no
 * topic auto-creation. Records go out in one sendBatch per write, which kafkajs splits into one
 * request per broker; each partition's records form one record batch, in order. Forwarded record
 * batches go into the request as they are, or joined when several (wire/produce-request.ts).
 * Partitions the target refused go again alone: as they are when the failure is retriable, in
 * smaller batches when the batch was too large for the topic.
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

  constructor(
    readonly cluster: string,
    private readonly kafka: Kafka,
    options: WriterOptions,
    private readonly logger?: Logger,
    private readonly partialRetry: RetryConfig = PARTIAL_RETRY,
  ) {
    // Every record names its partition, so the partitioner is never used; naming one silences
    // kafkajs's warning about its default.
    this.producer = this.newProducer();
    this.compression = COMPRESSION_CODES[options.compression] as CompressionTypes;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  private newProducer(): Producer {
    return this.kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  }

  write(items: readonly OutboundItem[]): Observable<Float64Array> {
    return defer(() => {
      const offsets = new Float64Array(items.length);
      let pending: readonly number[] = items.map((_, i) => i);
      /** Sends what is pending; fails when something is left (retriably, unless a partition's error is not). */
      const round = async (): Promise<Float64Array> => {
        for (;;) {
          let result: RoundResult;
          try {
            result = await this.send(items, pending, offsets);
          } catch (error) {
            throw toTransportError(this.cluster, error, 'Writing records');
          }
          const { left, failure, again } = result;
          pending = left;
          if (left.length === 0) return offsets;
          if (failure !== undefined && !failure.retriable) throw failure;
          if (failure === undefined && again) continue;
          const reason = failure?.message ?? 'partitions missing from the producer metadata';
          throw new KafkaTransportError(this.cluster, `Writing records failed: ${left.length} of ${items.length} items were not acknowledged (${reason})`, true);
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
            await this.reset();
            return round();
          }).pipe(
            retryWithBackoff({
              ...this.partialRetry,
              onRetry: (retryError, attempt, delayMs) =>
                this.logger?.warn('Some partitions of a write were not acknowledged; writing them again.', { items: pending.length, attempt, delayMs, error: describeError(retryError) }),
            }),
          );
        }),
      );
    });
  }

  /**
   * One produce round for `indices` of `items`: sets `offsets` for the items whose partition
   * acknowledged, returns the others with the first partition error, if any. A partition's items
   * over its topic's learnt batch limit wait for the next round.
   */
  private async send(items: readonly OutboundItem[], indices: readonly number[], offsets: Float64Array): Promise<RoundResult> {
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
    this.connected ??= this.producer.connect();
    await this.connected;
    const acks = (await withPartialProduceResults(() =>
      this.producer.sendBatch({
        acks: -1,
        timeout: this.timeoutMs,
        compression: this.compression,
        topicMessages: [...byTopic].map(([topic, partitions]) => ({
          topic,
          messages: [...partitions.values()].flatMap((g) => g.messages),
        })),
      }),
    )) as (RecordMetadata & { errorCode: number })[];
    let failure: MirrorflowError | undefined;
    let again = heldBack.length > 0;
    for (const ack of acks) {
      const group = byTopic.get(ack.topicName)?.get(ack.partition);
      if (!group) continue;
      if (isBatchTooLarge(ack.errorCode) && group.indices.length > 1) {
        // Half as much for this topic from now on; the items go again at once.
        const bytes = group.indices.reduce((sum, i) => sum + outboundItemBytes(items[i]!), 0);
        this.batchLimits.set(ack.topicName, Math.min(this.batchLimits.get(ack.topicName) ?? Infinity, Math.floor(bytes / 2)));
        again = true;
        continue;
      }
      if (ack.errorCode !== 0) {
        failure ??= this.partitionFailure(ack.topicName, ack.partition, ack.errorCode, items[group.indices[0]!]!);
        continue;
      }
      byTopic.get(ack.topicName)!.delete(ack.partition);
      let offset = Number(ack.baseOffset);
      for (let j = 0; j < group.indices.length; j++) {
        offsets[group.indices[j]!] = offset;
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

  private partitionFailure(topic: string, partition: number, errorCode: number, item: OutboundItem): MirrorflowError {
    const where = `${topic}-${partition}`;
    if (isBatchTooLarge(errorCode)) {
      // One item alone is too large: no smaller batch can carry it.
      const what = isRecordBatch(item)
        ? `A forwarded record batch of ${item.batch.bytes.length} bytes (source offsets from ${item.batch.baseOffset})`
        : `A record of about ${outboundItemBytes(item)} bytes`;
      return new KafkaTransportError(
        this.cluster,
        `${what} is larger than ${where} takes (the target topic's max.message.bytes, or the broker's message.max.bytes). Raise that limit on the target${isRecordBatch(item) ? ', or set producer.max_request_bytes below it so such batches are re-encoded' : ''}.`,
        false,
      );
    }
    return toTransportError(this.cluster, kafkajsProtocolErrors().createErrorFromCode(errorCode), `Writing records to ${where}`);
  }

  /** Drops the producer (and its cached metadata); the next write connects a new one. */
  private async reset(): Promise<void> {
    const old = this.producer;
    const wasConnected = this.connected !== undefined;
    this.producer = this.newProducer();
    this.connected = undefined;
    if (wasConnected) await old.disconnect().catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.connected === undefined) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }
}
