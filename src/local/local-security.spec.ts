import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { prepareSecurity, readLocalPassword } from './local-security';

const ports = { host: '127.0.0.1', brokerPort: 9092, controllerPort: 9093, saslSslPort: 9094, sslPort: 9095 };

test('secured local settings: listeners, mechanisms, authorizer, owner-only files, and no password outside the passwords file and the broker config', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-security-spec-'));
  try {
    const { descriptor, brokerProperties, formatArgs } = await prepareSecurity(dir, { users: ['alice', 'bob'] }, ports);
    assert.equal(descriptor.saslSslBootstrap, '127.0.0.1:9094');
    assert.equal(descriptor.sslBootstrap, '127.0.0.1:9095');
    assert.equal(brokerProperties['listener.name.ssl.ssl.client.auth'], 'required');
    assert.equal(brokerProperties['super.users'], 'User:admin;User:mirrorflow-broker');
    assert.equal(brokerProperties['inter.broker.listener.name'], 'SSL');
    assert.equal(brokerProperties['allow.everyone.if.no.acl.found'], 'false');
    assert.equal(brokerProperties['listener.security.protocol.map'], 'CONTROLLER:SASL_PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL');
    const passwords = await Promise.all(['admin', 'alice', 'bob'].map((user) => readLocalPassword(descriptor, user)));
    assert.equal(new Set(passwords).size, 3);
    assert.ok(passwords.every((password) => password.length >= 24));
    assert.ok(
      passwords.every((password) => !JSON.stringify(descriptor).includes(password)),
      'the descriptor holds no password',
    );
    // SCRAM users for both mechanisms at format time.
    assert.equal(formatArgs.filter((arg) => arg.startsWith('SCRAM-SHA-512=[name=')).length, 3);
    assert.equal(formatArgs.filter((arg) => arg.startsWith('SCRAM-SHA-256=[name=')).length, 3);
    for (const file of [descriptor.passwordsFile, descriptor.caFile, descriptor.clientCertificates['alice']!.keyFile]) {
      assert.equal(statSync(file).mode & 0o077, 0, `${file} is readable by others`);
    }
    const broker = new X509Certificate(brokerProperties['ssl.keystore.certificate.chain']!);
    assert.equal(broker.checkIP('127.0.0.1'), '127.0.0.1');
    const expired = new X509Certificate(readFileSync(descriptor.expiredClientCertificate.certFile));
    assert.ok(new Date(expired.validTo).getTime() < Date.now());
    await assert.rejects(readLocalPassword(descriptor, 'carol'), /no user "carol"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('user names that would break the JAAS or SCRAM syntax, and the reserved super user, are refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-security-spec-'));
  try {
    await assert.rejects(prepareSecurity(dir, { users: ['a"b'] }, ports), /"a"b" is not a usable local user name/);
    await assert.rejects(prepareSecurity(dir, { users: ['admin'] }, ports), /not "admin"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
