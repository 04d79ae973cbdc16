import { defer, type Observable } from 'rxjs';
import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer } from './kafkajs';
import { isRecordBatch, type Compression, type OutboundItem, type RecordWriter } from '../core/ports/record-writer';
import type { ForwardedBatchMessage } from './wire/produce-request';
import type { WriterOptions } from '../core/ports/kafka-clients';
import { toTransportError } from './errors';
import { KafkaTransportError } from '../core/errors';

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
    return defer(async () => {
      const offsets = new Float64Array(items.length);
      if (items.length === 0) return offsets;
      const byTopic = new Map<string, Map<number, PartitionGroup>>();
      for (let i = 0; i < items.length; i++) {
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
      try {
        this.connected ??= this.producer.connect();
        await this.connected;
        const acks = await this.producer.sendBatch({
          acks: -1,
          timeout: this.timeoutMs,
          compression: this.compression,
          topicMessages: [...byTopic].map(([topic, partitions]) => ({
            topic,
            messages: [...partitions.values()].flatMap((g) => g.messages),
          })),
        });
        let acknowledged = 0;
        for (const ack of acks) {
          const group = byTopic.get(ack.topicName)?.get(ack.partition);
          if (!group) continue;
          acknowledged++;
          let offset = Number(ack.baseOffset);
          for (let j = 0; j < group.indices.length; j++) {
            offsets[group.indices[j]!] = offset;
            offset += group.counts[j]!;
          }
        }
        let partitions = 0;
        for (const p of byTopic.values()) partitions += p.size;
        if (acknowledged < partitions) {
          // kafkajs silently leaves out partitions its metadata does not know yet (for example
          // right after partitions were added). Nothing was acknowledged for them: fail, so the
          // write is retried with a producer that reads fresh metadata.
          await this.reset();
          throw new KafkaTransportError(this.cluster, `Writing records failed: ${partitions - acknowledged} partitions were not acknowledged (metadata out of date)`, true);
        }
        return offsets;
      } catch (error) {
        if (error instanceof KafkaTransportError) throw error;
        throw toTransportError(this.cluster, error, 'Writing records');
      }
    });
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
