/**
 * Stores made as users make them: Java 17's keytool (JKS with -storetype JKS, PKCS12 by default),
 * a key and certificate imported from a PKCS12 file that openssl made.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { before, test } from 'node:test';
import { KeystoreReadError, clientCredentials, storeType, trustedCertificates } from './java-keystore';

const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-keystore-'));
const file = (name: string): string => join(dir, name);
const store = (name: string): Buffer => readFileSync(file(name));
const keytool = (...args: string[]): void => void execFileSync('keytool', args, { stdio: 'pipe' });
const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe', cwd: dir });

before(() => {
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=test CA',
  );
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=mirror');
  openssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.pem', '-days', '2');
  openssl(
    'pkcs12',
    '-export',
    '-in',
    'client.pem',
    '-inkey',
    'client.key',
    '-certfile',
    'ca.pem',
    '-name',
    'mirror',
    '-out',
    'client.p12',
    '-passout',
    'pass:key-secret',
  );
  for (const [name, type] of [
    ['truststore.jks', 'JKS'],
    ['truststore.p12', 'PKCS12'],
  ] as const) {
    keytool('-importcert', '-noprompt', '-alias', 'ca', '-file', file('ca.pem'), '-keystore', file(name), '-storetype', type, '-storepass', 'trust-secret');
  }
  for (const [name, type] of [
    ['keystore.jks', 'JKS'],
    ['keystore.p12', 'PKCS12'],
  ] as const) {
    keytool(
      '-importkeystore',
      ...['-srckeystore', file('client.p12'), '-srcstoretype', 'PKCS12', '-srcstorepass', 'key-secret'],
      ...['-destkeystore', file(name), '-deststoretype', type, '-deststorepass', 'key-secret'],
    );
  }
  // A JKS key entry whose key password differs from the store's (only JKS allows it).
  keytool(
    '-genkeypair',
    ...['-alias', 'own', '-keyalg', 'EC', '-groupname', 'secp256r1', '-dname', 'CN=own'],
    ...['-keystore', file('own-key.jks'), '-storetype', 'JKS', '-storepass', 'store-secret', '-keypass', 'other-secret'],
  );
  writeFileSync(file('not-a-store'), 'hello');
});

test('the type is read from the content, whatever the file is called', () => {
  assert.equal(storeType(store('truststore.jks')), 'JKS');
  assert.equal(storeType(store('keystore.p12')), 'PKCS12');
  assert.throws(() => storeType(store('ca.pem')), /PEM file/);
  assert.throws(() => storeType(store('not-a-store')), /neither a JKS nor a PKCS12 store/);
});

test('JKS and PKCS12 truststores give the CA certificate keytool imported', () => {
  const ca = new X509Certificate(readFileSync(file('ca.pem')));
  for (const name of ['truststore.jks', 'truststore.p12']) {
    const certificates = trustedCertificates(store(name), 'trust-secret');
    assert.equal(certificates.length, 1, name);
    assert.equal(new X509Certificate(certificates[0]!).fingerprint256, ca.fingerprint256, name);
  }
});

test('a JKS truststore without a password is read unchecked, as Java does; a PKCS12 one needs it', () => {
  assert.equal(trustedCertificates(store('truststore.jks'), undefined).length, 1);
  assert.throws(() => trustedCertificates(store('truststore.p12'), undefined), /read with its password, and none is set/);
});

test('a wrong store password is told apart from other problems, and not repeated', () => {
  for (const name of ['truststore.jks', 'truststore.p12']) {
    assert.throws(
      () => trustedCertificates(store(name), 'wrong-secret'),
      (error: unknown) =>
        error instanceof KeystoreReadError && error.wrongPassword && /password is wrong/.test(error.message) && !error.message.includes('wrong-secret'),
      name,
    );
  }
  for (const name of ['keystore.jks', 'keystore.p12']) {
    assert.throws(
      () => clientCredentials(store(name), 'wrong-secret', undefined),
      (error: unknown) => error instanceof KeystoreReadError && error.wrongPassword && !error.message.includes('wrong-secret'),
      name,
    );
  }
});

test('a keystore has no trusted certificates of its own, and a truststore no key', () => {
  assert.throws(() => trustedCertificates(store('keystore.jks'), 'key-secret'), /holds no trusted certificates/);
  assert.throws(() => clientCredentials(store('truststore.jks'), 'trust-secret', undefined), /holds no private key entry/);
});

test('a PKCS12 keystore goes to Node whole; a JKS one as the PEM chain and key Node can use', () => {
  const p12 = clientCredentials(store('keystore.p12'), 'key-secret', undefined);
  assert.ok('pfx' in p12);
  const jks = clientCredentials(store('keystore.jks'), 'key-secret', undefined);
  assert.ok('cert' in jks);
  const client = new X509Certificate(readFileSync(file('client.pem')));
  assert.equal(new X509Certificate(jks.cert).fingerprint256, client.fingerprint256);
  assert.ok(jks.cert.split('-----BEGIN CERTIFICATE-----').length - 1 >= 2, 'the chain keeps the CA certificate');
  assert.equal(createPrivateKey(jks.key).asymmetricKeyType, 'rsa');
  createSecureContext({ cert: jks.cert, key: jks.key });
});

test('a JKS key with its own password needs it (MM2: ssl.key.password); the store password alone fails clearly', () => {
  assert.throws(() => clientCredentials(store('own-key.jks'), 'store-secret', undefined), /key of entry "own" cannot be recovered: the key password is wrong/);
  const own = clientCredentials(store('own-key.jks'), 'store-secret', 'other-secret');
  assert.ok('key' in own);
  assert.equal(createPrivateKey(own.key).asymmetricKeyType, 'ec');
});
