import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ISocketFactory } from 'kafkajs';
import '../kafkajs';
import { connectionBehaviour, withBehaviour, withConnectionBehaviour, type KafkajsProtocolRequest } from './connection-behaviour';
import { isFetchedRecordBatch } from './fetch-decoder';
import { kafkajsApiKeys, kafkajsDefaultSocketFactory, kafkajsInternal } from './kafkajs-internals';
import { produceResponseV3, type ProduceResponse } from './produce-response';

const { Fetch, Produce, Metadata } = kafkajsApiKeys();
const Connection = kafkajsInternal('kafkajs/src/network/connection') as new (options: object) => { socketFactory: ISocketFactory };
const { createLogger, LEVELS } = kafkajsInternal('kafkajs/src/loggers') as { createLogger: (options: object) => object; LEVELS: { NOTHING: number } };
const fetchV11 = kafkajsInternal('kafkajs/src/protocol/requests/fetch/v11/response') as KafkajsProtocolRequest['response'];

const NOT_LEADER = 6;
const ANY = { minCompressedBytes: 0, maxBytes: Number.MAX_SAFE_INTEGER };

/** A Fetch response of one partition holding `records`, as a broker sends it (v11, after the correlation id). */
function fetchResponse(records: Buffer): Buffer {
  const topic = Buffer.from('t');
  const head = Buffer.alloc(4 + 2 + 4 + 4 + 2 + topic.length + 4);
  let at = head.writeInt32BE(0, 0); // throttle
  at = head.writeInt16BE(0, at); // error
  at = head.writeInt32BE(0, at); // session
  at = head.writeInt32BE(1, at); // topics
  at = head.writeInt16BE(topic.length, at);
  at += topic.copy(head, at);
  head.writeInt32BE(1, at); // partitions
  const partition = Buffer.alloc(4 + 2 + 8 * 3 + 4 + 4 + 4);
  at = partition.writeInt32BE(0, 0);
  at = partition.writeInt16BE(0, at);
  at = partition.writeBigInt64BE(1n, at); // high watermark
  at = partition.writeBigInt64BE(1n, at); // last stable offset
  at = partition.writeBigInt64BE(0n, at); // log start offset
  at = partition.writeInt32BE(0, at); // aborted transactions
  at = partition.writeInt32BE(-1, at); // preferred read replica
  partition.writeInt32BE(records.length, at);
  return Buffer.concat([head, partition, records]);
}

/** One uncompressed v2 batch of one record (value "v"), CreateTime, at offset 0. */
function oneRecordBatch(): Buffer {
  const record = Buffer.from([0x0e, 0x00, 0x00, 0x00, 0x01, 0x02, 0x76, 0x00]); // length 7, attrs, ts delta, offset delta, key null, value "v", no headers
  const batch = Buffer.alloc(61 + record.length);
  batch.writeBigInt64BE(0n, 0);
  batch.writeInt32BE(batch.length - 12, 8);
  batch.writeInt8(2, 16);
  batch.writeBigInt64BE(-1n, 43);
  batch.writeInt16BE(-1, 51);
  batch.writeInt32BE(-1, 53);
  batch.writeInt32BE(1, 57);
  record.copy(batch, 61);
  return batch;
}

const fetchRequest = { request: { apiKey: Fetch }, response: fetchV11 };
const produceRequest = { request: { apiKey: Produce }, response: produceResponseV3 };
const messagesOf = async (decoded: unknown): Promise<unknown[]> =>
  (decoded as { responses: { partitions: { messages: unknown[] }[] }[] }).responses[0]!.partitions[0]!.messages;

test('a forwarding connection hands the record batches of its fetch responses over whole; any other decodes their records', async () => {
  const forwarded = await messagesOf(await withBehaviour({ forward: ANY }, fetchRequest).response.decode(fetchResponse(oneRecordBatch())));
  assert.equal(forwarded.length, 1);
  assert.ok(isFetchedRecordBatch(forwarded[0]), 'one whole batch');
  for (const behaviour of [undefined, { partialProduceResults: true }]) {
    const decoded = await messagesOf(await withBehaviour(behaviour, fetchRequest).response.decode(fetchResponse(oneRecordBatch())));
    assert.equal(decoded.length, 1);
    assert.equal(isFetchedRecordBatch(decoded[0]), false, 'a decoded record');
    assert.equal((decoded[0] as { value: Buffer }).value.toString(), 'v');
  }
});

test("a writer's connection gets every partition's answer of a partly written produce; any other throws the first error, as kafkajs did", async () => {
  const data: ProduceResponse = {
    topics: [
      {
        topicName: 'orders',
        partitions: [
          { partition: 0, errorCode: 0, baseOffset: '5', logAppendTime: '-1' },
          { partition: 1, errorCode: NOT_LEADER, baseOffset: '-1', logAppendTime: '-1' },
        ],
      },
    ],
    throttleTime: 0,
  };
  assert.equal(await withBehaviour({ partialProduceResults: true }, produceRequest).response.parse(data as never), data);
  for (const behaviour of [undefined, { forward: ANY }]) {
    await assert.rejects(withBehaviour(behaviour, produceRequest).response.parse(data as never), { type: 'NOT_LEADER_FOR_PARTITION' });
  }
});

test('other requests are sent as kafkajs made them', () => {
  const metadata = { request: { apiKey: Metadata }, response: fetchV11 };
  assert.equal(withBehaviour({ forward: ANY, partialProduceResults: true }, metadata), metadata);
  assert.equal(withBehaviour(undefined, fetchRequest), fetchRequest);
});

test("a client's behaviour reaches every connection kafkajs opens for it, through the socket factory it keeps", () => {
  const behaviour = { forward: ANY };
  const socketFactory = withConnectionBehaviour(kafkajsDefaultSocketFactory(), behaviour);
  const logger = createLogger({ level: LEVELS.NOTHING, logCreator: () => () => undefined });
  const connection = new Connection({ host: '127.0.0.1', port: 9, logger, socketFactory });
  assert.equal(connectionBehaviour(connection.socketFactory), behaviour);
  assert.equal(connectionBehaviour(kafkajsDefaultSocketFactory()), undefined, "kafkajs's own factory has none");
  assert.equal(Object.getPrototypeOf(connection).send.name, 'sendWithBehaviour', "install.ts wraps kafkajs's Connection.send");
});
