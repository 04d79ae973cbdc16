/**
 * Fails loudly when what src/kafka/wire relies on in kafkajs moved (README.md beside this file
 * lists every touch): kafkajs is not the pinned version, a replaced module is not ours at run
 * time, a wrapped method is not wrapped, a private method we call is gone or takes other
 * arguments, or a response that kafkajs decodes around our modules changed shape. Any of these
 * means reading kafkajs's diff before changing the pin, not adjusting this spec.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { KAFKAJS_REPLACED } from './install';
import { Kafka, logLevel } from '../kafkajs';
import { decodeRecord } from './record-decoder';
import { decodeMessages } from './fetch-decoder';
import { produceRequestV3 } from './produce-request';
import { produceResponseV3 } from './produce-response';
import { frameRequest } from './request-frame';
import { groupMessagesPerPartition } from './group-messages-per-partition';
import { filterAbortedMessages } from './filter-aborted-messages';
import { createWorkerQueue } from './worker-queue';
import { metadataResponseV5 } from './metadata-response';
import {
  KAFKAJS_INTERNAL_MODULES,
  KAFKAJS_CLUSTER,
  KAFKAJS_PATHS,
  KAFKAJS_REPLACEMENTS,
  KAFKAJS_REQUEST_QUEUE,
  kafkajsApiKeys,
  kafkajsConsumerGroup,
  kafkajsDefaultSocketFactory,
  kafkajsFetchDecoding,
  kafkajsInternal,
  kafkajsLookupCodec,
  kafkajsProtocolErrors,
} from './kafkajs-internals';
import { BROKER_METHODS, CLUSTER_METHODS, CREATE_CLUSTER, rawCluster } from './raw-cluster';
import { groupJoinHooked } from './group-join';

const root = resolve(__dirname, '..', '..', '..', '..');
const hex = (name: string): Buffer => Buffer.from(readFileSync(resolve(root, 'src', 'kafka', 'wire', 'fixtures', name), 'utf8').replace(/\s/g, ''), 'hex');
const kafkajsModule = kafkajsInternal;
const bundleFile = resolve(root, 'dist', 'src', 'vendor', 'kafkajs-bundle.code.js');
const kafkajsSource = (file: string): string => readFileSync(require.resolve(`kafkajs/src/${file}`), 'utf8');

/** Asserts that kafkajs's `file` still has each of `used`, as our code calls or reads it. */
function stillHas(file: string, used: readonly (string | RegExp)[]): void {
  const source = kafkajsSource(file);
  for (const u of used) assert.ok(typeof u === 'string' ? source.includes(u) : u.test(source), `kafkajs's ${file} no longer has \`${String(u)}\``);
}

/** A Kafka instance that connects nowhere (nothing here connects). */
const offline = (): Kafka => new Kafka({ clientId: 'tripwire', brokers: ['127.0.0.1:9'], logLevel: logLevel.NOTHING });

type PrivateFactory = (options: { allowAutoTopicCreation: boolean }) => Record<string, unknown> & { brokerPool: Record<string, unknown> };

/** kafkajs's private cluster factory of a Kafka instance, as raw-cluster.ts finds it. */
function privateFactory(kafka: Kafka): PrivateFactory {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === CREATE_CLUSTER);
  assert.ok(symbol !== undefined, `a Kafka instance no longer has the symbol ${CREATE_CLUSTER}`);
  const factory = (kafka as unknown as Record<symbol, unknown>)[symbol];
  assert.equal(typeof factory, 'function');
  return factory as PrivateFactory;
}

describe('kafkajs tripwire', () => {
  it('finds exactly the pinned kafkajs 2.2.4, in package.json and in node_modules', () => {
    const pinned = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['kafkajs'];
    const installed = (JSON.parse(readFileSync(require.resolve('kafkajs/package.json'), 'utf8')) as { version: string }).version;
    assert.equal(pinned, '2.2.4', 'package.json must pin kafkajs exactly: src/kafka/wire replaces its internal modules');
    assert.equal(installed, '2.2.4', 'node_modules holds another kafkajs than the one src/kafka/wire was written against');
  });

  it("has our module in kafkajs's bundle under each replaced kafkajs path, none of kafkajs's own, and kafkajs not loaded from its files", () => {
    const ours: Record<keyof typeof KAFKAJS_PATHS, unknown> = {
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
    assert.deepEqual(KAFKAJS_REPLACED, ours);
    const bundle = readFileSync(bundleFile, 'utf8');
    assert.ok(bundle.startsWith('// kafkajs 2.2.4 '), 'the kafkajs bundle was not built from kafkajs 2.2.4');
    for (const [name, path] of Object.entries(KAFKAJS_PATHS) as [keyof typeof KAFKAJS_PATHS, string][]) {
      assert.equal(kafkajsModule(path), ours[name], `the bundle's ${path} is not mirrorflow's ${name}`);
      const { file, export: exported } = KAFKAJS_REPLACEMENTS[name];
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the table names our module and its export
      assert.equal((require(`./${file}`) as Record<string, unknown>)[exported], ours[name], `KAFKAJS_REPLACEMENTS.${name} does not name ${name}`);
      assert.ok(bundle.includes(`require("../kafka/wire/${file}.js")["${exported}"]`), `the bundle does not require mirrorflow's ${file}.js for ${path}`);
      // kafkajs's own module is not in the bundle at all: its source would have been bundled under its path.
      assert.ok(!bundle.includes(`node_modules/${path}.js`), `kafkajs's own ${path} is in the bundle`);
    }
    for (const path of KAFKAJS_INTERNAL_MODULES) assert.ok(kafkajsModule(path) !== undefined, `the bundle does not expose ${path}`);
    assert.throws(() => kafkajsModule('kafkajs/src/admin'), /kafkajs's bundle has no kafkajs\/src\/admin/);
    assert.deepEqual(
      Object.keys(require.cache).filter((file) => /node_modules[\\/]kafkajs[\\/]/.test(file)),
      [],
      'kafkajs was loaded from its package files, beside its bundle',
    );
  });

  it("keeps the fetch response shape kafkajs's consumer and our forwarded batches rely on", async () => {
    const fetchV11 = kafkajsModule('kafkajs/src/protocol/requests/fetch/v11/response') as {
      decode(raw: Buffer): Promise<{ responses: { topicName: string; partitions: Record<string, unknown>[] }[] }>;
    };
    const response = await fetchV11.decode(hex('java-producer-fetch-txn.hex'));
    assert.deepEqual(Object.keys(response.responses[0]!), ['topicName', 'partitions']);
    const partition = response.responses[0]!.partitions[0]!;
    assert.deepEqual(Object.keys(partition), [
      'partition',
      'errorCode',
      'highWatermark',
      'lastStableOffset',
      'lastStartOffset',
      'abortedTransactions',
      'preferredReadReplica',
      'messages',
    ]);
    assert.deepEqual(Object.keys((partition['abortedTransactions'] as object[])[0]!), ['producerId', 'firstOffset']);
    // kafkajs's Batch filters aborted messages by batchContext.producerId / inTransaction and drops isControlRecord.
    const message = (partition['messages'] as { batchContext: Record<string, unknown>; isControlRecord: unknown; offset: unknown }[])[0]!;
    assert.equal(typeof message.offset, 'string');
    assert.equal(typeof message.isControlRecord, 'boolean');
    for (const key of ['producerId', 'inTransaction', 'isControlBatch', 'firstOffset', 'firstTimestamp', 'maxTimestamp', 'timestampType', 'magicByte']) {
      assert.ok(key in message.batchContext, `batchContext.${key} is gone from kafkajs's record batch decoder`);
    }
    const consumerSource = ['batch.js', 'filterAbortedMessages.js'].map((f) => readFileSync(require.resolve(`kafkajs/src/consumer/${f}`), 'utf8')).join('\n');
    for (const used of ['abortedTransactions', 'isControlRecord', 'inTransaction', 'producerId'])
      assert.ok(consumerSource.includes(used), `kafkajs's consumer no longer reads ${used}`);
  });

  it("has Broker.fetch wrapped for fetching ahead, and kafkajs's consumer still asking it as fetch-ahead.ts reads requests", () => {
    const Broker = kafkajsModule('kafkajs/src/broker') as { prototype: { fetch: { name: string } } };
    assert.equal(Broker.prototype.fetch.name, 'fetchWithBehaviour', "install.ts's wrapper is not kafkajs's Broker.fetch");
    const consumerGroup = readFileSync(require.resolve('kafkajs/src/consumer/consumerGroup.js'), 'utf8');
    for (const used of ['broker.fetch({', 'fetchOffset: this.offsetManager.nextOffset(topic, partition)', 'maxBytes: this.maxBytesPerPartition'])
      assert.ok(consumerGroup.includes(used), `kafkajs's consumer no longer builds its Fetch with ${used}`);
  });

  it("still hands the worker queue what worker-queue.ts relies on: kafkajs's workers, fetchers, and a handler that only heartbeats for a batch fetched empty", () => {
    // One queue per consumer, given the workers; the fetchers (one per broker) push every fetch's batches into it.
    stillHas('consumer/fetchManager.js', [
      'const workers = seq(concurrency, workerId => createWorker({ handler, workerId }))',
      'const workerQueue = createWorkerQueue({ workers })',
    ]);
    stillHas('consumer/runner.js', ['handler: batch => this.handleBatch(batch)']);
    stillHas('consumer/fetcher.js', ['await workerQueue.push(...availableBatches)', 'getWorkerQueue = () => workerQueue']);
    // A worker loops on next() until undefined, settling each item once; run() while looping returns that loop.
    stillHas('consumer/worker.js', [
      'const run = sharedPromiseTo(async ({ next }) => {',
      /while \(true\) \{\s*const item = next\(\)\s*if \(!item\) break\s*const \{ batch, resolve, reject \} = item\s*try \{\s*await handler\(batch, \{ workerId \}\)\s*resolve\(\)\s*\} catch \(error\) \{\s*reject\(error\)\s*\}/,
    ]);
    stillHas('utils/sharedPromiseTo.js', ['promise = asyncFunction(...args).finally(() => (promise = null))']);
    // For a batch fetched empty (not emptied by filtering) the handler heartbeats and returns, nothing else.
    stillHas('consumer/runner.js', [
      /if \(batch\.isEmptyDueToFiltering\(\)\) \{[\s\S]*?await this\.heartbeat\(\)\s*return\s*\}\s*if \(batch\.isEmpty\(\)\) \{\s*await this\.heartbeat\(\)\s*return\s*\}/,
    ]);
    stillHas('consumer/batch.js', ['return this.messages.length === 0', 'return this.isEmpty() && this.rawMessages.length > 0']);
  });

  it('still makes a Batch of every answered partition, and heartbeats for an answer of none, as empty-partitions.ts relies on', () => {
    stillHas('consumer/consumerGroup.js', [
      'return responses.flatMap(({ topicName, partitions }) => {',
      'if (preferredReadReplica != null && preferredReadReplica !== -1) {',
      'return new Batch(topicName, fetchedOffset, partitionData)',
    ]);
    stillHas('consumer/runner.js', [
      /const batches = await this\.consumerGroup\.fetch\(nodeId\)[\s\S]*?if \(batches\.length === 0\) \{\s*await this\.heartbeat\(\)\s*\}\s*return batches/,
    ]);
    stillHas('protocol/requests/fetch/v1/response.js', ['parse: parseV0']);
    stillHas('protocol/requests/fetch/v0/response.js', ['.filter(partition => failure(partition.errorCode))']);
  });

  it("has what fetch sessions by topic id send with: Broker's private sendRequest, its API versions, kafkajs's Fetch arguments and v11 parse", () => {
    // install.ts sends a session's Fetch (fetch-by-topic-id.ts) and its Metadata v12 lookups as the Broker sends its own.
    stillHas('broker/index.js', ["SEND_REQUEST: Symbol('private:Broker:sendRequest')", 'async [PRIVATE.SEND_REQUEST](protocolRequest)']);
    const Broker = kafkajsModule('kafkajs/src/broker') as { prototype: object };
    assert.ok(
      Object.getOwnPropertySymbols(Broker.prototype).some((symbol) => symbol.description === 'private:Broker:sendRequest'),
      "kafkajs's Broker has no private sendRequest method",
    );
    // The version sent is the broker's newest Fetch, read from the versions kafkajs keeps by API key.
    stillHas('broker/index.js', ['this.versions = await this.apiVersions()', '[version.apiKey]: {', 'maxVersion: version.maxVersion,']);
    // What the consumer passes to Broker.fetch, which the Fetch by topic id writes.
    stillHas('consumer/consumerGroup.js', [
      /broker\.fetch\(\{\s*maxWaitTime: this\.maxWaitTime,\s*minBytes: this\.minBytes,\s*maxBytes: this\.maxBytes,\s*isolationLevel: this\.isolationLevel,\s*topics: requests,\s*rackId: this\.rackId,\s*\}\)/,
    ]);
    // The answer is parsed by kafkajs's v11 parse: the first partition error thrown, nothing else read.
    stillHas('protocol/requests/fetch/v11/response.js', ["const { parse: parseV1 } = require('../v1/response')", 'parse: parseV1,']);
    stillHas('protocol/requests/fetch/v0/response.js', ['const parse = async data => {\n  const errors = data.responses.flatMap(']);
  });

  it('keeps the produce response shape the writer reads (topicName, partition, errorCode, baseOffset) and our parse behind v7', async () => {
    const produceV7 = kafkajsModule('kafkajs/src/protocol/requests/produce/v7/response') as {
      decode(raw: Buffer): Promise<{ topics: { partitions: object[] }[] }>;
      parse: unknown;
    };
    const data = await produceV7.decode(hex('broker-produce-v7.hex'));
    assert.deepEqual(Object.keys(data), ['topics', 'throttleTime', 'clientSideThrottleTime']);
    assert.deepEqual(Object.keys(data.topics[0]!), ['topicName', 'partitions']);
    assert.deepEqual(Object.keys(data.topics[0]!.partitions[0]!), ['partition', 'errorCode', 'baseOffset', 'logAppendTime', 'logStartOffset']);
    assert.equal(produceV7.parse, produceResponseV3.parse, "kafkajs's produce v7 response no longer parses through v3's");
  });

  it('decodes and parses each response in Connection.send, where connection-behaviour.ts adapts them, on a connection that keeps its socket factory', () => {
    const source = readFileSync(require.resolve('kafkajs/src/network/connection.js'), 'utf8');
    for (const used of [
      'async send({ request, response,',
      'await response.decode(payload)',
      'await response.parse(payloadDecoded)',
      'this.socketFactory = socketFactory',
    ])
      assert.ok(source.includes(used), `kafkajs's Connection no longer has \`${used}\``);
  });
  it("has Connection.send wrapped for connection behaviours, found through the socket factory a connection or a broker's pool keeps", () => {
    const Connection = kafkajsModule('kafkajs/src/network/connection') as { prototype: { send: { name: string } } };
    assert.equal(Connection.prototype.send.name, 'sendWithBehaviour', "install.ts's wrapper is not kafkajs's Connection.send");
    stillHas('network/connectionPool.js', ['this.socketFactory = options.socketFactory']);
  });
  it('has Connection.processData wrapped to drop the empty remainder kafkajs keeps after a response, which its framing reads as a chunk', () => {
    const Connection = kafkajsModule('kafkajs/src/network/connection') as { prototype: { processData: { name: string } } };
    assert.equal(Connection.prototype.processData.name, 'processDataWithoutEmptyRemainder', "install.ts's wrapper is not kafkajs's Connection.processData");
    stillHas('network/connection.js', [
      'this.chunks.push(rawData)',
      'const buffer = this.chunks.length > 1 ? Buffer.concat(this.chunks) : this.chunks[0]',
      'this.chunks = [remainderBuffer]',
      'this.bytesBuffered = Buffer.byteLength(remainderBuffer)',
    ]);
  });

  it('reaches the private cluster factory of a Kafka instance, whose cluster has every method raw-cluster.ts calls', () => {
    const cluster = privateFactory(offline())({ allowAutoTopicCreation: false });
    for (const method of CLUSTER_METHODS) assert.equal(typeof cluster[method], 'function', `kafkajs's cluster has no ${method}()`);
    assert.ok('seedBroker' in cluster.brokerPool, "kafkajs's broker pool has no seedBroker");
    stillHas('cluster/brokerPool.js', ['this.seedBroker = this.createBroker(']);
    stillHas('cluster/index.js', [
      'async findBroker({ nodeId })',
      'findLeaderForPartitions(topic, partitions)',
      'async findGroupCoordinator({ groupId, coordinatorType = COORDINATOR_TYPES.GROUP })',
      'async addMultipleTargetTopics(topics)',
    ]);
    assert.deepEqual(kafkajsModule('kafkajs/src/protocol/coordinatorTypes'), { GROUP: 0, TRANSACTION: 1 });
  });

  it("reads partition leaders as kafkajs's cluster gives them (node id → partitions, an unknown partition left out)", () => {
    const factory = privateFactory(offline());
    const kafka = {
      [Symbol(CREATE_CLUSTER)]: (options: { allowAutoTopicCreation: boolean }) => {
        const cluster = factory(options);
        const partitionMetadata = [0, 1, 2].map((partitionId) => ({ partitionId, leader: partitionId === 1 ? 2 : 1 }));
        cluster.brokerPool['metadata'] = { topicMetadata: [{ topic: 't', partitionMetadata }] };
        return cluster;
      },
    } as unknown as Kafka;
    assert.deepEqual(
      rawCluster(kafka).leaders('t', [0, 1, 2, 3]),
      new Map([
        [1, [0, 2]],
        [2, [1]],
      ]),
    );
  });

  it('has every Broker method raw-cluster.ts calls, taking the arguments it passes', () => {
    const Broker = kafkajsModule('kafkajs/src/broker') as { prototype: Record<string, unknown> };
    for (const method of BROKER_METHODS) assert.equal(typeof Broker.prototype[method], 'function', `kafkajs's Broker has no ${method}()`);
    const ConnectionPool = kafkajsModule('kafkajs/src/network/connectionPool') as { prototype: Record<string, unknown> };
    assert.equal(typeof ConnectionPool.prototype['send'], 'function', "kafkajs's ConnectionPool has no send()");
    stillHas('broker/index.js', [
      'this.connectionPool = connectionPool',
      'this.versions = versions',
      'async metadata(topics = [])',
      'async listOffsets({ replicaId, isolationLevel, topics })',
      'async offsetCommit({ groupId, groupGenerationId, memberId, retentionTime, topics })',
      'async initProducerId({ transactionalId, transactionTimeout })',
      'async addPartitionsToTxn({ transactionalId, producerId, producerEpoch, topics })',
      'async endTxn({ transactionalId, producerId, producerEpoch, transactionResult })',
      'async findGroupCoordinator({ groupId, coordinatorType })',
      /async produce\(\{\s*topicData,\s*transactionalId,\s*producerId,\s*producerEpoch,\s*acks = -1,\s*timeout = 30000,\s*compression = /,
      /async fetch\(\{\s*replicaId,\s*isolationLevel,\s*maxWaitTime = 5000,\s*minBytes = 1,\s*maxBytes = 10485760,\s*topics,/,
    ]);
  });

  it("has ConsumerGroup.joinAndSync wrapped, every rejoin of kafkajs's consumer going through it, and the group's fields group-join.ts reads", () => {
    assert.ok(groupJoinHooked(), "install.ts's wrapper is not kafkajs's ConsumerGroup.joinAndSync");
    assert.equal(typeof kafkajsConsumerGroup().prototype.joinAndSync, 'function');
    stillHas('consumer/runner.js', ['await this.consumerGroup.joinAndSync()']);
    stillHas('consumer/consumerGroup.js', [
      'this.groupId = groupId',
      'this.assigners = assigners',
      'this.generationId = groupData.generationId',
      'this.memberId = groupData.memberId',
      'this.coordinator = await this.cluster.findGroupCoordinator({ groupId })',
      'await this.joinAndSync()',
    ]);
    stillHas('broker/index.js', ['async heartbeat({ groupId, groupGenerationId, memberId })']);
  });

  it("has the request queue's pending check and the consumer's two lookups in place, where kafkajs still calls them", () => {
    const queue = (kafkajsInternal(KAFKAJS_REQUEST_QUEUE) as { prototype: { scheduleCheckPendingRequests: { name: string } } }).prototype;
    assert.equal(queue.scheduleCheckPendingRequests.name, 'scheduleWhilePending');
    stillHas('network/requestQueue/index.js', [
      'this.pending = []',
      'this.pending.push(socketRequest)\n    this.scheduleCheckPendingRequests()',
      'scheduleCheckPendingRequests() {',
    ]);
    const cluster = (kafkajsInternal(KAFKAJS_CLUSTER) as { prototype: { findTopicPartitionMetadata: { name: string } } }).prototype;
    assert.equal(cluster.findTopicPartitionMetadata.name, 'indexedTopicPartitionMetadata');
    stillHas('cluster/index.js', ['const { metadata } = this.brokerPool', 'metadata.topicMetadata.find(t => t.topic === topic)']);
    const group = kafkajsConsumerGroup().prototype as unknown as { findReadReplicaForPartitions: { name: string } };
    assert.equal(group.findReadReplicaForPartitions.name, 'indexedReadReplicas');
    stillHas('consumer/consumerGroup.js', [
      'partitions: this.findReadReplicaForPartitions(topic, partitions)[nodeId] || []',
      'this.preferredReadReplicasPerTopicPartition = {}',
      'const partitionMetadata = this.cluster.findTopicPartitionMetadata(topic)',
    ]);
    stillHas('cluster/brokerPool.js', ['this.metadata = await broker.metadata(topics)']);
  });

  it("still decodes Metadata v6 with v5's decode and parses every version after v0 with v0's parse", () => {
    stillHas('protocol/requests/metadata/v6/response.js', ["const { parse, decode: decodeV1 } = require('../v5/response')"]);
    stillHas('protocol/requests/metadata/v5/response.js', ["const { parse: parseV0 } = require('../v0/response')"]);
    stillHas('protocol/requests/metadata/index.js', ['6: ({ topics, allowAutoTopicCreation }) => {']);
  });

  it('loads each kafkajs module the wire code reads, with what it uses of it', async () => {
    const errors = kafkajsProtocolErrors();
    assert.equal(errors.failure(10), true);
    assert.equal(errors.failure(0), false);
    assert.deepEqual([errors.createErrorFromCode(10).type, errors.createErrorFromCode(10).retriable], ['MESSAGE_TOO_LARGE', false]);
    assert.equal(errors.createErrorFromCode(6).retriable, true);
    const { Decoder, decodeRecordBatch, decodeMessageSet } = kafkajsFetchDecoding();
    assert.equal(new Decoder(Buffer.from([0, 0, 0, 7])).readInt32(), 7);
    assert.equal(typeof decodeRecordBatch, 'function');
    assert.equal(typeof decodeMessageSet, 'function');
    const gzip = kafkajsLookupCodec()(1);
    assert.deepEqual(await gzip.decompress(await gzip.compress({ buffer: Buffer.from('x') })), Buffer.from('x'));
    const { Produce, Fetch, Metadata } = kafkajsApiKeys();
    assert.deepEqual([Produce, Fetch, Metadata], [0, 1, 3]);
    assert.equal(typeof kafkajsDefaultSocketFactory(), 'function');
  });

  it('still behaves as errors.ts reads its failures (a broker not connected, a metadata request no broker answered)', () => {
    stillHas('broker/index.js', ["throw new Error('Broker not connected')"]);
    stillHas('cluster/brokerPool.js', [/return await callback\(\{ nodeId, broker \}\)\s*\} catch \(e\) \{\}\s*\}\s*return null/]);
  });
});
