import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../kafkajs';
import { parsePartialProduceResponse, produceResponseV3, type ProduceResponse } from './produce-response';

const NOT_LEADER = 6;
const NOT_ENOUGH_REPLICAS = 19;

/** The wire form of a v3 produce response. */
function encode(topics: { name: string; partitions: [partition: number, errorCode: number, baseOffset: number][] }[]): Buffer {
  const parts: Buffer[] = [];
  const int = (bytes: number, write: (b: Buffer) => void): void => {
    const b = Buffer.alloc(bytes);
    write(b);
    parts.push(b);
  };
  int(4, (b) => b.writeInt32BE(topics.length));
  for (const topic of topics) {
    int(2, (b) => b.writeInt16BE(topic.name.length));
    parts.push(Buffer.from(topic.name));
    int(4, (b) => b.writeInt32BE(topic.partitions.length));
    for (const [partition, errorCode, baseOffset] of topic.partitions) {
      int(4, (b) => b.writeInt32BE(partition));
      int(2, (b) => b.writeInt16BE(errorCode));
      int(8, (b) => b.writeBigInt64BE(BigInt(baseOffset)));
      int(8, (b) => b.writeBigInt64BE(-1n));
    }
  }
  int(4, (b) => b.writeInt32BE(0));
  return Buffer.concat(parts);
}

const response = (...partitions: [number, number, number][]): Promise<ProduceResponse> => produceResponseV3.decode(encode([{ name: 'orders', partitions }]));

test('a response with every partition written parses as it is, for kafkajs and for a writer', async () => {
  const data = await response([0, 0, 100], [1, 0, 7]);
  assert.deepEqual(await produceResponseV3.parse(data), data);
  assert.deepEqual(await parsePartialProduceResponse(data), data);
  assert.equal(data.topics[0]!.partitions[0]!.baseOffset, '100');
});

test('for kafkajs, one failed partition fails the response, as kafkajs did', async () => {
  const data = await response([0, 0, 100], [1, NOT_LEADER, -1]);
  await assert.rejects(
    produceResponseV3.parse(data),
    (error: Error & { type?: string; retriable?: boolean }) => error.type === 'NOT_LEADER_FOR_PARTITION' && error.retriable === true,
  );
});

test('for a writer, a partly written response reports each partition, so the written ones are not sent again', async () => {
  const data = await response([0, 0, 100], [1, NOT_LEADER, -1], [2, NOT_ENOUGH_REPLICAS, -1]);
  const parsed = await parsePartialProduceResponse(data);
  assert.deepEqual(
    parsed.topics[0]!.partitions.map((p) => [p.partition, p.errorCode]),
    [
      [0, 0],
      [1, NOT_LEADER],
      [2, NOT_ENOUGH_REPLICAS],
    ],
  );
});

test('for a writer, a response where nothing was written still fails, so the whole request is retried', async () => {
  const data = await response([0, NOT_ENOUGH_REPLICAS, -1], [1, NOT_LEADER, -1]);
  await assert.rejects(parsePartialProduceResponse(data), (error: Error & { type?: string }) => error.type === 'NOT_ENOUGH_REPLICAS');
});

test('for a writer, a batch refused as too large is reported even when nothing was written, so the writer can split it', async () => {
  const MESSAGE_TOO_LARGE = 10;
  const data = await response([0, MESSAGE_TOO_LARGE, -1], [1, NOT_LEADER, -1]);
  assert.deepEqual(await parsePartialProduceResponse(data), data);
  await assert.rejects(produceResponseV3.parse(data), (error: Error & { type?: string }) => error.type === 'MESSAGE_TOO_LARGE', 'for kafkajs, as it did');
});

test("for a writer, an idempotent producer's answers are reported even when nothing was written, for the writer to handle", async () => {
  for (const [code, type] of [
    [45, 'OUT_OF_ORDER_SEQUENCE_NUMBER'],
    [46, 'DUPLICATE_SEQUENCE_NUMBER'],
    [47, 'INVALID_PRODUCER_EPOCH'],
    [59, 'UNKNOWN_PRODUCER_ID'],
  ] as const) {
    const data = await response([0, code, -1]);
    assert.deepEqual(await parsePartialProduceResponse(data), data, type);
    await assert.rejects(produceResponseV3.parse(data), (error: Error & { type?: string }) => error.type === type, `${type} for kafkajs, as it did`);
  }
});
