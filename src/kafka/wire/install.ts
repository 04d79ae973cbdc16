/**
 * Checks that kafkajs's bundle has mirrorflow's record codec, fetch decoder, read_committed filter
 * and produce encoder (and a linear message grouping, a consumer's worker queue taken by index, a
 * Metadata answer sharing its replica lists) in place of kafkajs's own, then wraps
 * kafkajs's `Connection.send` and `Broker.fetch` so that a client's connections behave as its
 * socket factory says (connection-behaviour.ts, fetch-ahead.ts, fetch-session.ts with
 * fetch-by-topic-id.ts, empty-partitions.ts, shared-fetch-bytes.ts), `Broker.disconnect` to close a fetch session, the
 * Broker methods of forwarded admin requests to wait until the broker takes them
 * (forwarded-apis.ts), `ConsumerGroup.joinAndSync` for the consumer group hooks (group-join.ts),
 * and `RequestQueue.scheduleCheckPendingRequests` to check only while a request waits
 * (pending-check.ts); and replaces the consumer's two lookups of every fetch round by indexed ones
 * (partition-lookups.ts).
 *
 * kafkajs binds its record decoder and produce request modules with `require` at load time, so
 * ours are put in its place when its bundle is built (scripts/bundle-vendor.mjs, from
 * `KAFKAJS_REPLACEMENTS`): the bundle's `require` of those paths is a `require` of ours.
 * `src/kafka/kafkajs.ts` imports this module before it re-exports kafkajs, so no client exists
 * before the wrappers are in place.
 */
import type { ISocketFactory } from 'kafkajs';
import { decodeRecord } from './record-decoder';
import { produceRequestV3 } from './produce-request';
import { groupMessagesPerPartition } from './group-messages-per-partition';
import { frameRequest } from './request-frame';
import { decodeMessages } from './fetch-decoder';
import { produceResponseV3 } from './produce-response';
import { filterAbortedMessages } from './filter-aborted-messages';
import { createWorkerQueue } from './worker-queue';
import { metadataResponseV5 } from './metadata-response';
import {
  KAFKAJS_BROKER,
  KAFKAJS_CLUSTER,
  KAFKAJS_CONNECTION,
  KAFKAJS_ERRORS,
  KAFKAJS_PATHS,
  KAFKAJS_REQUEST_QUEUE,
  kafkajsApiKeys,
  kafkajsConsumerGroup,
  kafkajsInternal,
} from './kafkajs-internals';
import { FetchAhead, type FetchAheadCounts, type FetchRequest, type FetchResponse } from './fetch-ahead';
import { FetchSession, type FetchSessionCounts } from './fetch-session';
import { withSharedFetchBytes } from './shared-fetch-bytes';
import { fetchByTopicIdRequest, fetchByTopicIdVersion, TopicIds, topicsOf, type FetchByTopicIdResponse } from './fetch-by-topic-id';
import { metadataV12Request } from './metadata-v12';
import { connectionBehaviour, withBehaviour, type ConnectionBehaviour, type KafkajsProtocolRequest } from './connection-behaviour';
import { installGroupJoinHook } from './group-join';
import { withoutEmptyPartitions } from './empty-partitions';
import { FORWARDING_BROKER_METHODS, notOfferedReason, untilOffered, type ApiVersionRanges, type VersionedBroker } from './forwarded-apis';
import { checkOnlyWhenPending, type KafkajsRequestQueue } from './pending-check';
import {
  readReplicaForPartitions,
  topicPartitionMetadata,
  type ClusterMetadata,
  type InvalidMetadataError,
  type PartitionMetadata,
  type ReadReplicaGroup,
} from './partition-lookups';

/** Ours, by the key of `KAFKAJS_PATHS` each stands in for. */
export const KAFKAJS_REPLACED: Readonly<Record<keyof typeof KAFKAJS_PATHS, unknown>> = {
  recordDecoder: decodeRecord,
  produceRequestV3,
  groupMessagesPerPartition,
  requestFrame: frameRequest,
  fetchDecodeMessages: decodeMessages,
  produceResponseV3,
  filterAbortedMessages,
  workerQueue: createWorkerQueue,
  metadataResponseV5,
};

for (const [name, path] of Object.entries(KAFKAJS_PATHS) as [keyof typeof KAFKAJS_PATHS, string][]) {
  if (kafkajsInternal(path) !== KAFKAJS_REPLACED[name])
    throw new Error(
      `kafkajs's bundle (dist/src/vendor/kafkajs-bundle.code.js) has kafkajs's own ${path}, not mirrorflow's ${name}: build it again with \`npm run build\`.`,
    );
}

interface KafkajsConnection {
  readonly socketFactory?: ISocketFactory;
  /** What was read of the next response: kafkajs joins these when they are more than one. */
  chunks: Buffer[];
}
type Send = (this: KafkajsConnection, protocol: KafkajsProtocolRequest) => Promise<unknown>;
type ProcessData = (this: KafkajsConnection, rawData: Buffer) => void;

const Connection = (kafkajsInternal(KAFKAJS_CONNECTION) as { prototype: { send: Send; processData: ProcessData } }).prototype;
const send = Connection.send;
Connection.send = function sendWithBehaviour(this: KafkajsConnection, protocol: KafkajsProtocolRequest): Promise<unknown> {
  return send.call(this, withBehaviour(connectionBehaviour(this.socketFactory), protocol));
};

// After each response kafkajs keeps what followed it as its chunk list, an empty buffer when
// nothing did, so the next response's reads are always more than one chunk and joined by
// `Buffer.concat`: every response after the first was copied once more, even one that arrived
// whole (as every response does on the sockets of framed-reads.ts). Dropping the empty
// remainder lets a response read whole be taken as it is.
const processData = Connection.processData;
Connection.processData = function processDataWithoutEmptyRemainder(this: KafkajsConnection, rawData: Buffer): void {
  if (this.chunks.length === 1 && this.chunks[0]!.length === 0) this.chunks = [];
  processData.call(this, rawData);
};

interface KafkajsBroker {
  readonly connectionPool?: { readonly socketFactory?: ISocketFactory };
  /** The broker's API versions by key, once connected. */
  readonly versions?: ApiVersionRanges | null;
  /** `host:port`. */
  readonly brokerAddress?: string;
}
type BrokerFetch = (this: KafkajsBroker, request: FetchRequest) => Promise<FetchResponse>;
type BrokerDisconnect = (this: KafkajsBroker) => Promise<void>;
type SendRequest = (this: KafkajsBroker, request: KafkajsProtocolRequest) => Promise<unknown>;

// A broker object is its client's: kafkajs makes one per broker for each client (and anew after a
// reconnect), so what is fetched ahead, and a fetch session, stay with the consumer that uses them.
const Broker = (kafkajsInternal(KAFKAJS_BROKER) as { prototype: { fetch: BrokerFetch; disconnect: BrokerDisconnect } }).prototype;
const brokerFetch = Broker.fetch;
const brokerDisconnect = Broker.disconnect;
// kafkajs's Broker sends its requests through this private method (it drops the connection when
// the request found it closed); a session's Fetch and its topic id lookups go the same way.
const SEND_REQUEST = Object.getOwnPropertySymbols(Broker).find((symbol) => symbol.description === 'private:Broker:sendRequest');
if (SEND_REQUEST === undefined) throw new Error("kafkajs's Broker has no 'private:Broker:sendRequest' method: fetch sessions cannot be sent.");
const sendRequest = (Broker as unknown as Record<symbol, SendRequest>)[SEND_REQUEST]!;
/** Sends `request` (ours, in kafkajs's protocol shape) as `broker` sends its own. */
function sendOurs<T>(broker: KafkajsBroker, request: KafkajsProtocolRequest & { readonly response: { parse(data: never): Promise<T> } }): Promise<T> {
  return sendRequest.call(broker, request) as Promise<T>;
}

const fetchingAhead = new WeakMap<KafkajsBroker, FetchAhead<FetchResponse>>();
const fetchAheadCounts: FetchAheadCounts = { sent: 0, used: 0, dropped: 0 };
/** The topic ids a client learned, shared by its brokers' sessions (a client's connections share one behaviour). */
const topicIdsOf = new WeakMap<ConnectionBehaviour, TopicIds>();
/** Each broker's fetch session, and how many ids its client had forgotten when the session last went out. */
const fetchSessions = new WeakMap<KafkajsBroker, { readonly session: FetchSession<FetchByTopicIdResponse>; forgotten: number }>();
const fetchSessionCounts: FetchSessionCounts = { full: 0, incremental: 0, lost: 0, closed: 0 };
/** Fetches whose partitions asked for a share of a larger size than kafkajs's (shared-fetch-bytes.ts). */
const sharedFetchCounts = { widened: 0 };

/**
 * One Fetch to `broker`: in its fetch session, by topic id (fetch-by-topic-id.ts), when the
 * client's connections ask for sessions and the broker has Fetch v13; as kafkajs sends it
 * otherwise, and for a request naming a topic the broker gives no id for (deleted meanwhile).
 */
async function fetchOnce(broker: KafkajsBroker, request: FetchRequest, behaviour: ConnectionBehaviour | undefined): Promise<FetchResponse> {
  if (behaviour?.fetchSessions !== true) return brokerFetch.call(broker, request);
  const version = fetchByTopicIdVersion(broker.versions?.[kafkajsApiKeys().Fetch]?.maxVersion);
  if (version === undefined) return brokerFetch.call(broker, request);
  let ids = topicIdsOf.get(behaviour);
  if (ids === undefined) topicIdsOf.set(behaviour, (ids = new TopicIds()));
  const lookup = (unknown: readonly string[]) => sendOurs(broker, metadataV12Request(unknown));
  const topics = request.topics.map(({ topic }) => topic);
  if (ids.unknown(topics).length > 0) {
    await ids.learn(topics, lookup);
    if (ids.unknown(topics).length > 0) return brokerFetch.call(broker, request);
  }
  const known = ids;
  let held = fetchSessions.get(broker);
  if (held === undefined) {
    const session = new FetchSession(async (wire) => {
      // An id forgotten while this request waited for its turn (another broker's answer): looked up again.
      const unknown = known.unknown(topicsOf(wire));
      if (unknown.length > 0) await known.learn(unknown, lookup);
      return sendOurs(broker, fetchByTopicIdRequest(version, wire, known));
    }, fetchSessionCounts);
    held = { session, forgotten: ids.forgotten };
    fetchSessions.set(broker, held);
  }
  // An id forgotten since (a topic deleted, or created again under its name): the broker may hold
  // it in the session, so the session starts anew, every partition by its id as now known.
  if (held.forgotten !== ids.forgotten) {
    held.forgotten = ids.forgotten;
    held.session.restart();
  }
  return held.session.fetch(request);
}

Broker.fetch = function fetchWithBehaviour(this: KafkajsBroker, asked: FetchRequest): Promise<FetchResponse> {
  const behaviour = connectionBehaviour(this.connectionPool?.socketFactory);
  const shared = behaviour?.sharedFetchBytes;
  const request = shared === undefined ? asked : withSharedFetchBytes(asked, shared);
  if (request !== asked) sharedFetchCounts.widened++;
  if (behaviour?.fetchAhead !== true) return fetchOnce(this, request, behaviour);
  let ahead = fetchingAhead.get(this);
  if (ahead === undefined) {
    ahead = new FetchAhead((next) => fetchOnce(this, next, behaviour), fetchAheadCounts);
    fetchingAhead.set(this, ahead);
  }
  // kafkajs's consumer does nothing with a partition that brought nothing but make it a Batch (empty-partitions.ts).
  return ahead.fetch(request).then(withoutEmptyPartitions);
};

/** How long a disconnect waits for its broker to close the fetch session, at most (a broker down would make it wait out a request timeout). */
const CLOSE_SESSION_WAIT_MS = 1000;

// A consumer's disconnect (its stop, a rebalance's reconnect) closes its fetch sessions first.
Broker.disconnect = async function disconnectClosingSession(this: KafkajsBroker): Promise<void> {
  const held = fetchSessions.get(this);
  if (held !== undefined) {
    fetchSessions.delete(this);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_SESSION_WAIT_MS)));
    await Promise.race([held.session.close().catch(() => undefined), waited]);
    clearTimeout(timer);
  }
  return brokerDisconnect.call(this);
};

// A request the broker forwards to its controller goes out once the broker says it takes it
// (forwarded-apis.ts): kafkajs keeps the versions of a client's first connection for good.
type BrokerMethod = (this: KafkajsBroker & VersionedBroker, ...args: unknown[]) => Promise<unknown>;
const BrokerMethods = Broker as unknown as Record<string, BrokerMethod>;
for (const [method, api] of Object.entries(FORWARDING_BROKER_METHODS)) {
  const forward = BrokerMethods[method];
  if (typeof forward !== 'function') throw new Error(`kafkajs's Broker has no ${method}(): forwarded requests cannot wait for their broker.`);
  BrokerMethods[method] = async function forwardOnceOffered(...args) {
    const { offered, asked } = await untilOffered(this, api);
    try {
      return await forward.apply(this, args);
    } catch (error) {
      if (!offered && asked > 0 && error instanceof Error && error.name === 'KafkaJSServerDoesNotSupportApiKey') {
        error.message = `${error.message}: ${notOfferedReason(api, this.brokerAddress ?? 'the broker')}`;
      }
      throw error;
    }
  };
}

installGroupJoinHook();

// A connection's request queue arms its timer to check pending requests only while one waits (pending-check.ts).
const RequestQueue = (kafkajsInternal(KAFKAJS_REQUEST_QUEUE) as { prototype: KafkajsRequestQueue }).prototype;
RequestQueue.scheduleCheckPendingRequests = checkOnlyWhenPending(RequestQueue.scheduleCheckPendingRequests);

// A consumer's fetch round finds its topics and partitions in indexes, not by search (partition-lookups.ts).
type FindTopicPartitionMetadata = (
  this: { readonly brokerPool: { readonly metadata?: ClusterMetadata | null } },
  topic: string,
) => readonly PartitionMetadata[];
const Cluster = (kafkajsInternal(KAFKAJS_CLUSTER) as { prototype: { findTopicPartitionMetadata: FindTopicPartitionMetadata } }).prototype;
const findTopicPartitionMetadata = Cluster.findTopicPartitionMetadata;
Cluster.findTopicPartitionMetadata = function indexedTopicPartitionMetadata(topic) {
  const { metadata } = this.brokerPool;
  // No metadata yet: kafkajs's own throws its KafkaJSTopicMetadataNotLoaded.
  if (!metadata?.topicMetadata) return findTopicPartitionMetadata.call(this, topic);
  return topicPartitionMetadata(metadata, topic);
};
const { KafkaJSError } = kafkajsInternal(KAFKAJS_ERRORS) as { KafkaJSError: InvalidMetadataError };
const ConsumerGroup = kafkajsConsumerGroup().prototype;
const findReadReplicaForPartitions = ConsumerGroup.findReadReplicaForPartitions;
ConsumerGroup.findReadReplicaForPartitions = function indexedReadReplicas(this: ReadReplicaGroup, topic, partitions) {
  return readReplicaForPartitions(this, KafkaJSError, topic, partitions);
};

/** kafkajs's own lookups that install.ts replaced, for partition-lookups.spec.ts to compare ours with. */
export const KAFKAJS_OWN_LOOKUPS = { findTopicPartitionMetadata, findReadReplicaForPartitions, KafkaJSError } as const;

/** What fetching ahead did in this process so far, every consumer together (specs, integration tests). */
export function fetchAheadTotals(): FetchAheadCounts {
  return { ...fetchAheadCounts };
}

/** What fetch sessions did in this process so far, every consumer together (specs, integration tests). */
export function fetchSessionTotals(): FetchSessionCounts {
  return { ...fetchSessionCounts };
}

/** How many Fetches asked for a shared larger size in this process so far, every consumer together (integration tests). */
export function sharedFetchTotals(): { readonly widened: number } {
  return { ...sharedFetchCounts };
}
