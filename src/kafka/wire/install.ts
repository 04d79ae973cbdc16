/**
 * Checks that kafkajs's bundle has mirrorflow's record codec, fetch decoder, read_committed filter
 * and produce encoder (and a linear message grouping) in place of kafkajs's own, then wraps
 * kafkajs's `Connection.send` and `Broker.fetch` so that a client's connections behave as its
 * socket factory says (connection-behaviour.ts, fetch-ahead.ts), and `ConsumerGroup.joinAndSync`
 * for the consumer group hooks (group-join.ts).
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
import { KAFKAJS_BROKER, KAFKAJS_CONNECTION, KAFKAJS_FETCH_REQUESTS, KAFKAJS_PATHS, kafkajsApiKeys, kafkajsInternal } from './kafkajs-internals';
import { FetchAhead, type FetchAheadCounts, type FetchRequest, type FetchResponse } from './fetch-ahead';
import { FetchSession, type FetchSessionCounts, type SessionFetchRequest, type SessionFetchResponse } from './fetch-session';
import { connectionBehaviour, withBehaviour, type KafkajsProtocolRequest } from './connection-behaviour';
import { installGroupJoinHook } from './group-join';

/** Ours, by the key of `KAFKAJS_PATHS` each stands in for. */
export const KAFKAJS_REPLACED: Readonly<Record<keyof typeof KAFKAJS_PATHS, unknown>> = {
  recordDecoder: decodeRecord,
  produceRequestV3,
  groupMessagesPerPartition,
  requestFrame: frameRequest,
  fetchDecodeMessages: decodeMessages,
  produceResponseV3,
  filterAbortedMessages,
};

for (const [name, path] of Object.entries(KAFKAJS_PATHS) as [keyof typeof KAFKAJS_PATHS, string][]) {
  if (kafkajsInternal(path) !== KAFKAJS_REPLACED[name])
    throw new Error(
      `kafkajs's bundle (dist/src/vendor/kafkajs-bundle.code.js) has kafkajs's own ${path}, not mirrorflow's ${name}: build it again with \`npm run build\`.`,
    );
}

interface KafkajsConnection {
  readonly socketFactory?: ISocketFactory;
}
type Send = (this: KafkajsConnection, protocol: KafkajsProtocolRequest) => Promise<unknown>;

const Connection = (kafkajsInternal(KAFKAJS_CONNECTION) as { prototype: { send: Send } }).prototype;
const send = Connection.send;
Connection.send = function sendWithBehaviour(this: KafkajsConnection, protocol: KafkajsProtocolRequest): Promise<unknown> {
  return send.call(this, withBehaviour(connectionBehaviour(this.socketFactory), protocol));
};

/** The Fetch request builder kafkajs's broker picked for its negotiated version, and what it builds. */
type FetchBuilder = (request: SessionFetchRequest) => { readonly request: { readonly apiVersion: number } };

interface KafkajsBroker {
  readonly connectionPool?: { readonly socketFactory?: ISocketFactory };
  lookupRequest(apiKey: number, definitions: unknown): FetchBuilder;
}
type BrokerFetch = (this: KafkajsBroker, request: FetchRequest) => Promise<FetchResponse>;

// A broker object is its client's: kafkajs makes one per broker for each client (and anew after a
// reconnect), so what is fetched ahead, and a fetch session, stay with the consumer that uses them.
const Broker = (kafkajsInternal(KAFKAJS_BROKER) as { prototype: { fetch: BrokerFetch } }).prototype;
const brokerFetch = Broker.fetch;
// kafkajs's Broker sends its requests through this private method (it drops the connection when
// the request found it closed); a session's Fetch goes the same way.
const SEND_REQUEST = Object.getOwnPropertySymbols(Broker).find((symbol) => symbol.description === 'private:Broker:sendRequest');
if (SEND_REQUEST === undefined) throw new Error("kafkajs's Broker has no 'private:Broker:sendRequest' method: fetch sessions cannot be sent.");
const sendRequest = SEND_REQUEST;
/** The oldest Fetch version with sessions. */
const FETCH_SESSION_VERSION = 7;

const fetchingAhead = new WeakMap<KafkajsBroker, FetchAhead<FetchResponse>>();
const fetchAheadCounts: FetchAheadCounts = { sent: 0, used: 0, dropped: 0 };
/** Each broker's fetch session; null: the broker's Fetch is too old for sessions. */
const fetchSessions = new WeakMap<KafkajsBroker, FetchSession<SessionFetchResponse> | null>();
const fetchSessionCounts: FetchSessionCounts = { full: 0, incremental: 0, lost: 0 };

/** One Fetch to `broker`: in its fetch session when its connections ask for one and it has them, as kafkajs sends it otherwise. */
function fetchOnce(broker: KafkajsBroker, request: FetchRequest, sessions: boolean): Promise<FetchResponse> {
  if (!sessions) return brokerFetch.call(broker, request);
  let session = fetchSessions.get(broker);
  if (session === undefined) {
    const build = broker.lookupRequest(kafkajsApiKeys().Fetch, kafkajsInternal(KAFKAJS_FETCH_REQUESTS));
    const send = (broker as unknown as Record<symbol, (this: KafkajsBroker, request: unknown) => Promise<SessionFetchResponse>>)[sendRequest]!;
    // The version is the broker's and kafkajs's highest in common; a probe build says which.
    const probe = build({ topics: [], sessionId: 0, sessionEpoch: -1, forgottenTopics: [] });
    session = probe.request.apiVersion < FETCH_SESSION_VERSION ? null : new FetchSession((wire) => send.call(broker, build(wire)), fetchSessionCounts);
    fetchSessions.set(broker, session);
  }
  return session === null ? brokerFetch.call(broker, request) : session.fetch(request);
}

Broker.fetch = function fetchWithBehaviour(this: KafkajsBroker, request: FetchRequest): Promise<FetchResponse> {
  const behaviour = connectionBehaviour(this.connectionPool?.socketFactory);
  const sessions = behaviour?.fetchSessions === true;
  if (behaviour?.fetchAhead !== true) return fetchOnce(this, request, sessions);
  let ahead = fetchingAhead.get(this);
  if (ahead === undefined) {
    ahead = new FetchAhead((next) => fetchOnce(this, next, sessions), fetchAheadCounts);
    fetchingAhead.set(this, ahead);
  }
  return ahead.fetch(request);
};

installGroupJoinHook();

/** What fetching ahead did in this process so far, every consumer together (specs, integration tests). */
export function fetchAheadTotals(): FetchAheadCounts {
  return { ...fetchAheadCounts };
}

/** What fetch sessions did in this process so far, every consumer together (specs, integration tests). */
export function fetchSessionTotals(): FetchSessionCounts {
  return { ...fetchSessionCounts };
}
