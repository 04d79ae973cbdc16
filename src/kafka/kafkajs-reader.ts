import { Observable } from 'rxjs';
import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from './kafkajs';
import type { TopicReader } from '../core/ports/record-source';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { KafkaRecord, RecordHeader, SourceBatch } from '../core/record';
import { toTransportError } from './errors';

type DecodedMessage = Omit<KafkaMessage, 'headers'> & { headers: RecordHeader[] };

/**
 * Reads a whole topic from its start up to the high watermarks it had when the read began.
 * kafkajs has no group-less consumer, so each read joins a throwaway group that commits nothing;
 * the broker drops such a group as soon as the reader leaves.
 */
export class KafkajsTopicReader implements TopicReader {
  constructor(
    readonly cluster: string,
    private readonly kafka: Kafka,
    private readonly admin: ClusterAdmin,
  ) {}

  readToEnd(topic: string): Observable<SourceBatch> {
    return new Observable<SourceBatch>((subscriber) => {
      let stopped = false;
      const consumer = this.kafka.consumer({ groupId: `mirrorflow-reader-${randomUUID()}`, allowAutoTopicCreation: false });
      const run = async (): Promise<void> => {
        const offsets = await new Promise<readonly { partition: number; earliest: number; latest: number }[]>((resolve, reject) =>
          this.admin.partitionOffsets(topic).subscribe({ next: resolve, error: reject }),
        );
        const remaining = new Map<number, number>();
        for (const o of offsets) if (o.latest > o.earliest) remaining.set(o.partition, o.latest);
        if (remaining.size === 0) {
          subscriber.complete();
          return;
        }
        // kafkajs reports batches that held only transaction markers here and not to eachBatch, so
        // the end of each partition is detected from this event.
        consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
          const end = remaining.get(payload.partition);
          if (end === undefined || Number(payload.lastOffset) + 1 < end) return;
          remaining.delete(payload.partition);
          if (remaining.size === 0) subscriber.complete();
        });
        await consumer.connect();
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const end = remaining.get(batch.partition);
            if (end === undefined || stopped) return;
            const records: KafkaRecord[] = [];
            for (const m of batch.messages as unknown as DecodedMessage[]) {
              const offset = Number(m.offset);
              if (offset >= end) break;
              records.push({ topic, partition: batch.partition, offset, timestamp: Number(m.timestamp), key: m.key ?? null, value: m.value ?? null, headers: m.headers });
            }
            subscriber.next({ topic, partition: batch.partition, records, nextOffset: Number(batch.lastOffset()) + 1, highWatermark: Number(batch.highWatermark), bytes: 0 });
          },
        });
      };
      run().catch((error: unknown) => subscriber.error(toTransportError(this.cluster, error, `Reading topic ${topic}`)));
      return () => {
        stopped = true;
        void consumer.disconnect().catch(() => undefined);
      };
    });
  }
}
