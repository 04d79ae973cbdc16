import { defer, type Observable } from 'rxjs';
import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer } from './kafkajs';
import type { Compression, OutboundRecord, RecordWriter } from '../core/ports/record-writer';
import type { WriterOptions } from '../core/ports/kafka-clients';
import { toTransportError } from './errors';

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
}

/**
 * RecordWriter over a kafkajs producer: acks=all, not idempotent (as MM2's Connect producer), no
 * topic auto-creation. Records go out in one sendBatch per write, which kafkajs splits into one
 * request per broker; each partition's records form one record batch, in order.
 */
export class KafkajsWriter implements RecordWriter {
  private readonly producer: Producer;
  private connected: Promise<void> | undefined;
  private readonly compression: CompressionTypes;
  private readonly timeoutMs: number;

  constructor(
    readonly cluster: string,
    kafka: Kafka,
    options: WriterOptions,
  ) {
    // Every record names its partition, so the partitioner is never used; naming one silences
    // kafkajs's warning about its default.
    this.producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    this.compression = COMPRESSION[options.compression];
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  write(records: readonly OutboundRecord[]): Observable<Float64Array> {
    return defer(async () => {
      const offsets = new Float64Array(records.length);
      if (records.length === 0) return offsets;
      const byTopic = new Map<string, Map<number, PartitionGroup>>();
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!;
        let partitions = byTopic.get(r.topic);
        if (!partitions) byTopic.set(r.topic, (partitions = new Map()));
        let group = partitions.get(r.partition);
        if (!group) partitions.set(r.partition, (group = { messages: [], indices: [] }));
        // The record itself is the kafkajs message: our produce encoder (wire/) reads partition,
        // key, value, numeric timestamp and the ordered header list from it, so no copy is made.
        group.messages.push(r as unknown as Message);
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
        for (const ack of acks) {
          const group = byTopic.get(ack.topicName)?.get(ack.partition);
          if (!group) continue;
          const base = Number(ack.baseOffset);
          for (let j = 0; j < group.indices.length; j++) offsets[group.indices[j]!] = base + j;
        }
        return offsets;
      } catch (error) {
        throw toTransportError(this.cluster, error, 'Writing records');
      }
    });
  }

  async close(): Promise<void> {
    if (this.connected === undefined) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }
}
