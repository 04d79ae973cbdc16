import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthenticationProviderArgs } from '../kafkajs';
import { gssapiAuthenticator } from './gssapi-authenticator';
import { KerberosLoginError, kerberosFailure, resetKerberosEnvironment, useKerberosEnvironment, type KerberosModule } from './kerberos-environment';

const IDENTITY = { serviceName: 'kafka', principal: 'mf@EXAMPLE.COM', keytab: '/etc/mf.keytab' };
const b64 = (bytes: readonly number[]): string => Buffer.from(bytes).toString('base64');

/** A GSS context of two steps: the AP-REQ, then the broker's AP-REP completes it. Wrapping is identity. */
function fakeKerberos(calls: string[], options: { offer?: number[]; failStep?: Error } = {}): KerberosModule {
  return {
    GSS_MECH_OID_KRB5: 7,
    initializeClient: (service, init) => {
      calls.push(`init ${service} ${init?.principal ?? ''} ${init?.mechOID ?? ''}`);
      let complete = false;
      return Promise.resolve({
        username: 'mf@EXAMPLE.COM',
        get contextComplete() {
          return complete;
        },
        step: (challenge: string) => {
          calls.push(`step ${Buffer.from(challenge, 'base64').toString()}`);
          if (options.failStep !== undefined) return Promise.reject(options.failStep);
          if (challenge === '') return Promise.resolve(Buffer.from('ap-req').toString('base64'));
          complete = true;
          return Promise.resolve(null);
        },
        unwrap: (challenge: string) => Promise.resolve(challenge),
        wrap: (data: string) => {
          calls.push(`wrap ${[...Buffer.from(data, 'base64')].join(',')}`);
          return Promise.resolve(data);
        },
      });
    },
  };
}

/** kafkajs's side: the broker's answers in order, Kafka BYTES framed; what was sent is recorded. */
function broker(answers: Buffer[], sent: string[]): AuthenticationProviderArgs {
  const frame = (bytes: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return {
    host: 'broker1.example.com',
    port: 9092,
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as AuthenticationProviderArgs['logger'],
    saslAuthenticate: (({ request }: { request: { encode: () => Buffer } }) => {
      sent.push(request.encode().subarray(4).toString('base64'));
      return Promise.resolve(frame(answers.shift() ?? Buffer.alloc(0)));
    }) as unknown as AuthenticationProviderArgs['saslAuthenticate'],
  };
}

describe('gssapiAuthenticator', () => {
  it('asks for <service>/<host>, completes the context, then chooses no security layer', async () => {
    const calls: string[] = [];
    const sent: string[] = [];
    const authenticate = gssapiAuthenticator('source', IDENTITY, () => fakeKerberos(calls));
    await authenticate(broker([Buffer.from('ap-rep'), Buffer.from([0x01, 0x01, 0, 0])], sent)).authenticate();
    assert.deepEqual(calls, ['init kafka@broker1.example.com mf@EXAMPLE.COM 7', 'step ', 'step ap-rep', 'wrap 1,0,0,0']);
    assert.deepEqual(sent, [Buffer.from('ap-req').toString('base64'), '', b64([1, 0, 0, 0])]);
  });

  it('refuses a broker that requires a SASL security layer, saying to use TLS', async () => {
    const authenticate = gssapiAuthenticator('source', IDENTITY, () => fakeKerberos([]));
    await assert.rejects(authenticate(broker([Buffer.from('ap-rep'), Buffer.from([0x04, 0x01, 0, 0])], [])).authenticate(), {
      name: 'KafkaJSSASLAuthenticationError',
      message: /requires a SASL security layer .* use TLS \(SASL_SSL\)/,
    });
  });

  it("turns the GSS library's failure into a KerberosLoginError naming the principal, the keytab and the broker's principal", async () => {
    const failStep = new Error(
      'Unspecified GSS failure.  Minor code may provide more information: Server kafka/broker1.example.com@EXAMPLE.COM not found in Kerberos database',
    );
    const authenticate = gssapiAuthenticator('source', IDENTITY, () => fakeKerberos([], { failStep }));
    const error = await authenticate(broker([], []))
      .authenticate()
      .then(
        () => assert.fail('expected a failure'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof KerberosLoginError);
    assert.equal(error.retriable, false);
    assert.match(
      error.message,
      /^Cluster "source": Kerberos login as mf@EXAMPLE\.COM \(keytab \/etc\/mf\.keytab\) failed while getting a service ticket for kafka\/broker1\.example\.com: Server kafka/,
    );
    assert.match(error.message, /the KDC does not know the broker's principal: check sasl\.kerberos\.service\.name/);
  });
});

describe('kerberosFailure', () => {
  it('retries a KDC that cannot be reached, not a key that does not match', () => {
    const unreachable = kerberosFailure('t', IDENTITY, 'x', new Error("Cannot contact any KDC for realm 'EXAMPLE.COM'"));
    assert.equal(unreachable.retriable, true);
    const stale = kerberosFailure('t', IDENTITY, 'x', new Error('Unspecified GSS failure.  Minor code may provide more information: Preauthentication failed'));
    assert.equal(stale.retriable, false);
    assert.match(stale.reason, /failed while x: Preauthentication failed — the keytab's key does not match the KDC's/);
  });

  it('says "ticket cache" for a login without a keytab', () => {
    const error = kerberosFailure('t', { serviceName: 'kafka' }, 'x', new Error('No Kerberos credentials available'));
    assert.match(
      error.reason,
      /^Kerberos login as the keytab's principal \(ticket cache\) failed while x: No Kerberos credentials available — there is no ticket/,
    );
  });
});

describe('useKerberosEnvironment', () => {
  afterEach(resetKerberosEnvironment);

  it('points MIT Kerberos at the keytab and krb5.conf, with a ticket cache in memory', () => {
    const env: NodeJS.ProcessEnv = {};
    useKerberosEnvironment('source', { ...IDENTITY, krb5Config: '/etc/mf-krb5.conf' }, env);
    assert.equal(env['KRB5_CLIENT_KTNAME'], '/etc/mf.keytab');
    assert.equal(env['KRB5_CONFIG'], '/etc/mf-krb5.conf');
    assert.match(env['KRB5CCNAME'] ?? '', /^MEMORY:mirrorflow-\d+$/);
  });

  it('leaves the ticket cache alone without a keytab', () => {
    const env: NodeJS.ProcessEnv = { KRB5CCNAME: 'FILE:/tmp/krb5cc_1000' };
    useKerberosEnvironment('source', { serviceName: 'kafka' }, env);
    assert.equal(env['KRB5CCNAME'], 'FILE:/tmp/krb5cc_1000');
    assert.equal(env['KRB5_CLIENT_KTNAME'], undefined);
  });

  it('takes another principal of the same keytab, and refuses another keytab', () => {
    const env: NodeJS.ProcessEnv = {};
    useKerberosEnvironment('source', IDENTITY, env);
    useKerberosEnvironment('target', { ...IDENTITY, principal: 'other@EXAMPLE.COM' }, env);
    assert.throws(() => useKerberosEnvironment('target', { ...IDENTITY, keytab: '/etc/other.keytab' }, env), {
      name: 'KerberosLoginError',
      message: /Cluster "target": uses keytab \/etc\/other\.keytab .* a process has one Kerberos environment/,
    });
  });
});
