import { firstValueFrom } from '#rxjs';
import type { Kafka } from '../kafkajs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { DigestPage, DigestReadOptions, RangePage, RangeReadOptions, RangeReader } from '../../core/ports/range-reader';
import type { KafkaRecord, RecordHeader } from '../../core/record';
import { recordDigest } from '../../core/record-digest';
import { isRetriableKafkajsError, toTransportError } from '../errors';
import { rawCluster, type RawCluster, type RawFetchedMessage } from '../wire/raw-cluster';
import { filterAbortedMessages } from '../wire/filter-aborted-messages';
import { isFetchedRecordBatch, type FetchedRecordBatch } from '../wire/fetch-decoder';
import { batchRecordCount, batchRecords, digestBatch, type DigestSink } from './batch-digests';

/** A fetch's size when the caller gives none: small pages keep little alive at a time. */
const DEFAULT_MAX_BYTES = 512 << 10;
/** How long a fetch waits at the broker when nothing is there (the range's end is known; nothing more is coming). */
const MAX_WAIT_MS = 100;
/** Retriable failures (a leader that moved, a broker restarting) are tried again this often, a little longer each time. */
const RETRIES = 12;

type Message = RawFetchedMessage | FetchedRecordBatch;

/** What one fetch brought, before the caller's range and isolation are applied. */
interface Fetched {
  readonly messages: readonly Message[];
  readonly aborted: readonly { readonly producerId: string; readonly firstOffset: string }[] | undefined;
}

/**
 * RangeReader over kafkajs's internal cluster (../wire/raw-cluster.ts): Fetch requests sent to
 * each partition's leader, one at a time as the caller pulls, with no consumer group (so no join
 * to wait for and nothing left behind on the broker). `read` gets records decoded by the fetch
 * decoder as every reader's are; `readDigests` fetches on connections that hand record batches
 * over whole (`forwarding`, ../wire/connection-behaviour.ts) and digests their records from the
 * bytes (batch-digests.ts), decoding only the batches that are not handed over whole. With
 * read_committed, aborted transactions are dropped batch by batch, as the Java consumer does
 * (../wire/filter-aborted-messages.ts).
 */
export class KafkajsRangeReader implements RangeReader {
  private readonly clusters = new Map<Kafka, Promise<RawCluster>>();

  constructor(
    readonly cluster: string,
    private readonly kafka: Kafka,
    /** A client whose fetches hand record batches over whole. */
    private readonly forwarding: Kafka,
    private readonly admin: ClusterAdmin,
  ) {}

  async *read(topic: string, partition: number, from: number, to: number, options: RangeReadOptions): AsyncIterable<RangePage> {
    for await (const { fetched, position, skipped } of this.fetches(this.kafka, topic, partition, from, to, options)) {
      const records: KafkaRecord[] = [];
      for (const m of this.visible(fetched, options)) {
        if (isFetchedRecordBatch(m)) continue; // never on these connections
        const offset = Number(m.offset);
        if (offset < position || offset >= to) continue;
        records.push({
          topic,
          partition,
          offset,
          timestamp: Number(m.timestamp),
          key: m.key ?? null,
          value: m.value ?? null,
          headers: m.headers as RecordHeader[],
        });
      }
      yield { records, nextOffset: nextOffsetOf(fetched, position, to), skipped };
    }
  }

  async *readDigests(topic: string, partition: number, from: number, to: number, options: DigestReadOptions): AsyncIterable<DigestPage> {
    const count = options.mode === 'count';
    for await (const { fetched, position, skipped } of this.fetches(this.forwarding, topic, partition, from, to, options)) {
      const messages = this.visible(fetched, options);
      let capacity = 0;
      for (const m of messages) capacity += isFetchedRecordBatch(m) ? batchRecordCount(m.recordBatch.bytes) : 1;
      const sink: DigestSink = { count: 0, offsets: new Float64Array(capacity), digests: new Uint32Array(capacity * 2) };
      for (const m of messages) {
        if (isFetchedRecordBatch(m)) {
          const bytes = m.recordBatch.bytes;
          digestBatch(bytes, await batchRecords(bytes), position, to, sink, count);
          continue;
        }
        const offset = Number(m.offset);
        if (offset < position || offset >= to) continue;
        const at = sink.count++;
        sink.offsets[at] = offset;
        recordDigest({ timestamp: Number(m.timestamp), key: m.key ?? null, value: m.value ?? null, headers: m.headers }, sink.digests, at);
        if (count) sink.digests.fill(0, 2 * at, 2 * at + 2);
      }
      yield { count: sink.count, offsets: sink.offsets, digests: sink.digests, nextOffset: nextOffsetOf(fetched, position, to), skipped };
    }
  }

  async offsetsForTime(topic: string, timestamp: number): Promise<ReadonlyMap<number, number>> {
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      const found = await admin.fetchTopicOffsetsByTimestamp(topic, timestamp);
      return new Map(found.map((o) => [o.partition, Number(o.offset)]));
    } catch (error) {
      throw toTransportError(this.cluster, error, `Finding the offsets of ${topic} at ${new Date(timestamp).toISOString()}`);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const clusters = [...this.clusters.values()];
    this.clusters.clear();
    await Promise.allSettled(clusters.map(async (c) => (await c).disconnect()));
  }

  /** The data records of a fetch: transaction markers left out, and with read_committed the batches of aborted transactions. */
  private visible(fetched: Fetched, options: RangeReadOptions): readonly Message[] {
    const messages =
      options.isolationLevel === 'read_committed'
        ? filterAbortedMessages({ messages: [...fetched.messages], abortedTransactions: fetched.aborted })
        : fetched.messages;
    return messages.filter((m) => isFetchedRecordBatch(m) || (m.isControlRecord !== true && m.batchContext?.isControlBatch !== true));
  }

  /** The fetches of [from, to) one after another as pulled, each with the position it was made at; the log's start moving past the position is skipped over and counted. */
  private async *fetches(
    kafka: Kafka,
    topic: string,
    partition: number,
    from: number,
    to: number,
    options: RangeReadOptions,
  ): AsyncIterable<{ fetched: Fetched; position: number; skipped: number }> {
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    const committed = options.isolationLevel === 'read_committed';
    let position = from;
    let skipped = 0;
    while (position < to) {
      let fetched: Fetched;
      try {
        fetched = await this.fetch(kafka, topic, partition, position, maxBytes, committed);
      } catch (error) {
        if ((error as { type?: string }).type !== 'OFFSET_OUT_OF_RANGE') throw toTransportError(this.cluster, error, `Reading ${topic}-${partition}`);
        const bounds = (await firstValueFrom(this.admin.partitionOffsets(topic))).find((o) => o.partition === partition);
        // Past the end (the log was cut, or the topic recreated): nothing more to read.
        if (bounds === undefined || position >= bounds.latest || bounds.earliest <= position) return;
        skipped += Math.min(bounds.earliest, to) - position;
        position = bounds.earliest;
        continue;
      }
      const next = nextOffsetOf(fetched, position, to);
      // Nothing fetched: the readable end (the high watermark, or the last stable offset) is here.
      if (next <= position) {
        if (skipped > 0) yield { fetched, position, skipped };
        return;
      }
      yield { fetched, position, skipped };
      skipped = 0;
      position = next;
    }
  }

  /** One Fetch of the partition at its leader; retriable failures (the leader moved) are tried again with fresh metadata. */
  private async fetch(kafka: Kafka, topic: string, partition: number, offset: number, maxBytes: number, committed: boolean): Promise<Fetched> {
    for (let attempt = 0; ; attempt++) {
      try {
        const cluster = await this.connected(kafka);
        await cluster.addTargetTopics([topic]);
        const leader = [...cluster.leaders(topic, [partition]).keys()][0];
        if (leader === undefined) throw Object.assign(new Error(`No leader known for ${topic}-${partition}`), { retriable: true });
        const broker = await cluster.broker(leader);
        const response = await broker.fetch({
          replicaId: -1,
          isolationLevel: committed ? 1 : 0,
          maxWaitTime: MAX_WAIT_MS,
          minBytes: 1,
          maxBytes,
          topics: [{ topic, partitions: [{ partition, fetchOffset: String(offset), maxBytes }] }],
        });
        const answer = response.responses.find((r) => r.topicName === topic)?.partitions.find((p) => p.partition === partition);
        return { messages: (answer?.messages ?? []) as readonly Message[], aborted: answer?.abortedTransactions };
      } catch (error) {
        if ((error as { type?: string }).type === 'OFFSET_OUT_OF_RANGE' || attempt >= RETRIES || !isRetriableKafkajsError(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 3000)));
        await (await this.connected(kafka)).refreshMetadata().catch(() => undefined);
      }
    }
  }

  private connected(kafka: Kafka): Promise<RawCluster> {
    let connecting = this.clusters.get(kafka);
    if (connecting === undefined) {
      const made = (async () => {
        const cluster = rawCluster(kafka);
        await cluster.connect();
        return cluster;
      })();
      connecting = made;
      this.clusters.set(kafka, made);
      // A failed connect is tried again by the next fetch.
      made.catch(() => {
        if (this.clusters.get(kafka) === made) this.clusters.delete(kafka);
      });
    }
    return connecting;
  }
}

/** Past every offset a fetch covered (records, markers, aborted batches alike), within [position, to]. */
function nextOffsetOf(fetched: Fetched, position: number, to: number): number {
  let last = position - 1;
  for (const m of fetched.messages) {
    const offset = Number(m.offset);
    if (offset > last) last = offset;
  }
  return Math.min(last + 1, to);
}
