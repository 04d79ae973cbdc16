/**
 * Puts mirrorflow's record codec, fetch decoder, read_committed filter and produce encoder (and a
 * linear message grouping) in place of kafkajs's before kafkajs is first loaded, then wraps
 * kafkajs's `Connection.send` and `Broker.fetch` so that a client's connections behave as its
 * socket factory says (connection-behaviour.ts, fetch-ahead.ts), and `ConsumerGroup.joinAndSync`
 * for the consumer group hooks (group-join.ts).
 *
 * kafkajs binds its record decoder and produce request modules with `require` at load time, so
 * the replacement has to sit in the module cache first. `src/kafka/kafkajs.ts` imports this
 * module before kafkajs; loading kafkajs any other way first is a programming error, caught here.
 */
import Module from 'node:module';
import type { ISocketFactory } from 'kafkajs';
import { decodeRecord } from './record-decoder';
import { produceRequestV3 } from './produce-request';
import { groupMessagesPerPartition } from './group-messages-per-partition';
import { frameRequest } from './request-frame';
import { decodeMessages } from './fetch-decoder';
import { produceResponseV3 } from './produce-response';
import { filterAbortedMessages } from './filter-aborted-messages';
import { KAFKAJS_BROKER, KAFKAJS_CONNECTION, KAFKAJS_PATHS } from './kafkajs-internals';
import { FetchAhead, type FetchAheadCounts, type FetchRequest, type FetchResponse } from './fetch-ahead';
import { connectionBehaviour, withBehaviour, type KafkajsProtocolRequest } from './connection-behaviour';
import { installGroupJoinHook } from './group-join';

function preload(request: string, exports: unknown): void {
  const filename = require.resolve(request);
  const cached = require.cache[filename];
  if (cached) {
    if (cached.exports === exports) return;
    throw new Error(`kafkajs module ${request} was loaded before mirrorflow's codec was installed; import kafkajs only through src/kafka/kafkajs.ts.`);
  }
  const module = new Module(filename, undefined);
  module.filename = filename;
  module.loaded = true;
  module.exports = exports;
  require.cache[filename] = module;
}

preload(KAFKAJS_PATHS.recordDecoder, decodeRecord);
preload(KAFKAJS_PATHS.produceRequestV3, produceRequestV3);
preload(KAFKAJS_PATHS.groupMessagesPerPartition, groupMessagesPerPartition);
preload(KAFKAJS_PATHS.requestFrame, frameRequest);
preload(KAFKAJS_PATHS.fetchDecodeMessages, decodeMessages);
preload(KAFKAJS_PATHS.produceResponseV3, produceResponseV3);
preload(KAFKAJS_PATHS.filterAbortedMessages, filterAbortedMessages);

interface KafkajsConnection {
  readonly socketFactory?: ISocketFactory;
}
type Send = (this: KafkajsConnection, protocol: KafkajsProtocolRequest) => Promise<unknown>;

// Loaded only now: connection.js binds the request framing above at load time.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Connection = (require(KAFKAJS_CONNECTION) as { prototype: { send: Send } }).prototype;
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
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Broker = (require(KAFKAJS_BROKER) as { prototype: { fetch: BrokerFetch } }).prototype;
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
  return ahead.fetch(request);
};

// After the modules above are in place: the consumer group loads kafkajs's protocol modules.
installGroupJoinHook();

/** What fetching ahead did in this process so far, every consumer together (specs, integration tests). */
export function fetchAheadTotals(): FetchAheadCounts {
  return { ...fetchAheadCounts };
}
