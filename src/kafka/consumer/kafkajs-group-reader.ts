import { Observable, firstValueFrom } from 'rxjs';
import type { Kafka, KafkaMessage } from '../kafkajs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { GroupReader } from '../../core/ports/group-reader';
import type { DecodedSourceBatch, KafkaRecord, RecordHeader } from '../../core/record';
import { toTransportError } from '../errors';
import { watchCrashes } from './kafkajs-reader';

type DecodedMessage = Omit<KafkaMessage, 'headers'> & { headers: RecordHeader[] };

/**
 * A consumer group member over kafkajs's consumer, as an application runs one: subscribes,
 * starts at the group's committed offsets (the log start where a partition has none), and
 * commits each batch once it was handed on. Completes when every partition reached its end.
 */
export class KafkajsGroupReader implements GroupReader {
  constructor(
    readonly cluster: string,
    private readonly kafka: Kafka,
    private readonly admin: ClusterAdmin,
  ) {}

  readAsGroup(group: string, topics: readonly string[], ends?: ReadonlyMap<string, number>): Observable<DecodedSourceBatch> {
    return new Observable<DecodedSourceBatch>((subscriber) => {
      let stopped = false;
      const consumer = this.kafka.consumer({ groupId: group, allowAutoTopicCreation: false, sessionTimeout: 10_000, heartbeatInterval: 1000 });
      watchCrashes(
        consumer,
        () => stopped,
        (error) => subscriber.error(toTransportError(this.cluster, error, `Reading as group ${group}`)),
      );
      const remaining = new Map<string, number>();
      const done = (key: string): void => {
        if (!remaining.delete(key) || remaining.size > 0 || stopped) return;
        stopped = true;
        subscriber.complete();
      };
      const run = async (): Promise<void> => {
        const committed = new Map((await firstValueFrom(this.admin.fetchGroupOffsets(group))).map((o) => [`${o.topic}-${o.partition}`, o.offset]));
        for (const topic of topics) {
          for (const p of await firstValueFrom(this.admin.partitionOffsets(topic))) {
            const key = `${topic}-${p.partition}`;
            const end = ends?.get(key) ?? p.latest;
            const start = Math.max(committed.get(key) ?? p.earliest, p.earliest);
            if (start < end) remaining.set(key, end);
          }
        }
        if (remaining.size === 0) {
          stopped = true;
          subscriber.complete();
          return;
        }
        // Batches of transaction markers only reach this event, not eachBatch.
        consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
          const key = `${payload.topic}-${payload.partition}`;
          const end = remaining.get(key);
          if (end !== undefined && Number(payload.lastOffset) + 1 >= end) done(key);
        });
        await consumer.connect();
        if (stopped) return;
        await consumer.subscribe({ topics: [...topics], fromBeginning: true });
        if (stopped) return;
        await consumer.run({
          autoCommit: true,
          eachBatch: async ({ batch }) => {
            if (stopped) return;
            const records: KafkaRecord[] = [];
            for (const m of batch.messages as unknown as DecodedMessage[]) {
              records.push({
                topic: batch.topic,
                partition: batch.partition,
                offset: Number(m.offset),
                timestamp: Number(m.timestamp),
                key: m.key ?? null,
                value: m.value ?? null,
                headers: m.headers,
              });
            }
            subscriber.next({
              kind: 'records',
              topic: batch.topic,
              partition: batch.partition,
              records,
              nextOffset: Number(batch.lastOffset()) + 1,
              highWatermark: Number(batch.highWatermark),
              bytes: 0,
            });
          },
        });
      };
      const started = run().catch((error: unknown) => {
        if (!stopped) subscriber.error(toTransportError(this.cluster, error, `Reading as group ${group}`));
      });
      return () => {
        stopped = true;
        // Commits what was handed on, then leaves the group; a connect under way is left again once it settled.
        const disconnect = (): Promise<void> => consumer.disconnect().catch(() => undefined);
        void disconnect()
          .then(() => started)
          .then(disconnect);
      };
    });
  }
}
