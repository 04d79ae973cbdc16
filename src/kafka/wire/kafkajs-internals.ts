/**
 * Typed handles on the few kafkajs internals that mirrorflow's wire codec builds on.
 * kafkajs 2.2.4 is pinned exactly; these paths are checked by the codec's tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import type { ISocketFactory } from 'kafkajs';

/** kafkajs's read cursor over a Buffer (protocol/decoder.js). */
export interface KafkajsDecoder {
  buffer: Buffer;
  offset: number;
  readInt8(): number;
  readVarInt(): number;
  readVarLong(): { toString(): string; toNumber(): number };
}

/** kafkajs's read cursor with the readers the fetch and produce response decoders use. */
export type KafkajsResponseDecoder = KafkajsDecoder & {
  readInt16(): number;
  readInt32(): number;
  readInt64(): { toString(): string };
  readString(): string;
  readArray<T>(read: (decoder: KafkajsResponseDecoder) => T): T[];
  canReadBytes(length: number): boolean;
  readBytes(length: number): Buffer;
};

/** The constructor of kafkajs's read cursor. */
export type KafkajsDecoderClass = new (buffer: Buffer) => KafkajsResponseDecoder;

export interface KafkajsCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

export const KAFKAJS_PATHS = {
  recordDecoder: 'kafkajs/src/protocol/recordBatch/record/v0/decoder',
  produceRequestV3: 'kafkajs/src/protocol/requests/produce/v3/request',
  groupMessagesPerPartition: 'kafkajs/src/producer/groupMessagesPerPartition',
  requestFrame: 'kafkajs/src/protocol/request',
  fetchDecodeMessages: 'kafkajs/src/protocol/requests/fetch/v4/decodeMessages',
  produceResponseV3: 'kafkajs/src/protocol/requests/produce/v3/response',
  filterAbortedMessages: 'kafkajs/src/consumer/filterAbortedMessages',
} as const;

/** kafkajs's error codes: whether a code is a failure, and its error (with `retriable`, `type`). */
export const kafkajsProtocolErrors = lazy(
  () =>
    require('kafkajs/src/protocol/error') as {
      failure: (code: number) => boolean;
      createErrorFromCode: (code: number) => Error & { retriable: boolean; type: string };
    },
);

/** kafkajs's decoder of one v2 record batch (records decoded through our record decoder). */
export type KafkajsRecordBatchDecoder = (decoder: KafkajsDecoder) => Promise<{ records: unknown[] }>;

/**
 * Loads a kafkajs module on first use and keeps it: these are called per request, and `require`
 * resolves the path (stat calls, package.json reads) every time even for a cached module. Loading
 * lazily keeps this file free of kafkajs imports, so install.ts can run before kafkajs loads.
 */
function lazy<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}

export const kafkajsFetchDecoding = lazy(() => ({
  Decoder: require('kafkajs/src/protocol/decoder') as KafkajsDecoderClass,
  decodeRecordBatch: require('kafkajs/src/protocol/recordBatch/v0/decoder') as KafkajsRecordBatchDecoder,
  decodeMessageSet: require('kafkajs/src/protocol/messageSet/decoder') as (decoder: KafkajsDecoder, size: number) => Promise<unknown[]>,
}));

export const kafkajsLookupCodec = lazy(
  () => (require('kafkajs/src/protocol/message/compression') as { lookupCodec: (type: number) => KafkajsCodec }).lookupCodec,
);

export const kafkajsApiKeys = lazy(() => require('kafkajs/src/protocol/requests/apiKeys') as { Produce: number; Fetch: number; Metadata: number });

/** kafkajs's connection class, whose `send` install.ts wraps (connection-behaviour.ts). */
export const KAFKAJS_CONNECTION = 'kafkajs/src/network/connection';

/** kafkajs's broker class, whose `fetch` install.ts wraps (fetch-ahead.ts). */
export const KAFKAJS_BROKER = 'kafkajs/src/broker';

/** kafkajs's consumer group class, whose `joinAndSync` install.ts wraps (group-join.ts). Loaded only after install.ts placed our modules. */
export const kafkajsConsumerGroup = lazy(() => require('kafkajs/src/consumer/consumerGroup') as { prototype: { joinAndSync(): Promise<void> } });

/** kafkajs's socket factory when a client is given none: plain TCP, or TLS with `ssl`. */
export const kafkajsDefaultSocketFactory = lazy(() => (require('kafkajs/src/network/socketFactory') as () => ISocketFactory)());
