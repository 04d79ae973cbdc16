import { Observable, firstValueFrom } from '#rxjs';
import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from '../kafkajs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { GroupReader } from '../../core/ports/group-reader';
import type { DecodedSourceBatch, KafkaRecord, RecordHeader } from '../../core/record';
import { toTransportError } from '../errors';
import { leave, watchCrashes } from './kafkajs-reader';

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

  readAsGroup(
    group: string,
    topics: readonly string[],
    options: { readonly ends?: ReadonlyMap<string, number>; readonly handle?: (batch: DecodedSourceBatch) => Promise<void> } = {},
  ): Observable<DecodedSourceBatch> {
    const { ends, handle } = options;
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
            const decoded: DecodedSourceBatch = {
              kind: 'records',
              topic: batch.topic,
              partition: batch.partition,
              records,
              nextOffset: Number(batch.lastOffset()) + 1,
              highWatermark: Number(batch.highWatermark),
              bytes: 0,
            };
            if (handle !== undefined) {
              try {
                await handle(decoded);
              } catch (error) {
                stopped = true;
                subscriber.error(error);
                return;
              }
            }
            subscriber.next(decoded);
          },
        });
      };
      const started = run().catch((error: unknown) => {
        if (!stopped) subscriber.error(toTransportError(this.cluster, error, `Reading as group ${group}`));
      });
      return () => {
        stopped = true;
        // Commits what was handed on, then leaves the group; a connect under way is left again once it settled.
        leave(consumer, started);
      };
    });
  }

  readRanges(
    topic: string,
    ranges: ReadonlyMap<number, { readonly from: number; readonly to: number }>,
    handle: (partition: number, records: readonly KafkaRecord[]) => Promise<void>,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let stopped = false;
      // No commit is ever made: the broker forgets the group once the reader leaves.
      const consumer = this.kafka.consumer({ groupId: `mirrorflow-reader-${randomUUID()}`, allowAutoTopicCreation: false, maxWaitTimeInMs: 500 });
      let started: Promise<void> = Promise.resolve();
      const finish = (outcome: () => void): void => {
        if (stopped) return;
        stopped = true;
        outcome();
        leave(consumer, started);
      };
      const failed = (error: unknown): void => finish(() => reject(toTransportError(this.cluster, error, `Reading topic ${topic}`)));
      watchCrashes(consumer, () => stopped, failed);
      const remaining = new Map<number, number>();
      const reached = (partition: number, next: number): void => {
        const to = remaining.get(partition);
        if (to === undefined || next < to) return;
        remaining.delete(partition);
        if (remaining.size === 0) finish(resolve);
      };
      const run = async (): Promise<void> => {
        for (const p of await firstValueFrom(this.admin.partitionOffsets(topic))) {
          const range = ranges.get(p.partition);
          if (range === undefined) continue;
          const to = Math.min(range.to, p.latest);
          if (Math.max(range.from, p.earliest) < to) remaining.set(p.partition, to);
        }
        if (remaining.size === 0) return finish(resolve);
        // Batches of transaction markers only reach this event, not eachBatch.
        consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
          if (payload.topic === topic) reached(payload.partition, Number(payload.lastOffset) + 1);
        });
        await consumer.connect();
        if (stopped) return;
        // From the start until the seek below lands: a batch fetched before it is handed over only
        // from `from` on, and what the seek fetches again is not handed over twice.
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        if (stopped) return;
        const next = new Map([...remaining.keys()].map((partition) => [partition, ranges.get(partition)!.from]));
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const to = remaining.get(batch.partition);
            const from = next.get(batch.partition);
            if (stopped || from === undefined || to === undefined) return;
            const records: KafkaRecord[] = [];
            for (const m of batch.messages as unknown as DecodedMessage[]) {
              const offset = Number(m.offset);
              if (offset < from) continue;
              if (offset >= to) break;
              records.push({
                topic,
                partition: batch.partition,
                offset,
                timestamp: Number(m.timestamp),
                key: m.key ?? null,
                value: m.value ?? null,
                headers: m.headers,
              });
            }
            if (records.length === 0) return;
            next.set(batch.partition, records[records.length - 1]!.offset + 1);
            try {
              await handle(batch.partition, records);
            } catch (error) {
              finish(() => reject(error));
            }
          },
        });
        if (stopped) return;
        for (const [partition] of remaining) consumer.seek({ topic, partition, offset: String(ranges.get(partition)!.from) });
      };
      started = run().catch(failed);
    });
  }
}
