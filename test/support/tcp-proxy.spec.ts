import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { TcpProxy } from './tcp-proxy';
import { waitFor } from './wait-for';

/** An echo server that also notes when each byte arrived and how many connections reached it. */
interface Echo {
  readonly server: Server;
  readonly port: number;
  connections: number;
  readonly sockets: Set<Socket>;
  /** Every chunk the server read, with `Date.now()` when it read it. */
  readonly received: { at: number; text: string }[];
}

async function echoServer(): Promise<Echo> {
  const echo: Echo = { server: createServer(), port: 0, connections: 0, sockets: new Set(), received: [] };
  echo.server.on('connection', (socket) => {
    echo.connections++;
    echo.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      echo.received.push({ at: Date.now(), text: chunk.toString() });
      socket.write(chunk);
    });
  });
  echo.server.listen(0, '127.0.0.1');
  await once(echo.server, 'listening');
  return Object.assign(echo, { port: (echo.server.address() as { port: number }).port });
}

/** A client of the proxy that collects what comes back and notes how it ended. */
interface Client {
  readonly socket: Socket;
  text: string;
  ended: 'open' | 'closed' | 'error';
}

async function client(port: number): Promise<Client> {
  const socket = connect({ host: '127.0.0.1', port });
  const c: Client = { socket, text: '', ended: 'open' };
  socket.on('data', (chunk: Buffer) => (c.text += chunk.toString()));
  socket.on('error', () => (c.ended = 'error'));
  socket.on('close', () => (c.ended = c.ended === 'open' ? 'closed' : c.ended));
  await once(socket, 'connect');
  return c;
}

const echoed = (c: Client, text: string): Promise<boolean> => waitFor(() => c.text.includes(text), { what: `"${text}" echoed`, timeoutMs: 5000 });

describe('TcpProxy', () => {
  let echo: Echo;
  let proxy: TcpProxy;
  const clients: Client[] = [];
  const open = async (): Promise<Client> => {
    const c = await client(proxy.port);
    clients.push(c);
    return c;
  };

  before(async () => {
    echo = await echoServer();
  });
  after(async () => {
    for (const c of clients) c.socket.destroy();
    await proxy?.close();
    for (const socket of echo.sockets) socket.destroy();
    await new Promise<void>((resolve) => echo.server.close(() => resolve()));
  });

  test('forwards both ways on 127.0.0.1', async () => {
    proxy = await TcpProxy.start({ targetPort: echo.port });
    assert.match(proxy.address, /^127\.0\.0\.1:\d+$/);
    const c = await open();
    c.socket.write('hello');
    await echoed(c, 'hello');
    assert.equal(proxy.connections, 1);
  });

  test("cut('refuse') closes open connections and new ones at once; restore() lets new ones through", async () => {
    const before = await open();
    before.socket.write('one');
    await echoed(before, 'one');
    proxy.cut('refuse');
    await waitFor(() => before.ended !== 'open', { what: 'the open connection to end', timeoutMs: 5000 });

    const refused = client(proxy.port).then(
      (c) => {
        clients.push(c);
        return waitFor(() => c.ended !== 'open', { what: 'a new connection to be closed', timeoutMs: 5000 });
      },
      () => true, // reset before 'connect' was seen: refused too
    );
    assert.ok(await refused);

    proxy.restore();
    const after = await open();
    after.socket.write('two');
    await echoed(after, 'two');
  });

  test("cut('drop') ends open connections; new ones are accepted and never forwarded, and closed on restore()", async () => {
    const before = await open();
    before.socket.write('three');
    await echoed(before, 'three');
    const reached = echo.connections;
    proxy.cut('drop');
    await waitFor(() => before.ended !== 'open', { what: 'the open connection to end', timeoutMs: 5000 });

    const accepted = proxy.acceptedConnections;
    const silent = await open();
    silent.socket.write('lost');
    await waitFor(() => proxy.acceptedConnections > accepted && silent.socket.bytesWritten >= 4, { what: 'the proxy to accept the new connection' });
    assert.equal(echo.connections, reached, 'nothing may reach the server while dropping');
    assert.equal(silent.ended, 'open', 'a dropped connection is not closed: its client must time out by itself');

    proxy.restore();
    await waitFor(() => silent.ended !== 'open', { what: 'the connection accepted during the cut to be closed on restore', timeoutMs: 5000 });
    assert.ok(!echo.received.some((r) => r.text.includes('lost')), 'what was written during the drop never arrives');
    const after = await open();
    after.socket.write('four');
    await echoed(after, 'four');
  });

  test("cut('freeze') forwards nothing either way until restore(), then the same connections go on", async () => {
    const kept = await open();
    kept.socket.write('five');
    await echoed(kept, 'five');
    proxy.cut('freeze');
    kept.socket.write('six');
    const late = await open();
    late.socket.write('seven');
    await waitFor(() => kept.socket.bytesWritten >= 7 && late.socket.bytesWritten >= 5, { what: 'both writes to leave the clients' });

    const restoredAt = Date.now();
    proxy.restore();
    await echoed(kept, 'six');
    await echoed(late, 'seven');
    assert.equal(kept.ended, 'open');
    for (const text of ['six', 'seven']) {
      const at = echo.received.find((r) => r.text.includes(text))?.at ?? -1;
      assert.ok(at >= restoredAt, `"${text}" reached the server only after restore() (at ${at}, restored at ${restoredAt})`);
    }
  });

  test('delay(ms) holds each chunk at least that long and keeps the order when the delay shrinks', async () => {
    const c = await open();
    proxy.delay(300);
    const sentAt = Date.now();
    c.socket.write('a');
    // The proxy holds 'a' under the 300 ms delay before the delay changes.
    await waitFor(() => proxy.heldChunks === 1, { what: '"a" held by the proxy' });
    proxy.delay(0);
    c.socket.write('b');
    await echoed(c, 'b');
    assert.equal(c.text, 'ab', 'the chunk read later must not overtake the delayed one');
    const aAt = echo.received.find((r) => r.text.includes('a'))!.at;
    assert.ok(aAt - sentAt >= 300, `"a" was held ${aAt - sentAt} ms, at least the delay`);
  });
});
