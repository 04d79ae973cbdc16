import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstValueFrom, throwError, type Observable } from '#rxjs';
import { KafkaAuthorizationError, KafkaTransportError } from '../../core/errors';
import { namingPrincipal, principalOf, rolePrincipal } from './role-principal';

const refused = (): KafkaAuthorizationError =>
  new KafkaAuthorizationError('target', 'Writing records to t failed: Not authorized to access topics (TOPIC_AUTHORIZATION_FAILED)', undefined);

interface Port {
  write(): Observable<void>;
  flush(): Promise<void>;
  check(): void;
  readonly cluster: string;
}

const port: Port = {
  cluster: 'target',
  write: () => throwError(() => refused()),
  flush: () => Promise.reject(refused()),
  check: () => {
    throw refused();
  },
};

test("a role's authorization failures name its principal and role, whether sent down an Observable, rejected or thrown", async () => {
  const principal = rolePrincipal('producer', { protocol: 'sasl_ssl', sasl: { mechanism: 'scram-sha-512', username: 'writer', password: 'pw-1' } });
  const named = namingPrincipal(port, principal);
  const expected =
    'Cluster "target": Writing records to t failed: Not authorized to access topics (TOPIC_AUTHORIZATION_FAILED) (as User:writer, SASL SCRAM-SHA-512, the producer role\'s own login (security.roles.producer))';
  await assert.rejects(firstValueFrom(named.write()), (error: unknown) => error instanceof KafkaAuthorizationError && error.message === expected);
  await assert.rejects(named.flush(), (error: unknown) => error instanceof KafkaAuthorizationError && error.message === expected);
  assert.throws(
    () => named.check(),
    (error: unknown) => error instanceof KafkaAuthorizationError && error.message === expected,
  );
  assert.equal(named.cluster, 'target');
  assert.ok(!expected.includes('pw-1'));
});

test('other failures, and failures that already name a principal, pass unchanged', async () => {
  const outage = new KafkaTransportError('target', 'Writing records failed: Connection error', true);
  const already = new KafkaAuthorizationError('target', 'refused', 'User:someone');
  const named = namingPrincipal({ write: () => throwError(() => outage), again: () => Promise.reject(already) }, 'User:writer');
  await assert.rejects(firstValueFrom(named.write()), (error: unknown) => error === outage);
  await assert.rejects(named.again(), (error: unknown) => error === already);
});

test('the principal follows the login: SASL user, certificate file, keystore, OAuth client, AWS, none', () => {
  assert.equal(principalOf({ protocol: 'sasl_ssl', sasl: { mechanism: 'plain', username: 'u', password: 'p' } }), 'User:u, SASL PLAIN');
  const ssl = { verifyHostname: true, rejectUnauthorized: true };
  assert.equal(principalOf({ protocol: 'ssl', ssl: { ...ssl, certFile: '/c.pem' } }), 'the principal of the client certificate /c.pem');
  assert.equal(principalOf({ protocol: 'ssl', ssl: { ...ssl, keystoreFile: '/k.p12' } }), 'the principal of the client certificate of the keystore /k.p12');
  assert.match(
    principalOf({
      protocol: 'sasl_ssl',
      sasl: { mechanism: 'oauthbearer', oauth: { tokenEndpointUrl: 'http://127.0.0.1/t', clientId: 'mf', clientSecret: 's' } },
    }),
    /OAuth client mf's token/,
  );
  assert.match(principalOf({ protocol: 'sasl_ssl', sasl: { mechanism: 'aws_msk_iam', aws: { region: 'eu-west-1' } } }), /IAM identity/);
  assert.equal(principalOf({ protocol: 'ssl', ssl }), 'User:ANONYMOUS, no credentials');
});
