/**
 * What a user sees when a secured cluster refuses mirrorflow's login, through `mirrorflow run` as a
 * child process: a wrong password, an unknown user, an expired client certificate, a client
 * certificate from a CA the broker does not trust, and a broker certificate from a CA the client
 * does not trust. Each ends the run with exit 69 and a message naming the cluster and who tried to
 * log in, and no secret (password, private key) appears in anything printed. One secured cluster
 * of this file's own, reached under two aliases: `target` always logs in correctly.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { stringify } from '#yaml';
import { runCli, scratchDir, type CliResult } from '../support/pipeline-harness';
import { securedClusters } from '../support/secured-clusters';
import { uniqueName } from '../support/unique-name';

const secured = securedClusters(['secure'], { users: ['mirror'] });

before(async () => {
  await secured.ready();
  await secured.grantAll('secure', 'mirror');
});

/** Runs a pipeline whose `source` is `source`, and the target the correct login of `mirror`. */
async function runWithSource(source: Record<string, unknown>): Promise<CliResult> {
  const file = join(scratchDir(), 'failing.yaml');
  writeFileSync(
    file,
    stringify({
      name: uniqueName('login'),
      clusters: { source, target: (await secured.client('secure', 'scram-sha-512', 'mirror')).yaml },
      flows: [{ source: 'source', target: 'target', topics: [uniqueName('nothing')], checkpoints: { enabled: false } }],
    }),
  );
  return runCli(['run', file, '--status-interval', '0'], 90_000);
}

function assertRefused(result: CliResult, expected: RegExp, secrets: readonly string[]): void {
  const output = result.stdout + result.stderr;
  assert.equal(result.code, 69, `exit code; output:\n${output.slice(-3000)}`);
  assert.match(output, /"source"|cluster source|source:/i, 'names the cluster');
  assert.match(output, expected);
  for (const secret of secrets) assert.ok(!output.includes(secret), `a secret was printed:\n${output.slice(-3000)}`);
}

/** The base64 body of a PEM key, which must never be printed, not even in part. */
function keyBody(file: string): string {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('-----'))
    .join('')
    .slice(0, 40);
}

test('a wrong password ends the run with exit 69, naming the cluster and the user, never the password', async () => {
  const security = secured.security('secure');
  const wrong = 'not-the-password-7c1f';
  const result = await runWithSource({
    bootstrap_servers: [security.saslSslBootstrap],
    security: { protocol: 'sasl_ssl', sasl: { mechanism: 'scram-sha-512', username: 'mirror', password: wrong }, ssl: { ca_file: security.caFile } },
  });
  assertRefused(result, /user "mirror".*SCRAM-SHA-512|SCRAM-SHA-512.*user "mirror"/, [wrong, await secured.password('secure', 'mirror')]);
});

test('an unknown user ends the run with exit 69, naming the cluster and the user', async () => {
  const security = secured.security('secure');
  const password = 'whatever-password-91a2';
  const result = await runWithSource({
    bootstrap_servers: [security.saslSslBootstrap],
    security: { protocol: 'sasl_ssl', sasl: { mechanism: 'plain', username: 'nobody', password }, ssl: { ca_file: security.caFile } },
  });
  assertRefused(result, /user "nobody"/, [password]);
});

test('an expired client certificate ends the run with exit 69, saying the broker refused the certificate', async () => {
  const security = secured.security('secure');
  const { certFile, keyFile } = security.expiredClientCertificate;
  const result = await runWithSource({
    bootstrap_servers: [security.sslBootstrap],
    security: { protocol: 'ssl', ssl: { ca_file: security.caFile, cert_file: certFile, key_file: keyFile } },
  });
  assertRefused(result, /client certificate.*CN=mirror|CN=mirror.*client certificate/i, [keyBody(keyFile)]);
  assert.match(result.stderr, /expired/i);
});

test('a client certificate from a CA the broker does not trust ends the run with exit 69', async () => {
  const security = secured.security('secure');
  const { certFile, keyFile } = security.untrustedClientCertificate;
  const result = await runWithSource({
    bootstrap_servers: [security.sslBootstrap],
    security: { protocol: 'ssl', ssl: { ca_file: security.caFile, cert_file: certFile, key_file: keyFile } },
  });
  assertRefused(result, /client certificate.*CN=mirror|CN=mirror.*client certificate/i, [keyBody(keyFile)]);
});

test('a broker certificate from a CA the client does not trust ends the run with exit 69, naming the CA file', async () => {
  const security = secured.security('secure');
  const password = await secured.password('secure', 'mirror');
  const result = await runWithSource({
    bootstrap_servers: [security.saslSslBootstrap],
    security: { protocol: 'sasl_ssl', sasl: { mechanism: 'scram-sha-512', username: 'mirror', password }, ssl: { ca_file: security.untrustedCaFile } },
  });
  assertRefused(result, /broker's certificate.*not trusted|not trusted.*broker's certificate/i, [password]);
  assert.ok(result.stderr.includes(security.untrustedCaFile), 'names the CA file');
});
