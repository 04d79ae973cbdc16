import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32c } from '@node-rs/crc32';
import '../kafkajs';
import type { RawRecordBatch } from '../../core/record';
import { frameRequest } from './request-frame';
import { SendOrder, produceRequestV3, type ForwardedBatchMessage, type SendTurn, type StampedMessage } from './produce-request';
import { encodeRecordBatch, type OutgoingMessage } from './record-batch-encoder';
import { joinForwardedBatches } from './record-batch-join';

const T0 = 1_700_000_000_000;

async function fetchedBatch(baseOffset: number, count: number): Promise<RawRecordBatch> {
  const messages: OutgoingMessage[] = Array.from({ length: count }, (_, i) => ({ key: `k${baseOffset + i}`, value: `v${baseOffset + i}`, timestamp: T0 + i }));
  const bytes = await encodeRecordBatch(messages, { compression: 0, crc32c, producerId: 4711, producerEpoch: 3, firstSequence: 99 });
  bytes.writeBigInt64BE(BigInt(baseOffset), 0);
  return { baseOffset, recordCount: count, compressed: false, maxTimestamp: T0 + count - 1, bytes };
}

const forwarded = (batch: RawRecordBatch): ForwardedBatchMessage => ({ value: null, recordBatch: batch });

test('a produce request is framed in place: the same bytes as its body behind a header, records copied once', async () => {
  const joined = [await fetchedBatch(0, 3), await fetchedBatch(3, 40)];
  const single = await fetchedBatch(100, 7);
  const request = produceRequestV3({
    acks: -1,
    timeout: 30_000,
    producerId: 12,
    producerEpoch: 1,
    topicData: [
      { topic: 'a', partitions: [{ partition: 0, firstSequence: 5, messages: joined.map(forwarded) }] },
      { topic: 'bb', partitions: [{ partition: 3, firstSequence: 0, messages: [forwarded(single)] }] },
    ],
  });
  const body = (await request.encode()).buffer;
  const framed = (await frameRequest({ correlationId: 77, clientId: 'mf', request })).buffer;
  const header = Buffer.from([0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 77, 0, 2, 0x6d, 0x66]);
  header.writeInt32BE(header.length - 4 + body.length, 0);
  assert.deepEqual(framed, Buffer.concat([header, body]));

  // The joined partition's record set is the joined batch, written into the request itself.
  const expected = joinForwardedBatches(
    joined.map((b) => b.bytes),
    { compression: 0, crc32c, producerId: 12, producerEpoch: 1, firstSequence: 5, transactional: false },
  );
  const at = framed.indexOf(expected.subarray(61, 80));
  assert.ok(at > 61, 'the joined records are in the request');
  assert.deepEqual(framed.subarray(at - 61, at - 61 + expected.length), expected, 'header, records and CRC of the joined batch');
  assert.equal(framed.readInt32BE(at - 61 - 4), expected.length, 'its record set length');
});

test('a request that leaves no headroom is framed around a copy of its body', async () => {
  const body = Buffer.from([1, 2, 3]);
  const asked: (number | undefined)[] = [];
  const request = {
    apiKey: 18,
    apiVersion: 2,
    encode: async (headroom?: number) => {
      asked.push(headroom);
      return { buffer: body };
    },
  };
  const framed = (await frameRequest({ correlationId: 1, clientId: null, request })).buffer;
  assert.deepEqual([...framed], [0, 0, 0, 13, 0, 18, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 1, 2, 3]);
  assert.deepEqual(asked, [14], 'asked for room for the size and the header');
});

test('requests of one writer are encoded in the order of their turns, whatever order kafkajs gets to them in; a turn given up lets the next ones go', async () => {
  const order = new SendOrder();
  const request = async (turn: SendTurn, baseOffset: number) => {
    const first: ForwardedBatchMessage & StampedMessage = { ...forwarded(await fetchedBatch(baseOffset, 2)), sendTurn: turn };
    return produceRequestV3({ acks: -1, timeout: 30_000, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [first] }] }] });
  };
  const [r0, r1, r2] = [await request(order.take(), 0), await request(order.take(), 10), await request(order.take(), 20)];
  const encoded: number[] = [];
  // kafkajs reaches the third and second requests before the first.
  const late = [r2.encode().then(() => encoded.push(2)), r1.encode().then(() => encoded.push(1))];
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(encoded.length, 0, 'both wait for the first');
  await r0.encode().then(() => encoded.push(0));
  await Promise.all(late);
  assert.deepEqual(encoded, [0, 1, 2]);

  const gone = order.take();
  const next = await request(order.take(), 30);
  const waiting = next.encode();
  gone.done(); // its send failed before kafkajs made its request
  assert.ok((await waiting).buffer.length > 0);
});
