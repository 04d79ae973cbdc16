/**
 * Typed handles on the few kafkajs internals that mirrorflow's wire codec builds on.
 * kafkajs 2.2.4 is pinned exactly; these paths are checked by the codec's tests.
 *
 * kafkajs runs as one bundled file (scripts/bundle-vendor.mjs, issue 42 item 9): its private
 * modules are reached through the bundle (`kafkajsInternal`), never as files of the package, and
 * the nine of `KAFKAJS_PATHS` are ours inside the bundle, put there when it is built.
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
  workerQueue: 'kafkajs/src/consumer/workerQueue',
  metadataResponseV5: 'kafkajs/src/protocol/requests/metadata/v5/response',
} as const;

/**
 * What stands for each module of `KAFKAJS_PATHS` in the kafkajs bundle: the file in this folder
 * and the export of it that kafkajs's `require` gets. scripts/bundle-vendor.mjs reads this table.
 */
export const KAFKAJS_REPLACEMENTS: Readonly<Record<keyof typeof KAFKAJS_PATHS, { readonly file: string; readonly export: string }>> = {
  recordDecoder: { file: 'record-decoder', export: 'decodeRecord' },
  produceRequestV3: { file: 'produce-request', export: 'produceRequestV3' },
  groupMessagesPerPartition: { file: 'group-messages-per-partition', export: 'groupMessagesPerPartition' },
  requestFrame: { file: 'request-frame', export: 'frameRequest' },
  fetchDecodeMessages: { file: 'fetch-decoder', export: 'decodeMessages' },
  produceResponseV3: { file: 'produce-response', export: 'produceResponseV3' },
  filterAbortedMessages: { file: 'filter-aborted-messages', export: 'filterAbortedMessages' },
  workerQueue: { file: 'worker-queue', export: 'createWorkerQueue' },
  metadataResponseV5: { file: 'metadata-response', export: 'metadataResponseV5' },
};

/** kafkajs's connection class, whose `send` install.ts wraps (connection-behaviour.ts). */
export const KAFKAJS_CONNECTION = 'kafkajs/src/network/connection';

/** kafkajs's broker class, whose `fetch` install.ts wraps (fetch-ahead.ts). */
export const KAFKAJS_BROKER = 'kafkajs/src/broker';

/** kafkajs's request queue of a connection, whose pending-request timer install.ts arms only while one waits (pending-check.ts). */
export const KAFKAJS_REQUEST_QUEUE = 'kafkajs/src/network/requestQueue';

/** kafkajs's cluster class, whose topic lookup install.ts replaces by an indexed one (partition-lookups.ts). */
export const KAFKAJS_CLUSTER = 'kafkajs/src/cluster';

/** kafkajs's v0 Metadata response, whose `parse` the later versions share (metadata-response.ts calls it). */
export const KAFKAJS_METADATA_V0_RESPONSE = 'kafkajs/src/protocol/requests/metadata/v0/response';

/** kafkajs's error classes (`KafkaJSError`, which a partition without a leader throws in the read replica lookup). */
export const KAFKAJS_ERRORS = 'kafkajs/src/errors';

/**
 * Every private module of kafkajs that mirrorflow or its specs read, which the bundle therefore
 * exposes by its path (scripts/bundle-vendor.mjs reads this list): the replaced ones, the wrapped
 * classes, the handles below, and what tripwire.spec.ts and the wire's specs decode with.
 */
export const KAFKAJS_INTERNAL_MODULES: readonly string[] = [
  ...Object.values(KAFKAJS_PATHS),
  KAFKAJS_CONNECTION,
  KAFKAJS_BROKER,
  KAFKAJS_REQUEST_QUEUE,
  KAFKAJS_CLUSTER,
  KAFKAJS_ERRORS,
  KAFKAJS_METADATA_V0_RESPONSE,
  'kafkajs/src/consumer/consumerGroup',
  'kafkajs/src/protocol/error',
  'kafkajs/src/protocol/decoder',
  'kafkajs/src/protocol/recordBatch/v0/decoder',
  'kafkajs/src/protocol/messageSet/decoder',
  'kafkajs/src/protocol/message/compression',
  'kafkajs/src/protocol/requests/apiKeys',
  'kafkajs/src/network/socketFactory',
  'kafkajs/src/protocol/requests/fetch/v11/response',
  // Read by the specs only.
  'kafkajs/src/protocol/requests/metadata/v6/response',
  'kafkajs/src/network/connectionPool',
  'kafkajs/src/protocol/coordinatorTypes',
  'kafkajs/src/protocol/requests/produce/v7/response',
  'kafkajs/src/consumer/batch',
  'kafkajs/src/consumer/worker',
  'kafkajs/src/consumer/fetchManager',
  'kafkajs/src/loggers',
];

/**
 * The module of kafkajs's bundle at `path` (one of `KAFKAJS_INTERNAL_MODULES`): the same object
 * kafkajs's own code got from its `require`. A path the bundle does not expose throws.
 */
export function kafkajsInternal(path: string): unknown {
  return (require('#kafkajs-internal') as (path: string) => unknown)(path);
}

/** kafkajs's error codes: whether a code is a failure, and its error (with `retriable`, `type`). */
export const kafkajsProtocolErrors = lazy(
  () =>
    kafkajsInternal('kafkajs/src/protocol/error') as {
      failure: (code: number) => boolean;
      createErrorFromCode: (code: number) => Error & { retriable: boolean; type: string };
    },
);

/** kafkajs's decoder of one v2 record batch (records decoded through our record decoder). */
export type KafkajsRecordBatchDecoder = (decoder: KafkajsDecoder) => Promise<{ records: unknown[] }>;

/**
 * Loads a kafkajs module on first use and keeps it: these are called per request. Loading lazily
 * keeps this file from loading kafkajs's bundle, which itself loads the modules of this folder
 * that stand for kafkajs's (and import this file) while it is being loaded.
 */
function lazy<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}

export const kafkajsFetchDecoding = lazy(() => ({
  Decoder: kafkajsInternal('kafkajs/src/protocol/decoder') as KafkajsDecoderClass,
  decodeRecordBatch: kafkajsInternal('kafkajs/src/protocol/recordBatch/v0/decoder') as KafkajsRecordBatchDecoder,
  decodeMessageSet: kafkajsInternal('kafkajs/src/protocol/messageSet/decoder') as (decoder: KafkajsDecoder, size: number) => Promise<unknown[]>,
}));

export const kafkajsLookupCodec = lazy(
  () => (kafkajsInternal('kafkajs/src/protocol/message/compression') as { lookupCodec: (type: number) => KafkajsCodec }).lookupCodec,
);

/** The API keys of kafkajs's table (protocol/requests/apiKeys.js) that mirrorflow names. */
export interface KafkajsApiKeys {
  readonly Produce: number;
  readonly Fetch: number;
  readonly Metadata: number;
  readonly CreateTopics: number;
  readonly DeleteTopics: number;
  readonly CreateAcls: number;
  readonly DeleteAcls: number;
  readonly AlterConfigs: number;
  readonly CreatePartitions: number;
  readonly IncrementalAlterConfigs: number;
  readonly AlterPartitionReassignments: number;
}

export const kafkajsApiKeys = lazy(() => kafkajsInternal('kafkajs/src/protocol/requests/apiKeys') as KafkajsApiKeys);

/** kafkajs's parse of a Fetch answer (v11, as v1's and v0's): throws the first partition error, OFFSET_OUT_OF_RANGE as its own class. */
export const kafkajsFetchResponseParse = lazy(
  () => (kafkajsInternal('kafkajs/src/protocol/requests/fetch/v11/response') as { parse: <T>(response: T) => Promise<T> }).parse,
);

/** kafkajs's consumer group class, whose `joinAndSync` install.ts wraps (group-join.ts). Loaded only after install.ts placed our modules. */
export const kafkajsConsumerGroup = lazy(
  () =>
    kafkajsInternal('kafkajs/src/consumer/consumerGroup') as {
      prototype: { joinAndSync(): Promise<void>; findReadReplicaForPartitions(topic: string, partitions: readonly number[]): Record<number, number[]> };
    },
);

/** kafkajs's socket factory when a client is given none: plain TCP, or TLS with `ssl`. */
export const kafkajsDefaultSocketFactory = lazy(() => (kafkajsInternal('kafkajs/src/network/socketFactory') as () => ISocketFactory)());
