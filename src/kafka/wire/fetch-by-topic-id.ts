/**
 * Fetch v13–v16, whose topics are named by id (KIP-516) in flexible versions (KIP-482), which
 * kafkajs does not speak (its newest is v11): what a flow's source consumer sends in a fetch
 * session (fetch-session.ts, install.ts). A broker keys a session's partitions by topic id and
 * partition; with Fetch v7–v12, which name topics, every topic's partition 0 is the same key to
 * it, and creating a session over 250 topics × 20 partitions took one Kafka 4.3 broker 12.8 s
 * (against 0.2–0.36 s for a Fetch without a session).
 *
 *   Fetch Request (v13–v16) => [replica_id (v13–v14)] max_wait_ms min_bytes max_bytes isolation_level
 *                              session_id session_epoch topics forgotten_topics_data rack_id TAG_BUFFER
 *     replica_id, max_wait_ms, min_bytes, max_bytes, session_id, session_epoch => INT32; isolation_level => INT8
 *     topics => COMPACT_ARRAY of (topic_id UUID | partitions | TAG_BUFFER)
 *       partitions => COMPACT_ARRAY of (partition INT32 | current_leader_epoch INT32 | fetch_offset INT64
 *                     | last_fetched_epoch INT32 | log_start_offset INT64 | partition_max_bytes INT32 | TAG_BUFFER)
 *     forgotten_topics_data => COMPACT_ARRAY of (topic_id UUID | partitions COMPACT_ARRAY INT32 | TAG_BUFFER)
 *     rack_id => COMPACT_STRING
 *   (v15 moves replica_id into a tagged field a consumer leaves out; v16 and v17 add only tagged fields.)
 *
 *   Fetch Response (v13–v16) => throttle_time_ms error_code session_id responses TAG_BUFFER
 *     throttle_time_ms => INT32; error_code => INT16; session_id => INT32
 *     responses => COMPACT_ARRAY of (topic_id UUID | partitions | TAG_BUFFER)
 *       partitions => COMPACT_ARRAY of (partition_index INT32 | error_code INT16 | high_watermark INT64
 *                     | last_stable_offset INT64 | log_start_offset INT64
 *                     | aborted_transactions COMPACT_NULLABLE_ARRAY of (producer_id INT64 | first_offset INT64 | TAG_BUFFER)
 *                     | preferred_read_replica INT32 | records COMPACT_NULLABLE_RECORDS | TAG_BUFFER)
 *     (a partition's tagged fields: diverging epoch, current leader, snapshot id; the response's: node endpoints, v16)
 *
 * The request is written at its exact size in one allocation, behind the room request-frame.ts asks
 * for its header (kafkajs's v11 encoder allocates and zero-fills a buffer for each partition: 43 %
 * of an idle consumer's time at 19,000 partitions). The answer is decoded into kafkajs's v11 shape
 * (topic names, offsets as text) and its record sets through fetch-decoder.ts, so kafkajs's
 * consumer, fetching ahead and the empty-partition filter read it as they read kafkajs's own;
 * kafkajs's v11 parse throws its partition errors as it would.
 *
 * A topic the broker no longer knows by the id sent (deleted, or deleted and created again under
 * its name) answers UNKNOWN_TOPIC_ID or INCONSISTENT_TOPIC_ID: its id is forgotten, to be looked up
 * again, and kafkajs sees UNKNOWN_TOPIC_OR_PARTITION, what Fetch by name answers for a topic gone.
 */
import type { FetchRequest } from './fetch-ahead';
import type { SessionFetchRequest, SessionFetchResponse } from './fetch-session';
import { CompactReader, flexibleRequest } from './compact-codec';
import { decodeRecordSet, forwardPolicyOf } from './fetch-decoder';
import { kafkajsApiKeys, kafkajsFetchResponseParse } from './kafkajs-internals';
import { unsignedVarintSize, writeUnsignedVarint } from './record-batch-encoder';
import { ZERO_TOPIC_ID, type MetadataV12Response } from './metadata-v12';

/** The Fetch versions sent by topic id: v13 is the first, v16 the newest whose consumer fields this writes and reads. */
export const FETCH_BY_TOPIC_ID = { oldest: 13, newest: 16 } as const;

/** v15 dropped replica_id from the body (a consumer sends no replica state). */
const REPLICA_ID_UNTIL = 14;
/** partition, current_leader_epoch, fetch_offset, last_fetched_epoch, log_start_offset, partition_max_bytes, tagged fields. */
const PARTITION_BYTES = 4 + 4 + 8 + 4 + 8 + 4 + 1;
const READ_COMMITTED = 1;
const DEFAULTS = { maxWaitTime: 5000, minBytes: 1, maxBytes: 10_485_760 } as const;

const UNKNOWN_TOPIC_OR_PARTITION = 3;
const UNKNOWN_TOPIC_ID = 100;
const INCONSISTENT_TOPIC_ID = 103;

/** The Fetch version to send a broker whose newest is `brokerNewest`; undefined: it has none by topic id. */
export function fetchByTopicIdVersion(brokerNewest: number | undefined): number | undefined {
  if (brokerNewest === undefined || brokerNewest < FETCH_BY_TOPIC_ID.oldest) return undefined;
  return Math.min(brokerNewest, FETCH_BY_TOPIC_ID.newest);
}

/**
 * The topic ids of one client's topics, learned from Metadata v12 (a client's consumer fetches
 * from several brokers; they share what it learned). Kafka's textual form of an id (URL-safe
 * base64) is the key of the reverse map, as the answer's ids are read.
 */
export class TopicIds {
  private readonly ids = new Map<string, Buffer>();
  private readonly names = new Map<string, string>();
  private learning: Promise<void> = Promise.resolve();
  /** How many ids were forgotten, or met in an answer unknown: a session that held one starts anew. */
  forgotten = 0;

  idOf(topic: string): Buffer | undefined {
    return this.ids.get(topic);
  }

  nameOf(id: string): string | undefined {
    return this.names.get(id);
  }

  /** Which of `topics` have no id known. */
  unknown(topics: Iterable<string>): string[] {
    const unknown: string[] = [];
    for (const topic of topics) if (!this.ids.has(topic)) unknown.push(topic);
    return unknown;
  }

  /** Learns the ids of `topics` from `lookup` (one Metadata v12 request); lookups go one at a time. */
  learn(topics: readonly string[], lookup: (topics: readonly string[]) => Promise<MetadataV12Response>): Promise<void> {
    const learned = this.learning.then(async () => {
      const still = this.unknown(topics);
      if (still.length === 0) return;
      const { topics: answered } = await lookup(still);
      for (const { errorCode, name, topicId } of answered) {
        if (errorCode !== 0 || name === null || topicId === ZERO_TOPIC_ID) continue;
        const known = this.ids.get(name);
        if (known !== undefined && known.toString('base64url') === topicId) continue;
        this.forget(name);
        this.ids.set(name, Buffer.from(topicId, 'base64url'));
        this.names.set(topicId, name);
      }
    });
    this.learning = learned.catch(() => undefined);
    return learned;
  }

  /** Forgets `topic`'s id (the broker no longer knows it): the next Fetch looks it up again. */
  forget(topic: string): void {
    const id = this.ids.get(topic);
    if (id === undefined) return;
    this.ids.delete(topic);
    this.names.delete(id.toString('base64url'));
    this.forgotten++;
  }
}

/**
 * A Fetch names a topic whose id was forgotten after the request was made (another broker's
 * answer said the id is gone): retriable, as kafkajs's consumer retries a fetch; the session
 * starts anew with the id looked up again.
 */
export class UnknownTopicIdError extends Error {
  readonly retriable = true;
  constructor(readonly topic: string) {
    super(`Fetch by topic id: no id known for topic '${topic}' (it was deleted or created again); fetching again`);
    this.name = 'UnknownTopicIdError';
  }
}

/**
 * The body of a Fetch `request` at `version`, written behind `headroom` free bytes. Every topic of
 * the request and of its forgotten topics must have an id in `ids`.
 */
export function encodeFetchByTopicId(version: number, request: SessionFetchRequest, ids: TopicIds, headroom = 0): Buffer {
  const rack = Buffer.from(request.rackId ?? '', 'utf8');
  const idOf = (topic: string): Buffer => {
    const id = ids.idOf(topic);
    if (id === undefined) throw new UnknownTopicIdError(topic);
    return id;
  };
  let size = (version <= REPLICA_ID_UNTIL ? 4 : 0) + 4 + 4 + 4 + 1 + 4 + 4;
  size += unsignedVarintSize(request.topics.length + 1);
  for (const { partitions } of request.topics) size += 16 + unsignedVarintSize(partitions.length + 1) + partitions.length * PARTITION_BYTES + 1;
  size += unsignedVarintSize(request.forgottenTopics.length + 1);
  for (const { partitions } of request.forgottenTopics) size += 16 + unsignedVarintSize(partitions.length + 1) + partitions.length * 4 + 1;
  size += unsignedVarintSize(rack.length + 1) + rack.length + 1;

  const out = Buffer.allocUnsafe(headroom + size);
  let at = headroom;
  if (version <= REPLICA_ID_UNTIL) at = out.writeInt32BE(request.replicaId ?? -1, at);
  at = out.writeInt32BE(request.maxWaitTime ?? DEFAULTS.maxWaitTime, at);
  at = out.writeInt32BE(request.minBytes ?? DEFAULTS.minBytes, at);
  at = out.writeInt32BE(request.maxBytes ?? DEFAULTS.maxBytes, at);
  at = out.writeInt8(request.isolationLevel ?? READ_COMMITTED, at);
  at = out.writeInt32BE(request.sessionId, at);
  at = out.writeInt32BE(request.sessionEpoch, at);
  at = writeUnsignedVarint(out, at, request.topics.length + 1);
  for (const { topic, partitions } of request.topics) {
    at += idOf(topic).copy(out, at);
    at = writeUnsignedVarint(out, at, partitions.length + 1);
    for (const p of partitions) {
      at = out.writeInt32BE(p.partition, at);
      at = out.writeInt32BE(-1, at); // current_leader_epoch: not checked
      at = writeOffset(out, at, p.fetchOffset);
      at = out.writeInt32BE(-1, at); // last_fetched_epoch: a follower's
      at = writeOffset(out, at, '-1'); // log_start_offset: a follower's
      at = out.writeInt32BE(p.maxBytes, at);
      out[at++] = 0;
    }
    out[at++] = 0;
  }
  at = writeUnsignedVarint(out, at, request.forgottenTopics.length + 1);
  for (const { topic, partitions } of request.forgottenTopics) {
    at += idOf(topic).copy(out, at);
    at = writeUnsignedVarint(out, at, partitions.length + 1);
    for (const partition of partitions) at = out.writeInt32BE(partition, at);
    out[at++] = 0;
  }
  at = writeUnsignedVarint(out, at, rack.length + 1);
  at += rack.copy(out, at);
  out[at++] = 0;
  if (at !== out.length) throw new Error(`Fetch by topic id: wrote ${at - headroom} bytes of ${size}`);
  return out;
}

/** An INT64 offset given as kafkajs gives it (decimal text); exact up to 2^53, as every offset is. */
function writeOffset(out: Buffer, at: number, offset: string): number {
  const n = Number(offset);
  if (n < 0) {
    out.writeInt32BE(-1, at);
    return out.writeInt32BE(-1, at + 4);
  }
  out.writeUInt32BE(Math.floor(n / 0x1_0000_0000), at);
  return out.writeUInt32BE(n >>> 0, at + 4);
}

/** A partition of the answer, as kafkajs's Fetch v11 response decodes one. */
export interface FetchedPartition {
  readonly partition: number;
  readonly errorCode: number;
  readonly highWatermark: string;
  readonly lastStableOffset: string;
  readonly lastStartOffset: string;
  readonly abortedTransactions: readonly { readonly producerId: string; readonly firstOffset: string }[];
  readonly preferredReadReplica: number;
  /** Set once the record set is decoded. */
  messages: { readonly offset: string }[];
}

export interface FetchByTopicIdResponse extends SessionFetchResponse {
  readonly throttleTime: number;
  readonly clientSideThrottleTime: number;
  readonly responses: { readonly topicName: string; readonly partitions: FetchedPartition[] }[];
}

/**
 * Decodes what kafkajs's connection hands over after the correlation id (the response header's
 * tagged fields, then the body) into kafkajs's v11 shape; topic ids become names through `ids`.
 */
export async function decodeFetchByTopicId(payload: Buffer, ids: TopicIds): Promise<FetchByTopicIdResponse> {
  const r = new CompactReader(payload, 'Fetch response');
  const policy = forwardPolicyOf(payload);
  r.skipTaggedFields();
  const clientSideThrottleTime = r.int32();
  const errorCode = r.int16();
  const sessionId = r.int32();
  const pending: Promise<unknown>[] = [];
  const responses: FetchByTopicIdResponse['responses'] = [];
  r.compactArray(() => {
    const id = r.uuid();
    const topicName = ids.nameOf(id) ?? '';
    const partitions = r.compactArray((): FetchedPartition => {
      const partition = r.int32();
      let partitionError = r.int16();
      const highWatermark = r.int64Text();
      const lastStableOffset = r.int64Text();
      const lastStartOffset = r.int64Text();
      const abortedTransactions = r.compactArray(() => {
        const aborted = { producerId: r.int64Text(), firstOffset: r.int64Text() };
        r.skipTaggedFields();
        return aborted;
      });
      const preferredReadReplica = r.int32();
      const size = r.uvarint() - 1;
      const records = size > 0 ? r.bytes(size) : undefined;
      r.skipTaggedFields();
      if (partitionError === UNKNOWN_TOPIC_ID || partitionError === INCONSISTENT_TOPIC_ID) {
        if (topicName !== '') ids.forget(topicName);
        partitionError = UNKNOWN_TOPIC_OR_PARTITION;
      }
      const fetched: FetchedPartition = {
        partition,
        errorCode: partitionError,
        highWatermark,
        lastStableOffset,
        lastStartOffset,
        abortedTransactions,
        preferredReadReplica,
        messages: [],
      };
      // Record sets decode side by side (their codecs decompress off the main thread), each into
      // its own partition, taken as decoded (never spread into a push: a partition's fetch can
      // hold more records than a call takes arguments, about 120,000 on Node 20).
      if (records !== undefined && topicName !== '')
        pending.push(
          decodeRecordSet(records, policy).then((messages) => {
            fetched.messages = messages as { readonly offset: string }[];
          }),
        );
      return fetched;
    });
    r.skipTaggedFields();
    // An id no longer known (forgotten after an error, its session held it still) was not asked
    // for by kafkajs: left out, and the session starts anew.
    if (topicName !== '') responses.push({ topicName, partitions });
    else ids.forgotten++;
  });
  r.skipTaggedFields();
  await Promise.all(pending);
  // kafkajs reports no throttle of its own for Fetch v11 either: the broker throttled, or asks the client to.
  return { throttleTime: 0, clientSideThrottleTime, errorCode, sessionId, responses };
}

/** A Fetch request by topic id in kafkajs's protocol shape, for a kafkajs broker's `send`: the body written behind the frame's room. */
export function fetchByTopicIdRequest(version: number, request: SessionFetchRequest, ids: TopicIds) {
  return flexibleRequest(
    { apiKey: kafkajsApiKeys().Fetch, apiVersion: version, apiName: 'Fetch' },
    (headroom) => ({ buffer: encodeFetchByTopicId(version, request, ids, headroom), headroom }),
    (payload) => decodeFetchByTopicId(payload, ids),
    (response) => kafkajsFetchResponseParse()(response),
  );
}

/** The topics of `request` (asked for or forgotten). */
export function topicsOf(request: FetchRequest & Partial<Pick<SessionFetchRequest, 'forgottenTopics'>>): string[] {
  const topics = request.topics.map(({ topic }) => topic);
  for (const { topic } of request.forgottenTopics ?? []) topics.push(topic);
  return topics;
}
