/**
 * AWS MSK IAM end to end without AWS: a broker whose OAUTHBEARER listener checks tokens as MSK
 * does (msk-iam-broker.ts: the SigV4 signature of the presigned `kafka-cluster:Connect` URL,
 * recomputed in Java with the one access key it knows). mirrorflow signs with AWS's own signer,
 * the credentials coming from the environment as AWS's default chain reads them. A YAML pipeline
 * and an mm2.properties file written as MSK's docs write them replicate through it; a wrong
 * secret key ends the run with exit 69 naming the cluster; no output holds the secret key or a
 * token (base64url of `https://kafka.`, or any `X-Amz-Signature`).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { uniqueName } from '../support/clusters';
import { snapshot, type TestRecord } from '../support/kafka-kit';
import { scratchDir, spawnCli, writePipelineText, type CliResult } from '../support/pipeline-harness';
import { SINGLE_BROKER_MM2_LINES } from '../support/secured-clusters';
import { waitFor } from '../support/wait-for';
import { ACCESS_KEY_ID, REGION, SECRET_ACCESS_KEY, mskIamCluster } from './msk-iam-broker';

const msk = mskIamCluster();

/** AWS's default chain finds these first; nothing else of AWS is in the child's environment. */
function awsEnv(secret: string): NodeJS.ProcessEnv {
  return {
    AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: secret,
    AWS_REGION: REGION,
    AWS_PROFILE: undefined,
    AWS_SESSION_TOKEN: undefined,
    // No ~/.aws of the machine: the environment is the only source.
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
    AWS_CONFIG_FILE: '/nonexistent/config',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

/** base64url of `https://kafka.`: how every MSK IAM token starts. */
const TOKEN_PREFIX = Buffer.from('https://kafka.').toString('base64url').slice(0, 16);

function assertNoSecrets(result: { stdout: string; stderr: string }, secret: string): void {
  const output = result.stdout + result.stderr;
  assert.ok(!output.includes(secret), 'the secret key is never printed');
  assert.ok(!output.includes(TOKEN_PREFIX), 'no token is printed');
  assert.ok(!/X-Amz-Signature/i.test(output), 'no signed URL is printed');
}

async function sourceRecords(topic: string): Promise<TestRecord[]> {
  const kit = msk.clusters.kit('msk');
  await kit.createTopic(topic, 2);
  const records: TestRecord[] = Array.from({ length: 30 }, (_, i) => ({
    partition: i % 2,
    key: Buffer.from(`k${i}`),
    value: i === 4 ? null : Buffer.from(`v${i}`),
    headers: [{ key: 'h', value: Buffer.from(String(i)) }],
    timestamp: 1_700_000_000_000 + i,
  }));
  await kit.produce(topic, records);
  return records;
}

/** Runs `file` until the remote topic holds every record, stops it, and checks the copy. */
async function replicate(file: string, topic: string, records: readonly TestRecord[]): Promise<CliResult> {
  const kit = msk.clusters.kit('msk');
  const run = spawnCli(['run', file, '--status-interval', '0', '--log-level', 'debug'], { env: awsEnv(SECRET_ACCESS_KEY) });
  let early: CliResult | undefined;
  void run.exited.then((r) => (early = r));
  await waitFor(
    async () => {
      if (early !== undefined) throw new Error(`the run ended (exit ${early.code}):\n${early.stderr.slice(-3000)}`);
      return (await kit.count(`plain.${topic}`).catch(() => 0)) >= records.length;
    },
    { what: `${records.length} records written through the IAM listener`, timeoutMs: 60_000 },
  );
  run.kill('SIGTERM');
  const result = await run.exited;
  assert.equal(result.code, 0, `a stopped run exits 0; stderr:\n${result.stderr.slice(-3000)}`);
  // Read through the PLAINTEXT listener: what mirrorflow wrote through the IAM one.
  assert.deepEqual(snapshot(await kit.readAllFlat(`plain.${topic}`)), snapshot([...records].sort((a, b) => a.partition - b.partition)));
  return result;
}

function yamlPipeline(topic: string): string {
  const document = {
    name: uniqueName('msk-iam'),
    clusters: {
      plain: { bootstrap_servers: [msk.clusters.bootstrap('msk')] },
      // The region comes from AWS_REGION: loopback names none.
      msk: { bootstrap_servers: [msk.iamBootstrap()], security: { protocol: 'sasl_plaintext', sasl: { mechanism: 'aws_msk_iam' } } },
    },
    flows: [
      {
        source: 'plain',
        target: 'msk',
        topics: [topic],
        replicate_heartbeats: false,
        topic_sync: { refresh_interval_ms: 1000, replication_factor: 1 },
        progress: { flush_interval_ms: 500 },
        consumer: { max_wait_ms: 100 },
      },
    ],
    logging: { level: 'debug', format: 'json' },
  };
  return writePipelineText(stringify(document), `${document.name}.yaml`);
}

test('a YAML pipeline signs with the credentials of the environment and replicates byte for byte through the IAM listener', async () => {
  const topic = uniqueName('msk-orders');
  const records = await sourceRecords(topic);
  const result = await replicate(yamlPipeline(topic), topic, records);
  assertNoSecrets(result, SECRET_ACCESS_KEY);
});

test('an mm2.properties file with OAUTHBEARER and IAMOAuthBearerLoginCallbackHandler, as MSK documents it, replicates too', async () => {
  const topic = uniqueName('msk-mm2');
  const records = await sourceRecords(topic);
  const dir = scratchDir();
  const file = join(dir, 'mm2.properties');
  writeFileSync(
    file,
    [
      'clusters = plain, msk',
      `plain.bootstrap.servers = ${msk.clusters.bootstrap('msk')}`,
      `msk.bootstrap.servers = ${msk.iamBootstrap()}`,
      'msk.security.protocol = SASL_PLAINTEXT',
      'msk.sasl.mechanism = OAUTHBEARER',
      'msk.sasl.jaas.config = org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
      'msk.sasl.login.callback.handler.class = software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler',
      'msk.sasl.client.callback.handler.class = software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler',
      'plain->msk.enabled = true',
      `plain->msk.topics = ${topic}`,
      'plain->msk.emit.checkpoints.enabled = false',
      'plain->msk.emit.heartbeats.enabled = false',
      ...SINGLE_BROKER_MM2_LINES,
      '',
    ].join('\n'),
  );
  const result = await replicate(file, topic, records);
  assertNoSecrets(result, SECRET_ACCESS_KEY);
});

test('a wrong secret key ends the run with exit 69, naming the cluster, never the secret or the token', async () => {
  const wrong = 'mskWrong/Secret+Key0Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8';
  const run = spawnCli(['run', yamlPipeline(uniqueName('msk-denied')), '--status-interval', '0', '--log-level', 'debug'], { env: awsEnv(wrong) });
  const result = await run.exited;
  assert.equal(result.code, 69, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  assert.match(result.stderr, /Cluster "msk": authentication failed: the broker refused the AWS MSK IAM token/);
  assertNoSecrets(result, wrong);
});
