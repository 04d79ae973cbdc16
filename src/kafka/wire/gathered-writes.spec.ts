import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { crc32c } from '@node-rs/crc32';
import '../kafkajs';
import type { RawRecordBatch } from '../../core/record';
import { BodyWriter, GATHER_MIN_BYTES, gatherOnWrite, tailOf } from './gathered-writes';
import { frameRequest } from './request-frame';
import { produceRequestV3, type ForwardedBatchMessage } from './produce-request';
import { encodeRecordBatch, type OutgoingMessage } from './record-batch-encoder';
import { withBehaviour, withConnectionBehaviour, type KafkajsProtocolRequest } from './connection-behaviour';
import { kafkajsApiKeys } from './kafkajs-internals';

const T0 = 1_700_000_000_000;

/** A fetched uncompressed batch whose records have values of the given sizes. */
async function fetchedBatch(baseOffset: number, valueBytes: readonly number[], compression = 0): Promise<RawRecordBatch> {
  const messages: OutgoingMessage[] = valueBytes.map((bytes, i) => ({
    key: `k${baseOffset + i}`,
    value: Buffer.alloc(bytes, (baseOffset + i) % 251),
    headers: [{ key: 'h', value: Buffer.from([i]) }],
    timestamp: T0 + i,
  }));
  const bytes = await encodeRecordBatch(messages, { compression, crc32c, producerId: 4711, producerEpoch: 3, firstSequence: 99 });
  bytes.writeBigInt64BE(BigInt(baseOffset), 0);
  return { baseOffset, recordCount: valueBytes.length, compressed: compression !== 0, maxTimestamp: T0 + valueBytes.length - 1, bytes };
}

const forwarded = (batch: RawRecordBatch): ForwardedBatchMessage => ({ value: null, recordBatch: batch });
const LONG = GATHER_MIN_BYTES * 2 + 17;
const HEADROOM = 16;

/** One request of every record set kind a forwarding writer sends: joined (long and short records), one forwarded batch, records it encodes. */
async function mixedRequest() {
  const joined = [await fetchedBatch(0, [LONG, 3, LONG, LONG]), await fetchedBatch(4, [5, LONG])];
  const single = await fetchedBatch(100, [LONG, LONG]);
  const encodedRecords: OutgoingMessage[] = [{ key: 'e', value: Buffer.alloc(LONG, 7), timestamp: T0 }];
  const request = produceRequestV3({
    acks: -1,
    timeout: 30_000,
    producerId: 12,
    producerEpoch: 1,
    topicData: [
      { topic: 'joined', partitions: [{ partition: 0, firstSequence: 5, messages: joined.map(forwarded) }] },
      { topic: 'single', partitions: [{ partition: 3, firstSequence: 0, messages: [forwarded(single)] }] },
      { topic: 'encoded', partitions: [{ partition: 1, firstSequence: 9, messages: encodedRecords }] },
    ],
  });
  return { request, fetched: [...joined, single].map((b) => b.bytes) };
}

test('a gathered produce request holds the same bytes as one written whole, its long runs of fetched records referred to, not copied', async () => {
  const { request, fetched } = await mixedRequest();
  const whole = await request.encode(HEADROOM);
  const gathered = await request.encode(HEADROOM, true);
  assert.equal(whole.tail, undefined, 'a request not asked to gather is one buffer');
  const tail = gathered.tail ?? [];
  assert.deepEqual(Buffer.concat([gathered.buffer, ...tail]).subarray(HEADROOM), whole.buffer.subarray(HEADROOM));
  assert.equal(gathered.headroom, HEADROOM);

  const referred = tail.filter((piece) =>
    fetched.some((batch) => piece.buffer === batch.buffer && piece.byteOffset >= batch.byteOffset && piece.byteOffset < batch.byteOffset + batch.length),
  );
  // Four long records joined, and the single batch's records (two long ones) as one run.
  assert.equal(referred.length, 5, 'every long run of fetched records is referred to where it was fetched');
  const referredBytes = referred.reduce((sum, piece) => sum + piece.length, 0);
  assert.ok(referredBytes >= 6 * LONG, `the long records are referred to (${referredBytes} bytes)`);
  const rest = gathered.buffer.length + tail.filter((piece) => !referred.includes(piece)).reduce((sum, piece) => sum + piece.length, 0);
  assert.equal(rest + referredBytes, whole.buffer.length, 'the rest is written once');
});

test('a gathered request is framed with its tail counted, and written after its frame in one writev by a gathering socket', async () => {
  const { request } = await mixedRequest();
  const gathering = { ...request, encode: (headroom?: number) => request.encode(headroom, true) };
  const whole = (await frameRequest({ correlationId: 5, clientId: 'mf', request })).buffer;
  const frame = (await frameRequest({ correlationId: 5, clientId: 'mf', request: gathering })).buffer;
  const tail = tailOf(frame);
  assert.ok(tail.length > 0, 'the frame has a tail');
  assert.ok(frame.length < whole.length / 4, `the frame's own buffer is small (${frame.length} of ${whole.length} bytes)`);
  assert.deepEqual(Buffer.concat([frame, ...tail]), whole, 'frame and tail are the request framed whole, size field included');
  assert.deepEqual(tailOf(whole), [], 'a frame written whole has no tail');

  const writes: Buffer[][] = [];
  class Recorder extends Writable {
    override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
      writes.push([chunk]);
      done();
    }
    override _writev(chunks: { chunk: Buffer }[], done: () => void): void {
      writes.push(chunks.map(({ chunk }) => chunk));
      done();
    }
  }
  const socket = gatherOnWrite(new Recorder());
  let written = false;
  socket.write(frame, 'binary', () => (written = true));
  socket.write(whole);
  assert.equal(writes.length, 2);
  assert.deepEqual(writes[0], [frame, ...tail], 'frame and tail, in order, in one writev');
  assert.deepEqual(writes[1], [whole], 'a frame without a tail goes alone');
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(written, "the caller's callback follows the last piece");
});

test('a request that leaves no headroom is framed around a copy of its head, its tail still following', async () => {
  const head = Buffer.from([1, 2, 3]);
  const tail = [Buffer.alloc(GATHER_MIN_BYTES, 4), Buffer.from([5])];
  const request = { apiKey: 0, apiVersion: 3, encode: async () => ({ buffer: head, tail }) };
  const frame = (await frameRequest({ correlationId: 1, clientId: null, request })).buffer;
  assert.equal(frame.length, 14 + head.length, 'the frame holds the size, the header and the head');
  assert.equal(frame.readInt32BE(0), 10 + head.length + GATHER_MIN_BYTES + 1, 'its size counts the tail');
  assert.deepEqual(frame.subarray(14), head);
  assert.deepEqual(tailOf(frame), tail);
});

test('the connections of a client with a behaviour gather their produce requests, and no other request or connection does', async () => {
  const { Produce, Metadata } = kafkajsApiKeys();
  const asked: unknown[] = [];
  const request = (apiKey: number) => ({ apiKey, encode: async (headroom?: number, gather?: boolean) => asked.push([apiKey, headroom, gather]) });
  const protocol = (apiKey: number): KafkajsProtocolRequest => ({ request: request(apiKey), response: { decode: async () => ({}), parse: async () => ({}) } });
  await withBehaviour({}, protocol(Produce)).request.encode?.(9);
  await withBehaviour({}, protocol(Metadata)).request.encode?.(9);
  await withBehaviour(undefined, protocol(Produce)).request.encode?.(9);
  assert.deepEqual(asked, [
    [Produce, 9, true],
    [Metadata, 9, undefined],
    [Produce, 9, undefined],
  ]);

  const made: Recorder[] = [];
  class Recorder extends Writable {}
  const factory = withConnectionBehaviour(() => {
    const socket = new Recorder();
    made.push(socket);
    return socket as never;
  }, {});
  const socket = factory({ host: '127.0.0.1', port: 9092, ssl: {}, onConnect: () => undefined }) as unknown as Recorder;
  assert.equal(socket, made[0], 'the factory hands back the socket it made');
  assert.notEqual(socket.write, Writable.prototype.write, 'wrapped to write tails');
});

test('a body writer refuses to hand over a body whose own buffer it did not fill', () => {
  const writer = new BodyWriter(Buffer.alloc(10), true);
  writer.offset = 4;
  writer.place(Buffer.alloc(GATHER_MIN_BYTES), 0, GATHER_MIN_BYTES);
  assert.throws(() => writer.finish(), /sized for 10 own bytes was written with 4/);
  writer.offset = 10;
  const { head, tail } = writer.finish();
  assert.equal(head.length, 4);
  assert.deepEqual(
    tail.map((piece) => piece.length),
    [GATHER_MIN_BYTES, 6],
  );
});
