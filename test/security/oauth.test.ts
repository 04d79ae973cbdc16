/**
 * SASL/OAUTHBEARER against a real broker that checks tokens with Kafka's own validator and a
 * JWKS: mirrorflow gets tokens from the OAuth server by the client-credentials grant and
 * replicates through the OAUTHBEARER listener; a wrong client secret, and a token the broker does
 * not trust, end the run with exit 69, naming the cluster and what failed, and no secret.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify } from '#yaml';
import { snapshot, type TestRecord } from '../support/kafka-kit';
import { uniqueName } from '../support/clusters';
import { startPipeline, spawnCli, writePipelineText } from '../support/pipeline-harness';
import { securedCluster } from './oauth-broker';

const CLIENT_SECRET = 'oauth-right-Secret-73';
const secured = securedCluster({ mirrorflow: { secret: CLIENT_SECRET }, rogue: { secret: 'rogue-Secret-19', rogue: true } });

/**
 * A pipeline from the secured broker's PLAINTEXT listener (`plain`) to its OAUTHBEARER listener
 * (`secured`): one broker, so the file needs no other cluster; the remote topic is `plain.<topic>`.
 */
function oauthPipeline(topic: string, oauth: Record<string, string>): string {
  const document = {
    name: uniqueName('oauth'),
    clusters: {
      plain: { bootstrap_servers: [secured.clusters.bootstrap('secured')] },
      secured: {
        bootstrap_servers: [secured.oauthBootstrap()],
        security: { protocol: 'sasl_plaintext', sasl: { mechanism: 'oauthbearer', oauth: { token_endpoint_url: secured.oauth().tokenUrl, ...oauth } } },
      },
    },
    flows: [
      {
        source: 'plain',
        target: 'secured',
        topics: [topic],
        replicate_heartbeats: false,
        topic_sync: { refresh_interval_ms: 1000, replication_factor: 1 },
        progress: { flush_interval_ms: 500 },
        consumer: { max_wait_ms: 100 },
      },
    ],
    logging: { level: 'info', format: 'json' },
  };
  return writePipelineText(stringify(document), `${document.name}.yaml`);
}

test('replicates byte for byte to a cluster that takes only OAuth tokens it can verify', async () => {
  const kit = secured.clusters.kit('secured');
  const topic = uniqueName('oauth-orders');
  await kit.createTopic(topic, 2);
  const records: TestRecord[] = Array.from({ length: 40 }, (_, i) => ({
    partition: i % 2,
    key: Buffer.from(`k${i}`),
    value: i === 7 ? null : Buffer.from(`v${i}`),
    headers: [{ key: 'h', value: Buffer.from(String(i)) }],
    timestamp: 1_700_000_000_000 + i,
  }));
  await kit.produce(topic, records);
  const issuedBefore = secured.oauth().issued.length;
  const run = await startPipeline(oauthPipeline(topic, { client_id: 'mirrorflow', client_secret: CLIENT_SECRET, scope: 'kafka' }));
  await run.until(async () => (await kit.count(`plain.${topic}`).catch(() => 0)) >= records.length, {
    what: `${records.length} records on the OAuth-secured target`,
    timeoutMs: 60_000,
  });
  await run.stop();
  // Read through the broker's PLAINTEXT listener: what mirrorflow wrote through the OAuth one.
  const copied = await kit.readAllFlat(`plain.${topic}`);
  // Partition by partition, in order, as the target holds them.
  assert.deepEqual(snapshot(copied), snapshot([...records].sort((a, b) => a.partition - b.partition)));
  assert.ok(secured.oauth().issued.length > issuedBefore, 'tokens came from the token endpoint');
  assert.equal(
    secured.oauth().authorizations.at(-1),
    `Basic ${Buffer.from(`mirrorflow:${CLIENT_SECRET}`).toString('base64')}`,
    'client id and secret in a Basic header',
  );
});

test('a wrong client secret ends the run with exit 69, naming the cluster and the token endpoint, never the secret', async () => {
  const wrong = 'oauth-Wrong-Secret-88';
  const file = oauthPipeline(uniqueName('oauth-denied'), { client_id: 'mirrorflow', client_secret: wrong });
  const result = await spawnCli(['run', file, '--status-interval', '0', '--log-level', 'debug']).exited;
  assert.equal(result.code, 69, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  const endpoint = secured.oauth().tokenUrl.replace(/[.]/g, '\\.');
  assert.match(
    result.stderr,
    new RegExp(
      `Cluster "secured": cannot get an OAuth token: the token endpoint ${endpoint} answered 401 \\(invalid_client\\); check the client id and secret`,
    ),
  );
  assert.ok(!(result.stdout + result.stderr).includes(wrong), 'the secret is never printed');
});

test('a token the broker cannot verify ends the run with exit 69: the broker refused the token', async () => {
  const issuedBefore = secured.oauth().issued.length;
  const file = oauthPipeline(uniqueName('oauth-rogue'), { client_id: 'rogue', client_secret: 'rogue-Secret-19' });
  const result = await spawnCli(['run', file, '--status-interval', '0', '--log-level', 'debug']).exited;
  assert.equal(result.code, 69, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  assert.match(result.stderr, /Cluster "secured": authentication failed: the broker refused the OAuth token/);
  const tokens = secured.oauth().issued.slice(issuedBefore);
  assert.ok(tokens.length > 0, 'the rogue client got a token');
  for (const token of tokens) assert.ok(!(result.stdout + result.stderr).includes(token), 'no token is printed');
});
