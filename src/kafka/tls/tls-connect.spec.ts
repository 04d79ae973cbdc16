import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ClusterConnection } from '../../core/cluster';
import { readTlsOptions } from './tls-connect';

const pem = (label: string, body: string): string => `-----BEGIN ${label}-----\n${Buffer.from(body).toString('base64')}\n-----END ${label}-----\n`;

function connection(dir: string): ClusterConnection {
  return {
    alias: 'backup',
    bootstrapServers: ['127.0.0.1:9093'],
    connectionTimeoutMs: 1000,
    requestTimeoutMs: 1000,
    security: {
      protocol: 'ssl',
      ssl: {
        caFile: join(dir, 'ca.pem'),
        certFile: join(dir, 'client.pem'),
        keyFile: join(dir, 'client.key'),
        verifyHostname: false,
        rejectUnauthorized: true,
      },
    },
  };
}

test('the CA, client certificate and key files are read at each connection: files replaced on disk are used from the next one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-tls-'));
  try {
    writeFileSync(join(dir, 'ca.pem'), pem('CERTIFICATE', 'first CA'));
    writeFileSync(join(dir, 'client.pem'), pem('CERTIFICATE', 'first client'));
    writeFileSync(join(dir, 'client.key'), pem('PRIVATE KEY', 'first key'));
    const first = readTlsOptions(connection(dir));
    assert.deepEqual(first.ca, [pem('CERTIFICATE', 'first CA')]);
    assert.equal(first.cert, pem('CERTIFICATE', 'first client'));
    assert.equal(typeof first.checkServerIdentity, 'function');
    // Replaced as a rotation does: the CA by a rename over it, the client files in place.
    writeFileSync(join(dir, 'ca.new'), pem('CERTIFICATE', 'second CA'));
    renameSync(join(dir, 'ca.new'), join(dir, 'ca.pem'));
    writeFileSync(join(dir, 'client.pem'), pem('CERTIFICATE', 'second client'));
    writeFileSync(join(dir, 'client.key'), pem('PRIVATE KEY', 'second key'));
    const second = readTlsOptions(connection(dir));
    assert.deepEqual(second.ca, [pem('CERTIFICATE', 'second CA')]);
    assert.equal(second.cert, pem('CERTIFICATE', 'second client'));
    assert.equal(second.key, pem('PRIVATE KEY', 'second key'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file gone at connection time fails that connection, naming the cluster, the setting and the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-tls-'));
  try {
    writeFileSync(join(dir, 'ca.pem'), pem('CERTIFICATE', 'CA'));
    writeFileSync(join(dir, 'client.pem'), pem('CERTIFICATE', 'client'));
    assert.throws(
      () => readTlsOptions(connection(dir)),
      new Error(`cluster "backup": the client key file ${join(dir, 'client.key')} (ssl.key_file) cannot be read (no such file)`),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
