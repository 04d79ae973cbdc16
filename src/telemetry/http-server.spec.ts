import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MirrorflowError } from '../core/errors';
import { silentLogger, type Logger } from '../core/ports/logger';
import { HttpServer, jsonResponse, parseListenAddress, type Route } from './http-server';

const routes: Route[] = [
  { method: 'GET', path: '/hello', handle: () => jsonResponse(200, { hello: 'world' }) },
  { method: 'GET', path: '/things/{name}/status', handle: (req) => jsonResponse(200, { name: req.params['name'] }) },
  {
    method: 'GET',
    path: '/broken',
    handle: () => {
      throw new Error('boom');
    },
  },
];

async function withServer(run: (base: string, logged: string[]) => Promise<void>): Promise<void> {
  const logged: string[] = [];
  const logger: Logger = { ...silentLogger, error: (message) => void logged.push(message) };
  const server = new HttpServer(routes, logger);
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
  try {
    await run(`http://127.0.0.1:${port}`, logged);
  } finally {
    await server.close();
  }
}

test('serves its routes, with path parameters decoded', async () => {
  await withServer(async (base) => {
    const hello = await fetch(`${base}/hello`);
    assert.equal(hello.status, 200);
    assert.match(hello.headers.get('content-type') ?? '', /application\/json/);
    assert.deepEqual(await hello.json(), { hello: 'world' });
    const named = await fetch(`${base}/things/primary-%3Ebackup.MirrorSourceConnector/status`);
    assert.deepEqual(await named.json(), { name: 'primary->backup.MirrorSourceConnector' });
  });
});

test('unknown paths are 404, other methods 405, both with a Connect-style JSON error', async () => {
  await withServer(async (base) => {
    const missing = await fetch(`${base}/nope`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error_code: 404, message: 'No such endpoint: /nope.' });
    const post = await fetch(`${base}/hello`, { method: 'POST' });
    assert.equal(post.status, 405);
  });
});

test('a handler that throws answers 500 and is logged; the server keeps serving', async () => {
  await withServer(async (base, logged) => {
    const broken = await fetch(`${base}/broken`);
    assert.equal(broken.status, 500);
    assert.deepEqual(logged, ['HTTP request failed.']);
    assert.equal((await fetch(`${base}/hello`)).status, 200);
  });
});

test('a port in use is a clear error naming the address and the ways out', async () => {
  const first = new HttpServer(routes, silentLogger);
  const { port } = await first.listen({ host: '127.0.0.1', port: 0 });
  try {
    const second = new HttpServer(routes, silentLogger);
    await assert.rejects(second.listen({ host: '127.0.0.1', port }), (error: unknown) => {
      assert.ok(error instanceof MirrorflowError);
      assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}: the port is in use`));
      assert.match(error.message, /--http HOST:PORT/);
      return true;
    });
  } finally {
    await first.close();
  }
});

test('the first free of several addresses is taken; taken ones are passed over', async () => {
  const first = new HttpServer(routes, silentLogger);
  const { port } = await first.listen({ host: '127.0.0.1', port: 0 });
  const second = new HttpServer(routes, silentLogger);
  try {
    const bound = await second.listenOnFirstFree([
      { host: '127.0.0.1', port },
      { host: '127.0.0.1', port: 0 },
    ]);
    assert.notEqual(bound.port, port);
    assert.equal((await fetch(`http://127.0.0.1:${bound.port}/hello`)).status, 200);
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
});

test('when every address is taken, the error names the last one', async () => {
  const first = new HttpServer(routes, silentLogger);
  const { port } = await first.listen({ host: '127.0.0.1', port: 0 });
  try {
    const second = new HttpServer(routes, silentLogger);
    await assert.rejects(second.listenOnFirstFree([{ host: '127.0.0.1', port }]), new RegExp(`127\\.0\\.0\\.1:${port}: the port is in use`));
  } finally {
    await first.close();
  }
});

test('a failure other than a taken port is not passed over', async () => {
  const server = new HttpServer(routes, silentLogger);
  // 192.0.2.1 (TEST-NET-1) is no address of this host: binding it fails at once, without a packet sent.
  await assert.rejects(
    server.listenOnFirstFree([
      { host: '192.0.2.1', port: 0 },
      { host: '127.0.0.1', port: 0 },
    ]),
    /no such local address/,
  );
  assert.equal(server.address(), undefined);
});

test('onClose callbacks run once, when the server closes', async () => {
  const server = new HttpServer(routes, silentLogger);
  await server.listen({ host: '127.0.0.1', port: 0 });
  let calls = 0;
  server.onClose(() => calls++);
  await server.close();
  await server.close();
  assert.equal(calls, 1);
});

test('listen addresses: HOST:PORT, [IPv6]:PORT, off; anything else is refused', () => {
  assert.deepEqual(parseListenAddress('127.0.0.1:9464'), { host: '127.0.0.1', port: 9464 });
  assert.deepEqual(parseListenAddress('0.0.0.0:80'), { host: '0.0.0.0', port: 80 });
  assert.deepEqual(parseListenAddress('[::1]:9464'), { host: '::1', port: 9464 });
  assert.deepEqual(parseListenAddress('localhost:0'), { host: 'localhost', port: 0 });
  assert.equal(parseListenAddress('off'), undefined);
  for (const bad of ['9464', '127.0.0.1', '127.0.0.1:70000', 'http://127.0.0.1:9464', ':9464', 'on'])
    assert.throws(() => parseListenAddress(bad), MirrorflowError, bad);
});
