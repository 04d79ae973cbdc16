/**
 * Secrets never shown: `validate`, `plan`, `convert` and `run` (at debug level, with kafkajs's own
 * log lines) against a real broker that authenticates clients, with the passwords, client secrets
 * and tokens supplied every way a user supplies them — written in the file, `${VAR}`,
 * `${env:NAME}`, `${file:PATH:KEY}` (a YAML pipeline and MM2's config providers in an
 * mm2.properties file) — and no output of any of them holds a secret or a token.
 *
 * Not here: a password written in an mm2.properties file is copied by `convert` into the YAML it
 * prints, which is what converting means; with `${…}` references, convert keeps the references.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from '#yaml';
import { uniqueName, waitFor } from '../support/clusters';
import { httpAddress, scratchDir, spawnCli, type CliResult } from '../support/pipeline-harness';
import { PLAIN_PASSWORD, PLAIN_USER, securedCluster } from './oauth-broker';

const CLIENT_SECRET = 'oauth-right-Secret-401';
const ROGUE_SECRET = 'rogue-right-Secret-402';
const secured = securedCluster({ mirrorflow: { secret: CLIENT_SECRET }, rogue: { secret: ROGUE_SECRET, rogue: true } });

/** Every secret of this file, right or wrong; each test adds the tokens issued meanwhile. */
const WRONG = {
  literal: 'literal-Wrong-Pw-411',
  variable: 'variable-Wrong-Pw-412',
  env: 'env-Wrong-Pw-413',
  file: 'file-Wrong-Pw-414',
};
const SECRETS = [CLIENT_SECRET, ROGUE_SECRET, PLAIN_PASSWORD, ...Object.values(WRONG)];

/** The secrets file `${file:…}` references read, and the environment `${VAR}` / `${env:…}` read. */
function secretsFile(dir: string): string {
  const file = join(dir, 'secrets.properties');
  writeFileSync(file, [`plain.password=${PLAIN_PASSWORD}`, `wrong.password=${WRONG.file}`, `oauth.secret=${CLIENT_SECRET}`].join('\n') + '\n');
  return file;
}
const ENV = { MF_VAR_PW: WRONG.variable, MF_ENV_PW: WRONG.env, MF_PLAIN_PW: PLAIN_PASSWORD, MF_ROGUE_SECRET: ROGUE_SECRET };

async function cli(args: readonly string[], timeoutMs = 90_000): Promise<CliResult> {
  const run = spawnCli(args, { env: ENV });
  const timer = setTimeout(() => run.kill('SIGKILL'), timeoutMs);
  try {
    return await run.exited;
  } finally {
    clearTimeout(timer);
  }
}

function assertNoSecret(what: string, result: CliResult | string, extra: readonly string[] = []): void {
  const output = typeof result === 'string' ? result : result.stdout + result.stderr;
  const basic = (id: string, secret: string): string => Buffer.from(`${id}:${secret}`).toString('base64');
  for (const secret of [...SECRETS, ...extra, ...secured.oauth().issued, basic('mirrorflow', CLIENT_SECRET), basic('rogue', ROGUE_SECRET)]) {
    assert.ok(!output.includes(secret), `${what} printed a secret (${secret.slice(0, 6)}…):\n${output.slice(-4000)}`);
  }
}

function pipeline(dir: string, clusters: Record<string, unknown>, flow: Record<string, unknown>, level = 'debug'): string {
  const file = join(dir, `${uniqueName('secrets')}.yaml`);
  const base = { progress: { flush_interval_ms: 500 }, topic_sync: { refresh_interval_ms: 1000, replication_factor: 1 }, replicate_heartbeats: false };
  writeFileSync(file, stringify({ clusters, flows: [{ ...base, ...flow }], logging: { level, format: 'text' } }));
  return file;
}

const plainSasl = (password: string) => ({
  bootstrap_servers: [secured.plainBootstrap()],
  security: { protocol: 'sasl_plaintext', sasl: { mechanism: 'plain', username: PLAIN_USER, password } },
});

test('a run at debug level, with kafkajs logs, through PLAIN and OAUTHBEARER listeners shows no password, client secret or token', async () => {
  const dir = scratchDir();
  const secrets = secretsFile(dir);
  const kit = secured.clusters.kit('secured');
  const topic = uniqueName('secret-orders');
  await kit.createTopic(topic, 1);
  await kit.produce(
    topic,
    Array.from({ length: 5 }, (_, i) => ({ partition: 0, key: null, value: Buffer.from(`v${i}`), headers: [], timestamp: Date.now() })),
  );
  const file = pipeline(
    dir,
    {
      src: plainSasl('${env:MF_PLAIN_PW}'),
      dst: {
        bootstrap_servers: [secured.oauthBootstrap()],
        security: {
          protocol: 'sasl_plaintext',
          sasl: {
            mechanism: 'oauthbearer',
            oauth: { token_endpoint_url: secured.oauth().tokenUrl, client_id: 'mirrorflow', client_secret: `\${file:${secrets}:oauth.secret}` },
          },
        },
      },
    },
    { source: 'src', target: 'dst', topics: [topic] },
  );
  const run = spawnCli(['run', file, '--status-interval', '1000', '--http', '127.0.0.1:0'], { env: ENV });
  await waitFor(async () => (await kit.count(`src.${topic}`).catch(() => 0)) >= 5, { what: 'the records on the target', timeoutMs: 60_000 });
  await run.waitForOutput(/Progress\./, 30_000);
  // What the HTTP endpoints answer is output too.
  const base = await httpAddress(run);
  const pages = await Promise.all(
    ['/status', '/metrics', '/connectors', '/connectors/src-%3Edst.MirrorSourceConnector'].map(async (path) => (await fetch(base + path)).text()),
  );
  assert.match(pages[0]!, /"records"|recordsReplicated|src/, 'the status page answered');
  assertNoSecret('the HTTP endpoints', pages.join('\n'));
  run.kill('SIGTERM');
  const result = await run.exited;
  assert.equal(result.code, 0, result.stderr.slice(-3000));
  assert.match(result.stderr, /DEBUG .*component=kafkajs/, 'kafkajs logged at debug');
  assert.match(result.stderr, /SASL OAUTHBEARER authentication successful/);
  assert.ok(secured.oauth().issued.length > 0);
  assertNoSecret('run at debug', result);
});

for (const [how, password] of [
  ['written in the file', WRONG.literal],
  ['from ${VAR}', '${MF_VAR_PW}'],
  ['from ${env:NAME}', '${env:MF_ENV_PW}'],
  ['from ${file:PATH:KEY}', 'FILE'],
] as const) {
  test(`validate, plan and run with a wrong password ${how}: exit 69 naming the cluster, no secret shown`, async () => {
    const dir = scratchDir();
    const secrets = secretsFile(dir);
    const file = pipeline(
      dir,
      {
        open: { bootstrap_servers: [secured.clusters.bootstrap('secured')] },
        locked: plainSasl(password === 'FILE' ? `\${file:${secrets}:wrong.password}` : password),
      },
      { source: 'open', target: 'locked', topics: [uniqueName('never')] },
    );
    const validate = await cli(['validate', file]);
    assert.equal(validate.code, 0, validate.stderr);
    assertNoSecret('validate', validate);
    const plan = await cli(['plan', file]);
    assert.equal(plan.code, 69, plan.stderr);
    assertNoSecret('plan', plan);
    const run = await cli(['run', file, '--log-level', 'debug', '--status-interval', '0', '--http', 'off']);
    assert.equal(run.code, 69, run.stderr);
    assert.match(run.stderr, /Cluster "locked": authentication of user "mirror" with PLAIN failed: the broker does not know the user or the password is wrong/);
    assertNoSecret('run', run);
  });
}

test('an mm2.properties file with ${file:} and ${env:} secrets: validate, plan, convert and run show none of them, nor the tokens', async () => {
  const dir = scratchDir();
  const secrets = secretsFile(dir);
  const file = join(dir, 'mm2.properties');
  const issuedBefore = secured.oauth().issued.length;
  writeFileSync(
    file,
    [
      'clusters = open, locked, oauth',
      `open.bootstrap.servers = ${secured.clusters.bootstrap('secured')}`,
      `locked.bootstrap.servers = ${secured.plainBootstrap()}`,
      'locked.security.protocol = SASL_PLAINTEXT',
      'locked.sasl.mechanism = PLAIN',
      `locked.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="${PLAIN_USER}" password="\${file:${secrets}:wrong.password}";`,
      `oauth.bootstrap.servers = ${secured.oauthBootstrap()}`,
      'oauth.security.protocol = SASL_PLAINTEXT',
      'oauth.sasl.mechanism = OAUTHBEARER',
      'oauth.sasl.login.callback.handler.class = org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
      `oauth.sasl.oauthbearer.token.endpoint.url = ${secured.oauth().tokenUrl}`,
      'oauth.sasl.jaas.config = org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="rogue" clientSecret="${env:MF_ROGUE_SECRET}";',
      'config.providers = file, env',
      'config.providers.file.class = org.apache.kafka.common.config.provider.FileConfigProvider',
      'config.providers.env.class = org.apache.kafka.common.config.provider.EnvVarConfigProvider',
      'open->oauth.enabled = true',
      `open->oauth.topics = ${uniqueName('never')}`,
      'emit.heartbeats.enabled = false',
      'sync.topic.acls.enabled = false',
      'replication.factor = 1',
      'offset-syncs.topic.replication.factor = 1',
      'offset.storage.replication.factor = 1',
    ].join('\n') + '\n',
  );
  const validate = await cli(['validate', file]);
  assert.equal(validate.code, 0, validate.stderr);
  assertNoSecret('validate', validate);
  const convert = await cli(['convert', file]);
  assert.equal(convert.code, 0, convert.stderr);
  assert.match(convert.stdout, /client_secret: \$\{env:MF_ROGUE_SECRET\}/, 'references stay references');
  assertNoSecret('convert', convert);
  const plan = await cli(['plan', file]);
  assert.equal(plan.code, 69, plan.stderr);
  assertNoSecret('plan', plan);
  const run = await cli(['run', file, '--log-level', 'debug', '--status-interval', '0', '--http', 'off']);
  assert.equal(run.code, 69, run.stderr);
  assert.match(
    run.stderr,
    /Cluster "locked": authentication of user "mirror" with PLAIN failed|Cluster "oauth": authentication failed: the broker refused the OAuth token/,
  );
  assert.ok(secured.oauth().issued.length > issuedBefore, 'the rogue client got tokens, which the broker refused');
  assertNoSecret('run', run);
});
