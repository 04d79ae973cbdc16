import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { SecretValues, collectSecretValues } from '../../core/secrets';
import { parseMm2Properties } from './parse-mm2-properties';
import { parsePipeline } from '../parse-pipeline';

const yaml = (sasl: string): string =>
  [
    'clusters:',
    '  primary: { bootstrap_servers: [127.0.0.1:9092] }',
    '  backup:',
    '    bootstrap_servers: [127.0.0.1:9093]',
    '    security:',
    '      protocol: sasl_plaintext',
    `      sasl: ${sasl}`,
    'flows:',
    '  - { source: primary, target: backup, topics: [orders] }',
  ].join('\n');

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => formatConfigIssue(issue));
    throw error;
  }
  return assert.fail('expected problems');
}

const OAUTH_MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';
const HANDLER = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler';
const mm2 = (...lines: string[]): string =>
  [
    'clusters = primary, backup',
    'primary.bootstrap.servers = 127.0.0.1:9092',
    'backup.bootstrap.servers = 127.0.0.1:9093',
    'backup.security.protocol = SASL_SSL',
    'backup.sasl.mechanism = OAUTHBEARER',
    'primary->backup.enabled = true',
    ...lines,
  ].join('\n');

describe('sasl oauthbearer in a pipeline file', () => {
  it('reads the oauth block, with the client secret from the environment, and knows the secret', () => {
    const config = parsePipeline(
      yaml(
        '{ mechanism: OAUTHBEARER, oauth: { token_endpoint_url: "http://127.0.0.1:8080/token", client_id: mf, client_secret: "${env:MF_SECRET}", scope: kafka } }',
      ),
      'p.yaml',
      { env: { MF_SECRET: 'from-env-secret' } },
    );
    assert.deepEqual(config.clusters['backup']!.security.sasl, {
      mechanism: 'oauthbearer',
      oauth: { token_endpoint_url: 'http://127.0.0.1:8080/token', client_id: 'mf', client_secret: 'from-env-secret', scope: 'kafka' },
    });
    const secrets = new SecretValues();
    collectSecretValues(config, secrets);
    assert.equal(secrets.mask('x from-env-secret y'), 'x [redacted] y');
  });

  it('needs an oauth block and no user or password with oauthbearer, and the reverse with the other mechanisms', () => {
    assert.deepEqual(
      problemsOf(() => parsePipeline(yaml('{ mechanism: oauthbearer, username: u, password: p }'), 'p.yaml')),
      [
        'p.yaml:7:13: clusters.backup.security.sasl.oauth: mechanism oauthbearer needs an "oauth" block\n  hint: add oauth: { token_endpoint_url, client_id, client_secret }',
        'p.yaml:7:49: clusters.backup.security.sasl.username: "username" is not used with mechanism oauthbearer\n  hint: the client id and secret go in oauth',
        'p.yaml:7:62: clusters.backup.security.sasl.password: "password" is not used with mechanism oauthbearer\n  hint: the client id and secret go in oauth',
      ],
    );
    const scram = problemsOf(() =>
      parsePipeline(yaml('{ mechanism: scram-sha-512, oauth: { token_endpoint_url: "http://h:1/t", client_id: a, client_secret: b } }'), 'p.yaml'),
    );
    assert.ok(scram.some((p) => p.includes('mechanism scram-sha-512 needs a "username"')));
    assert.ok(scram.some((p) => p.includes('"oauth" is used with mechanism oauthbearer only')));
  });

  it('refuses a token endpoint that is not an http(s) URL', () => {
    const problems = problemsOf(() =>
      parsePipeline(yaml('{ mechanism: oauthbearer, oauth: { token_endpoint_url: "ftp://h/t", client_id: a, client_secret: b } }'), 'p.yaml'),
    );
    assert.ok(
      problems.some((p) => p.includes('must be an http:// or https:// URL')),
      problems.join('\n'),
    );
  });
});

describe('OAUTHBEARER in an mm2.properties file', () => {
  it('maps the token endpoint, and clientId, clientSecret and scope from the JAAS config', () => {
    const { config } = parseMm2Properties(
      mm2(
        `backup.sasl.login.callback.handler.class = ${HANDLER}`,
        'backup.sasl.oauthbearer.token.endpoint.url = https://idp.example/oauth2/token',
        `backup.sasl.jaas.config = ${OAUTH_MODULE} required clientId="mf" clientSecret="s3cret" scope="kafka";`,
      ),
      'mm2.properties',
      { env: {} },
    );
    assert.deepEqual(config.clusters['backup']!.security.sasl, {
      mechanism: 'oauthbearer',
      oauth: { token_endpoint_url: 'https://idp.example/oauth2/token', client_id: 'mf', client_secret: 's3cret', scope: 'kafka' },
    });
  });

  it('takes the older handler class and the sasl.oauthbearer.client.credentials.* keys, which win over the JAAS options', () => {
    const { config } = parseMm2Properties(
      mm2(
        'backup.sasl.login.callback.handler.class = org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler',
        'backup.sasl.oauthbearer.token.endpoint.url = http://127.0.0.1:1/t',
        'backup.sasl.oauthbearer.client.credentials.client.id = from-key',
        'backup.sasl.oauthbearer.client.credentials.client.secret = secret-from-key',
        `backup.sasl.jaas.config = ${OAUTH_MODULE} required clientId="from-jaas" clientSecret="secret-from-jaas";`,
      ),
      'mm2.properties',
      { env: {} },
    );
    const oauth = (config.clusters['backup']!.security.sasl as { oauth: Record<string, unknown> }).oauth;
    assert.equal(oauth['client_id'], 'from-key');
    assert.equal(oauth['client_secret'], 'secret-from-key');
    assert.equal(oauth['scope'], undefined);
  });

  it('refuses OAUTHBEARER without the login handler (unsecured test tokens), a custom handler, and missing pieces, never quoting the secret', () => {
    const none = problemsOf(() =>
      parseMm2Properties(mm2(`backup.sasl.jaas.config = ${OAUTH_MODULE} required clientSecret="never-shown";`), 'mm2.properties', { env: {} }),
    );
    assert.equal(none.length, 1);
    assert.match(none[0]!, /uses OAUTHBEARER without sasl\.login\.callback\.handler\.class/);
    const custom = problemsOf(() =>
      parseMm2Properties(
        mm2(
          'backup.sasl.login.callback.handler.class = com.example.MyHandler',
          `backup.sasl.jaas.config = ${OAUTH_MODULE} required clientId="a" clientSecret="b";`,
        ),
        'mm2.properties',
        { env: {} },
      ),
    );
    assert.match(custom.join('\n'), /custom Java classes cannot run in mirrorflow/);
    const missing = problemsOf(() =>
      parseMm2Properties(
        mm2(
          `backup.sasl.login.callback.handler.class = ${HANDLER}`,
          `backup.sasl.jaas.config = ${OAUTH_MODULE} required clientSecret="never-shown" extra="x";`,
        ),
        'mm2.properties',
        { env: {} },
      ),
    );
    const text = missing.join('\n');
    assert.match(text, /has no sasl\.oauthbearer\.token\.endpoint\.url/);
    assert.match(text, /has no clientId/);
    assert.match(text, /login option "extra" is not supported yet/);
    assert.ok(!text.includes('never-shown'));
  });
});
