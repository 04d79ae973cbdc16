import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createLogger } from './create-logger';
import { LogLevels, parseLog4jLevel } from './log-levels';
import { silentLogger } from '../core/ports/logger';
import { HttpServer } from './http-server';
import { connectLoggerRoutes } from './connect-loggers';

test('a logger takes its own level, else its nearest dotted ancestor’s, else root’s; setting a namespace sets every logger under it', () => {
  let now = 1000;
  const levels = new LogLevels('INFO', () => now);
  for (const name of ['mirrorflow', 'mirrorflow.flow.a->b', 'mirrorflow.flow.b->a', 'kafkajs']) levels.register(name);
  assert.equal(levels.effective('mirrorflow.flow.a->b'), 'INFO');
  assert.deepEqual(levels.set('mirrorflow.flow', 'DEBUG'), ['mirrorflow.flow', 'mirrorflow.flow.a->b', 'mirrorflow.flow.b->a']);
  assert.equal(levels.effective('mirrorflow.flow.a->b'), 'DEBUG');
  assert.equal(levels.effective('mirrorflow'), 'INFO');
  assert.ok(levels.enabled('mirrorflow.flow.b->a', 'debug'));
  assert.ok(!levels.enabled('kafkajs', 'debug'));
  assert.deepEqual(levels.level('mirrorflow.flow'), { level: 'DEBUG', last_modified: 1000 });
  assert.equal(levels.level('nope'), undefined, 'a logger that does not exist is not found (404)');

  now = 2000;
  assert.deepEqual(levels.set('ROOT', 'WARN'), ['kafkajs', 'mirrorflow', 'mirrorflow.flow', 'mirrorflow.flow.a->b', 'mirrorflow.flow.b->a', 'root']);
  assert.ok(!levels.enabled('mirrorflow.flow.a->b', 'info'));
  assert.ok(levels.enabled('kafkajs', 'warn'));
  assert.deepEqual(levels.all()['root'], { level: 'WARN', last_modified: 2000 });
  levels.set('mirrorflow', 'OFF');
  assert.ok(!levels.enabled('mirrorflow', 'error'), 'OFF lets nothing through');
  assert.equal(parseLog4jLevel('trace'), 'TRACE');
  assert.equal(parseLog4jLevel('verbose'), undefined);
});

test("createLogger: a message is written when its logger's level lets it through, changed while running; a flow's logger and the Kafka client's are their own", () => {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
  const levels = new LogLevels('INFO');
  const logger = createLogger({ level: 'info', format: 'json', stream, levels }).child({ pipeline: 'p' });
  const flow = logger.child({ flow: 'a->b' });
  const kafkajs = logger.child({ cluster: 'a' }).child({ component: 'kafkajs' });
  flow.debug('flow debug 1');
  kafkajs.debug('kafkajs debug 1');
  levels.set('mirrorflow.flow.a->b', 'DEBUG');
  flow.debug('flow debug 2');
  kafkajs.debug('kafkajs debug 2');
  logger.debug('process debug');
  levels.set('kafkajs', 'DEBUG');
  levels.set('mirrorflow', 'ERROR');
  kafkajs.debug('kafkajs debug 3');
  flow.warn('flow warn');
  logger.warn('process warn');
  logger.error('process error');
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as { message: string }).message),
    ['flow debug 2', 'kafkajs debug 3', 'process error'],
    'setting mirrorflow to ERROR set its flow logger too, as Connect sets a namespace',
  );
  assert.deepEqual(Object.keys(levels.all()), ['kafkajs', 'mirrorflow', 'mirrorflow.flow.a->b', 'root']);
});

test("the /admin/loggers routes answer as Connect's LoggingResource: 200 with the affected loggers, 204 for scope=cluster, 404 for an unknown level, 405 while read-only", async () => {
  const levels = new LogLevels('INFO', () => 7);
  levels.register('mirrorflow');
  const serve = async (
    writable: boolean,
    run: (call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>) => Promise<void>,
  ) => {
    const server = new HttpServer(connectLoggerRoutes({ levels, writable, logger: silentLogger }), silentLogger);
    const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
    try {
      await run(async (method, path, body) => {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
      });
    } finally {
      await server.close();
    }
  };
  await serve(false, async (call) => {
    assert.deepEqual(await call('GET', '/admin/loggers'), {
      status: 200,
      body: { mirrorflow: { level: 'INFO', last_modified: null }, root: { level: 'INFO', last_modified: null } },
    });
    const refused = await call('PUT', '/admin/loggers/root', { level: 'DEBUG' });
    assert.equal(refused.status, 405);
    assert.match((refused.body as { message: string }).message, /http\.connect_api: read_write/);
  });
  await serve(true, async (call) => {
    assert.deepEqual(await call('PUT', '/admin/loggers/mirrorflow', { level: 'debug' }), { status: 200, body: ['mirrorflow'] });
    assert.deepEqual(await call('GET', '/admin/loggers/mirrorflow'), { status: 200, body: { level: 'DEBUG', last_modified: 7 } });
    assert.deepEqual(await call('PUT', '/admin/loggers/root?scope=cluster', { level: 'WARN' }), { status: 204, body: undefined });
    assert.deepEqual(await call('GET', '/admin/loggers/root'), { status: 200, body: { level: 'WARN', last_modified: 7 } });
    assert.deepEqual(await call('GET', '/admin/loggers/nope'), { status: 404, body: { error_code: 404, message: 'Logger nope not found.' } });
    assert.deepEqual(await call('PUT', '/admin/loggers/x', { level: 'bogus' }), {
      status: 404,
      body: { error_code: 404, message: "invalid log level 'bogus'." },
    });
    assert.deepEqual(await call('PUT', '/admin/loggers/x', {}), {
      status: 400,
      body: { error_code: 400, message: "Desired 'level' parameter was not specified in request." },
    });
  });
});
