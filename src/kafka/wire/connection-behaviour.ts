/**
 * What the connections of one kafkajs client do differently from kafkajs's: hand fetched record
 * batches over whole (fetch-decoder.ts) and report produce failures per partition
 * (produce-response.ts). A client gets its behaviour through its socket factory
 * (`withConnectionBehaviour`), the one object kafkajs passes unchanged to every connection it
 * opens for the client; `Connection.prototype.send`, wrapped by install.ts, looks the behaviour up
 * on the connection and gives the request a response decoder that applies it.
 *
 * Why not async context (AsyncLocalStorage, as before): on Node 20 it installs promise hooks that
 * run for every promise of the process, kafkajs's included, and give each one more properties to
 * allocate. At 5,000 records/s the hooks' own functions were 6% of a flow's busy time and their
 * allocations a sixth of its heap's; without them the flow used 8% less CPU.
 */
import type { ISocketFactory } from 'kafkajs';
import { forwardBatchesOf, type ForwardPolicy } from './fetch-decoder';
import { parsePartialProduceResponse } from './produce-response';
import { kafkajsApiKeys } from './kafkajs-internals';
import { gatherOnWrite } from './gathered-writes';

export interface ConnectionBehaviour {
  /** Fetch responses hand over whole record batches where this allows. */
  readonly forward?: ForwardPolicy;
  /** Produce responses report each partition's error code instead of throwing the first (produce-response.ts). */
  readonly partialProduceResults?: boolean;
  /** A consumer's next Fetch goes out while the last one's records are handed over (fetch-ahead.ts). */
  readonly fetchAhead?: boolean;
  /** A consumer's Fetch requests go in a fetch session: only what changed is sent and answered (fetch-session.ts). */
  readonly fetchSessions?: boolean;
  /** A consumer's Fetch of few partitions asks each for a share of this many bytes when that is more than its own size (shared-fetch-bytes.ts). */
  readonly sharedFetchBytes?: number;
}

/** A request as kafkajs's `Connection.send` takes it: the encoder and the response's decode and parse. */
export interface KafkajsProtocolRequest {
  readonly request: { readonly apiKey: number; encode?(headroom?: number, gather?: boolean): Promise<unknown> };
  readonly response: { decode(payload: Buffer): Promise<unknown>; parse(data: never): Promise<unknown> };
  readonly [option: string]: unknown;
}

const behaviours = new WeakMap<ISocketFactory, ConnectionBehaviour>();

/**
 * A socket factory like `socketFactory` whose connections have `behaviour`. Their sockets write
 * gathered frames (gathered-writes.ts), so their produce requests are written gathered.
 */
export function withConnectionBehaviour(socketFactory: ISocketFactory, behaviour: ConnectionBehaviour): ISocketFactory {
  const tagged: ISocketFactory = (options) => gatherOnWrite(socketFactory(options));
  behaviours.set(tagged, behaviour);
  return tagged;
}

/** The behaviour of the connections a socket factory opens; undefined: kafkajs's own. */
export function connectionBehaviour(socketFactory: ISocketFactory | undefined): ConnectionBehaviour | undefined {
  return socketFactory === undefined ? undefined : behaviours.get(socketFactory);
}

/** `protocol` as a connection with `behaviour` sends it: the same request, a response decoded and parsed accordingly. */
export function withBehaviour<P extends KafkajsProtocolRequest>(behaviour: ConnectionBehaviour | undefined, protocol: P): P {
  if (behaviour === undefined) return protocol;
  const { Fetch, Produce } = kafkajsApiKeys();
  const { response } = protocol;
  const { forward } = behaviour;
  if (forward !== undefined && protocol.request.apiKey === Fetch) {
    return {
      ...protocol,
      response: {
        decode: (payload: Buffer) => {
          forwardBatchesOf(payload, forward);
          return response.decode(payload);
        },
        parse: response.parse,
      },
    };
  }
  if (protocol.request.apiKey === Produce) {
    const { request } = protocol;
    // This connection's socket came from a factory of `withConnectionBehaviour`: it writes gathered frames.
    const gathered = request.encode === undefined ? request : { ...request, encode: (headroom?: number) => request.encode!(headroom, true) };
    const parsed = behaviour.partialProduceResults === true ? { response: { decode: response.decode, parse: parsePartialProduceResponse } } : {};
    return { ...protocol, request: gathered, ...parsed };
  }
  return protocol;
}
