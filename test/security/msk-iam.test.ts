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
import { uniqueName } from '../support/clusters';
import { type TestRecord } from '../support/kafka-kit';
import { scratchDir, spawnCli } from '../support/pipeline-harness';
import { SINGLE_BROKER_MM2_LINES } from '../support/secured-clusters';
import { ACCESS_KEY_ID, REGION, SECRET_ACCESS_KEY, mskIamCluster } from './msk-iam-broker';
import { assertNoMskSecrets, mskIamPipeline, replicateThroughIam } from './msk-iam-runs';

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

// The region comes from AWS_REGION: loopback names none.
const yamlPipeline = (topic: string): string => mskIamPipeline(msk, 'msk-iam', topic);

test('a YAML pipeline signs with the credentials of the environment and replicates byte for byte through the IAM listener', async () => {
  const topic = uniqueName('msk-orders');
  const records = await sourceRecords(topic);
  const result = await replicateThroughIam(msk, { file: yamlPipeline(topic), env: awsEnv(SECRET_ACCESS_KEY) }, topic, records);
  assertNoMskSecrets(result, [SECRET_ACCESS_KEY]);
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
  const result = await replicateThroughIam(msk, { file, env: awsEnv(SECRET_ACCESS_KEY) }, topic, records);
  assertNoMskSecrets(result, [SECRET_ACCESS_KEY]);
});

test('a wrong secret key ends the run with exit 69, naming the cluster, never the secret or the token', async () => {
  const wrong = 'mskWrong/Secret+Key0Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8';
  const run = spawnCli(['run', yamlPipeline(uniqueName('msk-denied')), '--status-interval', '0', '--log-level', 'debug'], { env: awsEnv(wrong) });
  const result = await run.exited;
  assert.equal(result.code, 69, `exit code; stderr:\n${result.stderr.slice(-3000)}`);
  assert.match(result.stderr, /Cluster "msk": authentication failed: the broker refused the AWS MSK IAM token/);
  assertNoMskSecrets(result, [wrong]);
});
