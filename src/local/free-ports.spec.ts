import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { findFreePorts } from './free-ports';

test('findFreePorts returns distinct loopback ports that can be bound right away', async () => {
  const ports = await findFreePorts(4);
  assert.equal(new Set(ports).size, 4);
  for (const port of ports) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
