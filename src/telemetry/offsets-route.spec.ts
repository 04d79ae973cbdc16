import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../core/ports/logger';
import { HttpServer } from './http-server';
import { httpRoutes } from './http-routes';
import { Metrics } from './metrics';
import type { OffsetTranslateQuery } from './offsets-route';

async function serve(run: (get: (path: string) => Promise<{ status: number; body: { error_code?: number; message?: string } }>) => Promise<void>) {
  const asked: OffsetTranslateQuery[] = [];
  const server = new HttpServer(
    httpRoutes({
      pipeline: 'p1',
      snapshots: () => [],
      metrics: new Metrics(() => []),
      workerId: () => 'h:1',
      offsets: {
        translate: (query) => {
          asked.push(query);
          return Promise.resolve(
            query.group === 'unknown-cluster' ? { status: 400, body: { error_code: 400, message: 'no such cluster' } } : { status: 200, body: { query } },
          );
        },
      },
    }),
    silentLogger,
  );
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
  try {
    await run(async (path) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: res.status, body: (await res.json()) as { error_code?: number; message?: string } };
    });
  } finally {
    await server.close();
  }
  return asked;
}

test('GET /offsets/translate hands a good query to the translator, and answers a bad one 400 saying what is wrong, asking nothing', async () => {
  const asked = await serve(async (get) => {
    const ok = await get('/offsets/translate?group=app&topic=orders&from=primary&to=backup');
    assert.equal(ok.status, 200);
    const one = await get('/offsets/translate?topic=primary.orders&partition=3&offset=1200');
    assert.equal(one.status, 200);
    const bad: [string, RegExp][] = [
      ['/offsets/translate', /Give "group" \(or "groups"\), or "topic", "partition" and "offset"/],
      ['/offsets/translate?group=a&groups=b', /not both/],
      ['/offsets/translate?group=a&partition=1', /"partition" needs "topic"/],
      ['/offsets/translate?topic=t&partition=1&offset=-4', /"offset" must be a whole number, 0 or more \(got "-4"\)/],
      ['/offsets/translate?topic=t&partition=x&offset=4', /"partition" must be a whole number/],
      ['/offsets/translate?topic=t&offset=4', /"offset" needs "topic" and "partition"/],
      ['/offsets/translate?group=a&group=b', /"group" is given more than once/],
      ['/offsets/translate?group=', /"group" is empty/],
      ['/offsets/translate?grup=a', /Unknown parameter "grup"; the parameters are group, groups, topic, partition, offset, from, to/],
    ];
    for (const [path, message] of bad) {
      const res = await get(path);
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error_code, 400);
      assert.match(res.body.message!, message, path);
      assert.match(res.body.message!, /Usage: GET \/offsets\/translate\?group=G/);
    }
    const refused = await get('/offsets/translate?group=unknown-cluster');
    assert.deepEqual([refused.status, refused.body.message], [400, 'no such cluster'], "the translator's own 4xx passes through");
  });
  assert.deepEqual(asked.slice(0, 2), [
    { group: 'app', topic: 'orders', from: 'primary', to: 'backup' },
    { topic: 'primary.orders', partition: 3, offset: 1200 },
  ]);
  assert.equal(asked.length, 3, 'bad queries never reach the translator');
});
