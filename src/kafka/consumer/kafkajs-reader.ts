import { Observable, firstValueFrom } from '#rxjs';
import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka, KafkaMessage } from '../kafkajs';
import type { TopicFollowEvent, TopicReader } from '../../core/ports/record-source';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { KafkaRecord, RecordHeader, DecodedSourceBatch } from '../../core/record';
import { toTransportError } from '../errors';

type DecodedMessage = Omit<KafkaMessage, 'headers'> & { headers: RecordHeader[] };

/**
 * How long a follower's fetch waits at the broker for new records. Short, because kafkajs's
 * disconnect waits for the fetch in flight, and stopping a flow should not take seconds.
 */
const FOLLOW_MAX_WAIT_MS = 500;

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

  readToEnd(topic: string): Observable<DecodedSourceBatch> {
    return new Observable<DecodedSourceBatch>((subscriber) => {
      let stopped = false;
      const consumer = this.kafka.consumer({ groupId: `mirrorflow-reader-${randomUUID()}`, allowAutoTopicCreation: false });
      // A consumer kafkajs will not restart (its cluster down too long) ends the read, so the
      // caller can retry it; without this the read would wait forever.
      watchCrashes(
        consumer,
        () => stopped,
        (error) => subscriber.error(toTransportError(this.cluster, error, `Reading topic ${topic}`)),
      );
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
        if (stopped) return;
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        if (stopped) return;
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const end = remaining.get(batch.partition);
            if (end === undefined || stopped) return;
            const records: KafkaRecord[] = [];
            for (const m of batch.messages as unknown as DecodedMessage[]) {
              const offset = Number(m.offset);
              if (offset >= end) break;
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
            subscriber.next({
              kind: 'records',
              topic,
              partition: batch.partition,
              records,
              nextOffset: Number(batch.lastOffset()) + 1,
              highWatermark: Number(batch.highWatermark),
              bytes: 0,
            });
          },
        });
      };
      const started = run().catch((error: unknown) => subscriber.error(toTransportError(this.cluster, error, `Reading topic ${topic}`)));
      return () => {
        stopped = true;
        leave(consumer, started);
      };
    });
  }

  follow(topic: string, partition: number): Observable<TopicFollowEvent> {
    return new Observable<TopicFollowEvent>((subscriber) => {
      let stopped = false;
      let caughtUp = false;
      /** The next offset to emit; records before it were emitted already (a rejoin restarts from the beginning). */
      let next = -1;
      let end = 0;
      const consumer = this.kafka.consumer({
        groupId: `mirrorflow-reader-${randomUUID()}`,
        allowAutoTopicCreation: false,
        maxWaitTimeInMs: FOLLOW_MAX_WAIT_MS,
      });
      watchCrashes(
        consumer,
        () => stopped,
        (error) => subscriber.error(toTransportError(this.cluster, error, `Following topic ${topic}`)),
      );
      const reached = (nextOffset: number): void => {
        if (caughtUp || stopped || nextOffset < end) return;
        caughtUp = true;
        subscriber.next({ type: 'caught-up' });
      };
      const run = async (): Promise<void> => {
        const offsets = await firstValueFrom(this.admin.partitionOffsets(topic));
        const bounds = offsets.find((o) => o.partition === partition);
        end = bounds?.latest ?? 0;
        if (bounds === undefined || bounds.latest <= bounds.earliest) reached(end);
        // Batches that held only transaction markers reach this event and not eachBatch.
        consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
          if (payload.topic === topic && payload.partition === partition) reached(Number(payload.lastOffset) + 1);
        });
        await consumer.connect();
        if (stopped) return;
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        if (stopped) return;
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            if (stopped || batch.partition !== partition) return;
            const lastOffset = Number(batch.lastOffset());
            if (lastOffset < next) {
              consumer.seek({ topic, partition, offset: String(next) });
              return;
            }
            const records: KafkaRecord[] = [];
            for (const m of batch.messages as unknown as DecodedMessage[]) {
              const offset = Number(m.offset);
              if (offset < next) continue;
              records.push({ topic, partition, offset, timestamp: Number(m.timestamp), key: m.key ?? null, value: m.value ?? null, headers: m.headers });
            }
            next = lastOffset + 1;
            subscriber.next({
              type: 'records',
              batch: { kind: 'records', topic, partition, records, nextOffset: next, highWatermark: Number(batch.highWatermark), bytes: 0 },
            });
          },
        });
      };
      const started = run().catch((error: unknown) => {
        if (!stopped) subscriber.error(toTransportError(this.cluster, error, `Following topic ${topic}`));
      });
      return () => {
        stopped = true;
        leave(consumer, started);
      };
    });
  }

  recordAt(topic: string, partition: number, offset: number): Promise<KafkaRecord | undefined> {
    return new Promise<KafkaRecord | undefined>((resolve, reject) => {
      let stopped = false;
      const consumer = this.kafka.consumer({
        groupId: `mirrorflow-reader-${randomUUID()}`,
        allowAutoTopicCreation: false,
        maxWaitTimeInMs: FOLLOW_MAX_WAIT_MS,
      });
      let started: Promise<void> = Promise.resolve();
      const finish = (outcome: () => void): void => {
        if (stopped) return;
        stopped = true;
        outcome();
        leave(consumer, started);
      };
      const failed = (error: unknown): void => finish(() => reject(toTransportError(this.cluster, error, `Reading topic ${topic}`)));
      watchCrashes(consumer, () => stopped, failed);
      const run = async (): Promise<void> => {
        const bounds = (await firstValueFrom(this.admin.partitionOffsets(topic))).find((o) => o.partition === partition);
        if (bounds === undefined || offset < bounds.earliest || offset >= bounds.latest) return finish(() => resolve(undefined));
        // Batches that held only transaction markers reach this event and not eachBatch: past the log's end, nothing follows.
        consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
          if (payload.topic === topic && payload.partition === partition && Number(payload.lastOffset) + 1 >= bounds.latest) finish(() => resolve(undefined));
        });
        await consumer.connect();
        if (stopped) return;
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        if (stopped) return;
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            if (stopped || batch.partition !== partition) return;
            if (Number(batch.lastOffset()) < offset) {
              consumer.seek({ topic, partition, offset: String(offset) });
              return;
            }
            const m = (batch.messages as unknown as DecodedMessage[]).find((message) => Number(message.offset) >= offset);
            if (m === undefined) return;
            const record = {
              topic,
              partition,
              offset: Number(m.offset),
              timestamp: Number(m.timestamp),
              key: m.key ?? null,
              value: m.value ?? null,
              headers: m.headers,
            };
            finish(() => resolve(record));
          },
        });
        if (!stopped) consumer.seek({ topic, partition, offset: String(offset) });
      };
      started = run().catch(failed);
    });
  }
}

/**
 * Handles a kafkajs consumer's crashes: one it will not restart is `fatal`; one it restarts
 * after its owner stopped is disconnected again. kafkajs schedules that restart right after the
 * CRASH event, so a disconnect made during the crash (the owner stopping then) does not cancel
 * it, and the restarted consumer would live on, retrying against its cluster forever.
 */
export function watchCrashes(consumer: Consumer, stopped: () => boolean, fatal: (error: unknown) => void): void {
  consumer.on(consumer.events.CRASH, (event) => {
    if (stopped()) {
      if (event.payload.restart) setImmediate(() => void consumer.disconnect().catch(() => undefined)); // stopped: nothing to report to
      return;
    }
    if (!event.payload.restart) fatal(event.payload.error);
  });
}

/**
 * Disconnects a reader's consumer now, and again once its start settled: kafkajs finishes a
 * connect under way after a disconnect, and that consumer would stay connected.
 */
export function leave(consumer: { disconnect(): Promise<void> }, started: Promise<void>): void {
  const disconnect = (): Promise<void> => consumer.disconnect().catch(() => undefined); // leaving: nothing to report to
  void disconnect()
    .then(() => started)
    .then(disconnect, disconnect);
}
