/**
 * Checks that kafkajs's bundle has mirrorflow's record codec, fetch decoder, read_committed filter
 * and produce encoder (and a linear message grouping, a consumer's worker queue taken by index) in
 * place of kafkajs's own, then wraps
 * kafkajs's `Connection.send` and `Broker.fetch` so that a client's connections behave as its
 * socket factory says (connection-behaviour.ts, fetch-ahead.ts, empty-partitions.ts), and `ConsumerGroup.joinAndSync`
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
import { createWorkerQueue } from './worker-queue';
import { KAFKAJS_BROKER, KAFKAJS_CONNECTION, KAFKAJS_PATHS, kafkajsInternal } from './kafkajs-internals';
import { FetchAhead, type FetchAheadCounts, type FetchRequest, type FetchResponse } from './fetch-ahead';
import { connectionBehaviour, withBehaviour, type KafkajsProtocolRequest } from './connection-behaviour';
import { installGroupJoinHook } from './group-join';
import { withoutEmptyPartitions } from './empty-partitions';

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

interface KafkajsBroker {
  readonly connectionPool?: { readonly socketFactory?: ISocketFactory };
}
type BrokerFetch = (this: KafkajsBroker, request: FetchRequest) => Promise<FetchResponse>;

// A broker object is its client's: kafkajs makes one per broker for each client (and anew after a
// reconnect), so what is fetched ahead stays with the consumer that will ask for it.
const Broker = (kafkajsInternal(KAFKAJS_BROKER) as { prototype: { fetch: BrokerFetch } }).prototype;
const brokerFetch = Broker.fetch;
const fetchingAhead = new WeakMap<KafkajsBroker, FetchAhead<FetchResponse>>();
const fetchAheadCounts: FetchAheadCounts = { sent: 0, used: 0, dropped: 0 };
Broker.fetch = function fetchWithBehaviour(this: KafkajsBroker, request: FetchRequest): Promise<FetchResponse> {
  if (connectionBehaviour(this.connectionPool?.socketFactory)?.fetchAhead !== true) return brokerFetch.call(this, request);
  let ahead = fetchingAhead.get(this);
  if (ahead === undefined) {
    ahead = new FetchAhead((next) => brokerFetch.call(this, next), fetchAheadCounts);
    fetchingAhead.set(this, ahead);
  }
  // kafkajs's consumer does nothing with a partition that brought nothing but make it a Batch (empty-partitions.ts).
  return ahead.fetch(request).then(withoutEmptyPartitions);
};

installGroupJoinHook();

/** What fetching ahead did in this process so far, every consumer together (specs, integration tests). */
export function fetchAheadTotals(): FetchAheadCounts {
  return { ...fetchAheadCounts };
}
