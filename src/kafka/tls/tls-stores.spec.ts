import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../core/errors';
import type { ClusterConnection } from '../../core/cluster';
import { readTlsStores } from './tls-stores';

const keystoreReader = /[\\/](node_modules[\\/](jks-js|node-forge)|src[\\/]kafka[\\/]java-keystore\.js)/;
const loaded = (): string[] => Object.keys(require.cache).filter((file) => keystoreReader.test(file));
const connection = (security: ClusterConnection['security']): ClusterConnection => ({
  alias: 'primary',
  bootstrapServers: ['127.0.0.1:9092'],
  security,
  connectionTimeoutMs: 1000,
  requestTimeoutMs: 1000,
});

describe('readTlsStores', () => {
  it('loads the JKS / PKCS12 reader only for a store file', () => {
    assert.deepEqual(loaded(), [], 'loaded with the module');
    assert.deepEqual(readTlsStores(connection({ protocol: 'plaintext' })), { ca: [] });
    assert.deepEqual(loaded(), [], 'loaded for a plaintext cluster');

    const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-tls-stores-'));
    try {
      const file = join(dir, 'truststore.jks');
      writeFileSync(file, 'not a keystore');
      const ssl = { truststoreFile: file, truststorePassword: 'changeit', verifyHostname: true, rejectUnauthorized: true };
      assert.throws(
        () => readTlsStores(connection({ protocol: 'ssl', ssl })),
        (error: unknown) => error instanceof ConfigError && /truststore .*truststore\.jks cannot be read/.test(error.message),
      );
      assert.ok(loaded().length > 0, 'a store file loads the reader');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
