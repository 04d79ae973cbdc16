import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePipeline } from '../config';
import { checkTlsFiles } from './check-tls-files';

const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-tls-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
writeFileSync(join(dir, 'not-pem.txt'), 'hello\n');

function pipeline(ssl: string, protocol = 'ssl'): string {
  return [
    'clusters:',
    '  a: { bootstrap_servers: "h:1" }',
    '  b:',
    '    bootstrap_servers: "h:2"',
    '    security:',
    `      protocol: ${protocol}`,
    `      ssl: ${ssl}`,
    'flows:',
    '  - { source: a, target: b }',
  ].join('\n');
}

describe('checkTlsFiles', () => {
  it('accepts readable PEM files', () => {
    assert.deepEqual(checkTlsFiles(parsePipeline(pipeline('{ ca_file: ca.pem }'), join(dir, 'p.yaml'), { env: {} })), []);
  });

  it('reports a PEM file that is missing or holds no PEM block, and a store that cannot be read, by their keys', () => {
    const config = parsePipeline(
      pipeline('{ ca_file: missing.pem, cert_file: not-pem.txt, key_file: ca.pem, truststore_file: not-pem.txt, truststore_password: pw }'),
      join(dir, 'p.yaml'),
      { env: {} },
    );
    assert.deepEqual(checkTlsFiles(config), [
      { path: 'clusters.b.security.ssl.ca_file', message: `the CA file ${join(dir, 'missing.pem')} cannot be read (no such file)` },
      {
        path: 'clusters.b.security.ssl.cert_file',
        message: `the client certificate file ${join(dir, 'not-pem.txt')} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
      },
      {
        path: 'clusters.b.security.ssl.key_file',
        message: `the client key file ${join(dir, 'ca.pem')} holds no PEM private key (-----BEGIN … PRIVATE KEY-----)`,
      },
      {
        path: 'clusters.b.security.ssl.truststore_file',
        message: `the truststore ${join(dir, 'not-pem.txt')} cannot be read: it is neither a JKS nor a PKCS12 store`,
      },
    ]);
  });

  it('leaves the files of a cluster without TLS alone, as the clients do', () => {
    const config = parsePipeline(pipeline('{ ca_file: missing.pem }'), join(dir, 'p.yaml'), { env: {} });
    assert.deepEqual(checkTlsFiles({ ...config, clusters: { ...config.clusters, b: { ...config.clusters['b']!, security: { protocol: 'plaintext' } } } }), []);
  });
});
