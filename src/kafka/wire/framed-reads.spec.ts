import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import './install';
import { ResponseFramer, framedReadsSocketFactory } from './framed-reads';
import { kafkajsDefaultSocketFactory, kafkajsInternal } from './kafkajs-internals';

/** A Kafka frame: a 4-byte size, then `bytes` bytes counting up from `seed`. */
function frame(bytes: number, seed: number): Buffer {
  const framed = Buffer.allocUnsafe(4 + bytes);
  framed.writeInt32BE(bytes, 0);
  for (let i = 0; i < bytes; i++) framed[4 + i] = (seed + i) % 256;
  return framed;
}

/** Reads `stream` as the operating system would, at most `readBytes` per read, into the buffers the framer gives. */
function feed(framer: ResponseFramer, stream: Buffer, readBytes: number): void {
  let at = 0;
  while (at < stream.length) {
    const into = framer.next();
    const n = Math.min(into.length, readBytes, stream.length - at);
    stream.copy(into, 0, at, at + n);
    framer.read(n, into);
    at += n;
  }
}

test('reads cut anywhere, even inside a size, come out as the responses, whole and in order', () => {
  const frames = [frame(0, 1), frame(3, 2), frame(70_000, 3), frame(1, 4), frame(200_000, 5), frame(10, 6)];
  const stream = Buffer.concat(frames);
  for (const readBytes of [1, 2, 3, 5, 7, 4096, 65_536, 1 << 20]) {
    const out: Buffer[] = [];
    feed(new ResponseFramer((response) => out.push(response)), stream, readBytes);
    assert.deepEqual(out, frames, `reads of ${readBytes} bytes`);
  }
});

test('the rest of a large response is read straight into its own buffer, which is what comes out', () => {
  const out: Buffer[] = [];
  const framer = new ResponseFramer((response) => out.push(response));
  const large = frame(300_000, 9);
  const first = framer.next();
  large.copy(first, 0, 0, 1000);
  framer.read(1000, first);
  const rest = framer.next();
  assert.equal(rest.length, large.length - 1000, 'the next read may fill exactly the rest of the response');
  large.copy(rest, 0, 1000);
  framer.read(rest.length, rest);
  assert.deepEqual(out, [large]);
  assert.equal(rest.buffer, out[0]!.buffer, 'read in place, not copied');
  assert.notEqual(framer.next().buffer, out[0]!.buffer, 'the next read goes elsewhere');
});

test('a response of a negative size is refused: the connection has lost its framing', () => {
  const framer = new ResponseFramer(() => assert.fail('nothing comes out'));
  const into = framer.next();
  into.writeInt32BE(-5, 0);
  assert.throws(() => framer.read(4, into), /A response of -5 bytes/);
});

test("responses read whole reach kafkajs's connection as they are, without the copy its framing made of each", () => {
  const Connection = kafkajsInternal('kafkajs/src/network/connection') as { prototype: { processData(this: object, raw: Buffer): void } };
  const payloads: Buffer[] = [];
  const connection = {
    chunks: [] as Buffer[],
    bytesBuffered: 0,
    bytesNeeded: 4,
    requestQueue: { fulfillRequest: ({ payload }: { payload: Buffer }) => payloads.push(payload) },
  };
  const responses = [frame(20, 1), frame(5000, 2), frame(8, 3)];
  for (const response of responses) Connection.prototype.processData.call(connection, response);
  assert.equal(payloads.length, 3);
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(payloads[i], responses[i]!.subarray(8), `response ${i}'s payload (after size and correlation id)`);
    assert.equal(payloads[i]!.buffer, responses[i]!.buffer, `response ${i} taken where it was read`);
  }
});

test('a socket of the factory hands each response of a real connection over as one data event', async () => {
  const frames = [frame(100, 1), frame(150_000, 2), frame(3, 3), frame(2_000_000, 4)];
  const server = net.createServer((peer) => {
    // Written in pieces that cut across the frames.
    const stream = Buffer.concat(frames);
    for (let at = 0; at < stream.length; at += 77_777) peer.write(stream.subarray(at, at + 77_777));
    peer.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as net.AddressInfo;
    const factory = framedReadsSocketFactory(kafkajsDefaultSocketFactory());
    const socket = factory({ host: '127.0.0.1', port, ssl: undefined as never, onConnect: () => undefined }) as net.Socket;
    const events: Buffer[] = [];
    socket.on('data', (data: Buffer) => events.push(data));
    await once(socket, 'end');
    assert.deepEqual(events, frames);
    socket.destroy();
  } finally {
    server.close();
  }
});
