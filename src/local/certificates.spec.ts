import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { createCertificateAuthority, encryptedKeyPem, issueCertificate } from './certificates';

test('a broker certificate is signed by the CA and names 127.0.0.1 and localhost, as a TLS client checks them', () => {
  const ca = createCertificateAuthority('test CA');
  const broker = issueCertificate(ca, { commonName: 'broker', hosts: ['127.0.0.1', 'localhost'] });
  const caCert = new X509Certificate(ca.certificatePem);
  const cert = new X509Certificate(broker.certificatePem);
  assert.equal(caCert.ca, true);
  assert.equal(cert.ca, false);
  assert.ok(cert.verify(caCert.publicKey), 'signed by the CA');
  assert.ok(cert.checkIssued(caCert));
  assert.ok(caCert.verify(caCert.publicKey), 'the CA is self-signed');
  assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(cert.checkHost('localhost'), 'localhost');
  assert.equal(cert.checkIP('127.0.0.2'), undefined);
  assert.equal(cert.checkHost('example.com'), undefined);
  assert.match(cert.subject, /CN=broker/);
  assert.ok(cert.checkPrivateKey(createPrivateKey(broker.keyPem)));
});

test('a certificate can be made already expired, and one from another CA does not verify', () => {
  const ca = createCertificateAuthority('test CA');
  const other = createCertificateAuthority('other CA');
  const expired = issueCertificate(ca, { commonName: 'old', notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
  const cert = new X509Certificate(expired.certificatePem);
  assert.ok(new Date(cert.validTo).getTime() < Date.now());
  assert.ok(cert.verify(new X509Certificate(ca.certificatePem).publicKey));
  const stranger = new X509Certificate(issueCertificate(other, { commonName: 'stranger' }).certificatePem);
  assert.equal(stranger.verify(new X509Certificate(ca.certificatePem).publicKey), false);
});

test('an encrypted key opens with its passphrase only', () => {
  const ca = createCertificateAuthority('test CA');
  const client = issueCertificate(ca, { commonName: 'client' });
  const encrypted = encryptedKeyPem(client.privateKey, 'pass-phrase');
  assert.match(encrypted, /BEGIN ENCRYPTED PRIVATE KEY/);
  assert.ok(new X509Certificate(client.certificatePem).checkPrivateKey(createPrivateKey({ key: encrypted, passphrase: 'pass-phrase' })));
  assert.throws(() => createPrivateKey({ key: encrypted, passphrase: 'wrong' }));
});
