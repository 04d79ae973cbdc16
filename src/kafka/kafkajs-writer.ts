import { catchError, defer, throwError, type Observable } from 'rxjs';
import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer, type RecordMetadata } from './kafkajs';
import { isRecordBatch, type Compression, type OutboundItem, type RecordWriter } from '../core/ports/record-writer';
import type { ForwardedBatchMessage } from './wire/produce-request';
import type { WriterOptions } from '../core/ports/kafka-clients';
import { toTransportError } from './errors';
import { KafkaTransportError, describeError, isRetriable, type MirrorflowError } from '../core/errors';
import { retryWithBackoff, type RetryConfig } from '../core/retry';
import type { Logger } from '../core/ports/logger';
import { withPartialProduceResults } from './wire/produce-response';
import { kafkajsProtocolErrors } from './wire/kafkajs-internals';

/**
 * Retries for the partitions left over when others of the same write were acknowledged: for as
 * long as their failure is retriable, since giving up would make the caller send the write again
 * whole, writing the acknowledged partitions twice. A stop ends them (unsubscribing).
 */
export const PARTIAL_RETRY: RetryConfig = { retries: Number.POSITIVE_INFINITY, initialDelayMs: 100, maxDelayMs: 5_000, factor: 2, jitter: 0.2 };

const COMPRESSION: Record<Compression, CompressionTypes> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};

interface PartitionGroup {
  readonly messages: Message[];
  readonly indices: number[];
  /** Records per item: 1 for a record, the record count for a forwarded batch. */
  readonly counts: number[];
}

/**
 * RecordWriter over a kafkajs producer: acks=all, not idempotent (as MM2's Connect producer), no
 * topic auto-creation. Records go out in one sendBatch per write, which kafkajs splits into one
 * request per broker; each partition's records form one record batch, in order. Forwarded record
 * batches go into the request as they are, or joined when several (wire/produce-request.ts).
 */
export class KafkajsWriter implements RecordWriter {
  private producer: Producer;
  private connected: Promise<void> | undefined;
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
    this.compression = COMPRESSION[options.compression];
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
        let result: { left: number[]; failure?: MirrorflowError };
        try {
          result = await this.send(items, pending, offsets);
        } catch (error) {
          throw toTransportError(this.cluster, error, 'Writing records');
        }
        const { left, failure } = result;
        pending = left;
        if (left.length === 0) return offsets;
        if (failure !== undefined && !failure.retriable) throw failure;
        const reason = failure?.message ?? 'partitions missing from the producer metadata';
        throw new KafkaTransportError(this.cluster, `Writing records failed: ${left.length} of ${items.length} items were not acknowledged (${reason})`, true);
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
   * acknowledged, returns the others with the first partition error, if any.
   */
  private async send(items: readonly OutboundItem[], indices: readonly number[], offsets: Float64Array): Promise<{ left: number[]; failure?: MirrorflowError }> {
    const byTopic = new Map<string, Map<number, PartitionGroup>>();
    for (const i of indices) {
      const item = items[i]!;
      let partitions = byTopic.get(item.topic);
      if (!partitions) byTopic.set(item.topic, (partitions = new Map()));
      let group = partitions.get(item.partition);
      if (!group) partitions.set(item.partition, (group = { messages: [], indices: [], counts: [] }));
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
    for (const ack of acks) {
      const group = byTopic.get(ack.topicName)?.get(ack.partition);
      if (!group) continue;
      if (ack.errorCode !== 0) {
        failure ??= toTransportError(this.cluster, kafkajsProtocolErrors().createErrorFromCode(ack.errorCode), `Writing records to ${ack.topicName}-${ack.partition}`);
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
    return failure === undefined ? { left } : { left, failure };
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
