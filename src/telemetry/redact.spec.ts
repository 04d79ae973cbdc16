import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { generateKeyPairSync } from 'node:crypto';
import { SecretValues, collectSecretValues, isSecretKey } from '../core/secrets';
import { createLogger } from './create-logger';
import { redactText, redactValue } from './redact';

/** A logger writing into a string, with its own set of known secrets. */
function capture(format: 'text' | 'json', secrets = new SecretValues()) {
  const stream = new PassThrough();
  let out = '';
  stream.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const logger = createLogger({ level: 'debug', format, stream, secrets });
  return { logger, output: () => out };
}

test('secret keys are told by how they end, without case or punctuation', () => {
  for (const key of [
    'password',
    'ssl.key.password',
    'key_password',
    'client_secret',
    'clientSecret',
    'sasl.jaas.config',
    'access_token',
    'Authorization',
    'private_key',
    'passphrase',
  ]) {
    assert.equal(isSecretKey(key), true, key);
  }
  for (const key of ['token_endpoint_url', 'username', 'client_id', 'bootstrap_servers', 'mechanism', 'tokens_received', 'secretive_flag']) {
    assert.equal(isSecretKey(key), false, key);
  }
});

test('a field under a secret key is masked whole, at any depth, in lists and in error causes', () => {
  const { logger, output } = capture('json');
  const cause = Object.assign(new Error('inner failure'), { password: 'pw-in-cause-1' });
  logger.warn('Connecting.', {
    sasl: { mechanism: 'scram-sha-512', username: 'mirror', password: 'pw-nested-1' },
    attempts: [{ clientSecret: 'cs-in-list-1' }],
    error: new Error('outer failure', { cause }),
    'ssl.key.password': 'kp-dotted-1',
  });
  const line = output();
  for (const secret of ['pw-nested-1', 'cs-in-list-1', 'pw-in-cause-1', 'kp-dotted-1']) assert.ok(!line.includes(secret), `${secret} in ${line}`);
  const entry = JSON.parse(line) as {
    sasl: Record<string, string>;
    error: { message: string; cause: Record<string, string> };
  };
  assert.equal(entry.sasl['username'], 'mirror', 'what is not secret stays readable');
  assert.equal(entry.sasl['password'], '[redacted]');
  assert.equal(entry.error.message, 'outer failure');
  assert.equal(entry.error.cause['message'], 'inner failure');
  assert.equal(entry.error.cause['password'], '[redacted]');
});

test('a JAAS config is masked in fields and in message text, its password and client secret included', () => {
  const jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="mirror" password="jaas-pw-1";';
  assert.equal(redactText(`sasl.jaas.config=${jaas}`), 'sasl.jaas.config=[redacted]');
  assert.equal(
    redactText('OAuthBearerLoginModule required clientId="mf" clientSecret="cs-jaas-1" scope="kafka";'),
    'OAuthBearerLoginModule required clientId="mf" clientSecret="[redacted]" scope="kafka";',
  );
  assert.equal(redactText("login with password='single-1' now"), "login with password='[redacted]' now");
  const { logger, output } = capture('text');
  logger.info(`Read ${jaas}`, { 'sasl.jaas.config': jaas });
  assert.ok(!output().includes('jaas-pw-1'), output());
});

test('key=value and JSON pairs whose key names a secret are masked; others are left alone', () => {
  assert.equal(redactText('client_secret=abc123&grant_type=client_credentials'), 'client_secret=[redacted]&grant_type=client_credentials');
  assert.equal(redactText('{"access_token":"tok-json-1","expires_in":3600}'), '{"access_token":"[redacted]","expires_in":3600}');
  assert.equal(redactText("{'password': 'hunter22', 'user': 'bob'}"), "{'password': '[redacted]', 'user': 'bob'}");
  assert.equal(redactText('cannot get an OAuth token: the endpoint refused'), 'cannot get an OAuth token: the endpoint refused', 'prose is not a pair');
  assert.equal(redactText('token_endpoint_url=http://127.0.0.1:8080/token'), 'token_endpoint_url=http://127.0.0.1:8080/token');
});

test('Authorization headers, bearer credentials and JWTs are masked in text', () => {
  assert.equal(redactText('Authorization: Basic bWY6c2VjcmV0'), 'Authorization: Basic [redacted]');
  assert.equal(redactText('sent Bearer abc.def-ghi_jkl'), 'sent Bearer [redacted]');
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtZiJ9.c2lnbmF0dXJl';
  assert.equal(redactText(`token ${jwt} refused`), 'token [redacted] refused');
  assert.equal(redactText('unsecured eyJhbGciOiJub25lIn0.eyJzdWIiOiJtZiJ9. refused'), 'unsecured [redacted] refused');
  const { logger, output } = capture('json');
  logger.debug('Request sent.', { headers: { Authorization: 'Bearer xyz', Accept: 'application/json' } });
  assert.ok(!output().includes('xyz'));
  assert.ok(output().includes('application/json'));
});

test('PEM private key blocks are masked, a truncated one too; certificates are not', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const body = pem.split('\n')[1]!;
  assert.equal(redactText(`key:\n${pem}`).includes(body), false);
  assert.equal(redactText(`cut ${pem.slice(0, 120)}`).includes(body.slice(0, 40)), false);
  const certificate = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----';
  assert.equal(redactText(certificate), certificate);
  const { logger, output } = capture('text');
  logger.warn('Loaded.', { ssl: { key: pem } });
  assert.ok(!output().includes(body), output());
});

test('known secret values are masked wherever they appear, also URL-encoded and in the Kafka client’s own lines', () => {
  const secrets = new SecretValues();
  collectSecretValues(
    { clusters: { backup: { security: { sasl: { username: 'mirror', password: 'from-env-Secret/1' } } } }, flows: [{ transforms: [{ api_key: 'key-77x' }] }] },
    secrets,
  );
  assert.equal(secrets.size, 2, 'the password and the api key, not the user name');
  const { logger, output } = capture('text', secrets);
  // What kafkajs's log bridge passes on: its own message and fields, which know nothing of our keys.
  logger.debug('Connection error: from-env-Secret/1 refused', { component: 'kafkajs', body: 'u=mirror&p=from-env-Secret%2F1', hint: 'key-77x' });
  const line = output();
  assert.ok(!line.includes('from-env-Secret'), line);
  assert.ok(!line.includes('key-77x'), line);
  assert.ok(line.includes('mirror'), 'the user name stays');
  assert.equal(redactText('pw', secrets), 'pw');
});

test('values shorter than four characters are not masked by value (keys still are)', () => {
  const secrets = new SecretValues();
  secrets.add('abc');
  assert.equal(secrets.size, 0);
  assert.deepEqual(redactValue({ password: 'abc' }, secrets), { password: '[redacted]' });
});

test('circular structures do not hang the logger', () => {
  const loop: Record<string, unknown> = { name: 'a' };
  loop['self'] = loop;
  assert.deepEqual(redactValue(loop), { name: 'a', self: '[circular]' });
});
