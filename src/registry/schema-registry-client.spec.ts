import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { SchemaRegistryError, SchemaRegistryRefusal } from '../core/ports/schema-registry';
import { httpSchemaRegistry } from './schema-registry-client';

/** A registry on loopback answering each GET path with `answer(path)`; the paths asked are kept. */
async function withRegistry(answer: (path: string, res: ServerResponse) => void, run: (url: string, paths: string[]) => Promise<void>): Promise<void> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    answer(req.url ?? '', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, paths);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'Content-Type': 'application/vnd.schemaregistry.v1+json' }).end(JSON.stringify(body));
};

test('listSubjects reads GET /subjects', async () => {
  await withRegistry(
    (_path, res) => json(res, 200, ['orders-value', 'orders-key']),
    async (url, paths) => {
      assert.deepEqual(await httpSchemaRegistry({ url, timeoutMs: 2000 }).listSubjects(), ['orders-value', 'orders-key']);
      assert.deepEqual(paths, ['GET /api/subjects']);
    },
  );
});

test('listVersions reads GET /subjects/S/versions, the subject encoded, and sorts the versions ascending', async () => {
  await withRegistry(
    (_path, res) => json(res, 200, [3, 1, 10, 2]),
    async (url, paths) => {
      assert.deepEqual(await httpSchemaRegistry({ url, timeoutMs: 2000 }).listVersions('a b/c-value'), [1, 2, 3, 10]);
      assert.deepEqual(paths, ['GET /api/subjects/a%20b%2Fc-value/versions']);
    },
  );
});

test('subjectVersion gives the schema with its id and version', async () => {
  await withRegistry(
    (_path, res) => json(res, 200, { subject: 'orders-value', version: 2, id: 41, schema: '"string"', references: [{ name: 'x', subject: 'x', version: 1 }] }),
    async (url, paths) => {
      assert.deepEqual(await httpSchemaRegistry({ url, timeoutMs: 2000 }).subjectVersion('orders-value', 2), {
        schema: '"string"',
        schemaType: 'AVRO',
        references: [{ name: 'x', subject: 'x', version: 1 }],
        id: 41,
        version: 2,
      });
      assert.deepEqual(paths, ['GET /api/subjects/orders-value/versions/2']);
    },
  );
});

test('an answer that is not a list of names, or of versions, is not a registry’s', async () => {
  await withRegistry(
    (_path, res) => json(res, 200, { subjects: [] }),
    async (url) => {
      const registry = httpSchemaRegistry({ url, timeoutMs: 2000 });
      await assert.rejects(
        registry.listSubjects(),
        (e: unknown) => e instanceof SchemaRegistryError && /listing the subjects is not a list of names/.test(e.message),
      );
      await assert.rejects(registry.listVersions('s'), (e: unknown) => e instanceof SchemaRegistryError && /not a list of version numbers/.test(e.message));
    },
  );
});

test('an unknown subject is a refusal naming it; refused credentials are a SchemaRegistryError without them', async () => {
  await withRegistry(
    (path, res) =>
      path.includes('missing') ? json(res, 404, { error_code: 40401, message: 'Subject not found' }) : json(res, 401, { error_code: 401, message: 'no' }),
    async (url) => {
      const registry = httpSchemaRegistry({ url, timeoutMs: 2000, basicAuth: { username: 'u', password: 'pw-secret-9' } });
      await assert.rejects(
        registry.listVersions('missing-value'),
        (e: unknown) => e instanceof SchemaRegistryRefusal && /subject "missing-value".*404 \(error code 40401\)/.test(e.message),
      );
      await assert.rejects(
        registry.listSubjects(),
        (e: unknown) => e instanceof SchemaRegistryError && /401.*check its credentials/.test(e.message) && !e.message.includes('pw-secret-9'),
      );
    },
  );
});
