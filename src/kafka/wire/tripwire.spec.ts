/**
 * Fails loudly when what the wire overrides (README.md beside this file) rely on moved: kafkajs is
 * not the pinned version, a replaced module is not ours at run time, or a response that kafkajs
 * decodes around our modules changed shape. Any of these means reading kafkajs's diff before
 * changing the pin, not adjusting this spec.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import '../kafkajs';
import { decodeRecord } from './record-decoder';
import { decodeMessages } from './fetch-decoder';
import { produceRequestV3 } from './produce-request';
import { produceResponseV3 } from './produce-response';
import { frameRequest } from './request-frame';
import { groupMessagesPerPartition } from './group-messages-per-partition';
import { filterAbortedMessages } from './filter-aborted-messages';
import { KAFKAJS_PATHS } from './kafkajs-internals';

const root = resolve(__dirname, '..', '..', '..', '..');
const hex = (name: string): Buffer => Buffer.from(readFileSync(resolve(root, 'src', 'kafka', 'wire', 'fixtures', name), 'utf8').replace(/\s/g, ''), 'hex');
/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs internals, a library boundary */
const kafkajsModule = (path: string): unknown => require(path);
/* eslint-enable @typescript-eslint/no-require-imports */

describe('kafkajs tripwire', () => {
  it('finds exactly the pinned kafkajs 2.2.4, in package.json and in node_modules', () => {
    const pinned = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['kafkajs'];
    const installed = (JSON.parse(readFileSync(require.resolve('kafkajs/package.json'), 'utf8')) as { version: string }).version;
    assert.equal(pinned, '2.2.4', 'package.json must pin kafkajs exactly: src/kafka/wire replaces its internal modules');
    assert.equal(installed, '2.2.4', 'node_modules holds another kafkajs than the one src/kafka/wire was written against');
  });

  it('has our module in the module cache under each replaced kafkajs path', () => {
    const ours: Record<keyof typeof KAFKAJS_PATHS, unknown> = {
      recordDecoder: decodeRecord,
      produceRequestV3,
      groupMessagesPerPartition,
      requestFrame: frameRequest,
      fetchDecodeMessages: decodeMessages,
      produceResponseV3,
      filterAbortedMessages,
    };
    for (const [name, path] of Object.entries(KAFKAJS_PATHS) as [keyof typeof KAFKAJS_PATHS, string][]) {
      assert.equal(require.cache[require.resolve(path)]?.exports, ours[name], `${path} is not mirrorflow's ${name}`);
      assert.equal(kafkajsModule(path), ours[name], `require('${path}') does not give mirrorflow's ${name}`);
    }
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
});
