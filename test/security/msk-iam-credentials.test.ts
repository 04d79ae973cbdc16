/**
 * AWS MSK IAM with credentials from a named profile and from an assumed role, end to end without
 * AWS. The broker (msk-iam-broker.ts) accepts tokens signed with one access key only; the
 * environment's own credentials — what AWS's default chain would sign with — are another key, so
 * a run that replicates proves the token was signed with the profile's or the role's key.
 *
 * - `profile`: the key is in a credentials file the test writes (AWS_SHARED_CREDENTIALS_FILE,
 *   with AWS_CONFIG_FILE for the profile's region).
 * - `role_arn`: a local STS on 127.0.0.1 (AWS_ENDPOINT_URL_STS, which the AWS SDK's endpoint
 *   resolution reads for STS) answers AssumeRole, asked with the environment's key, with temporary
 *   credentials of the accepted key and a session token.
 *
 * Both runs log at debug level, kafkajs included; no output holds a secret key, the session
 * token or a token.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { uniqueName } from '../support/clusters';
import type { TestRecord } from '../support/kafka-kit';
import { scratchDir, type CliResult } from '../support/pipeline-harness';
import { ACCESS_KEY_ID, REGION, SECRET_ACCESS_KEY, mskIamCluster } from './msk-iam-broker';
import { assertNoMskSecrets, mskIamPipeline, replicateThroughIam } from './msk-iam-runs';

const msk = mskIamCluster();

/** The environment's own credentials: a key the broker does not accept. */
const BASE_KEY_ID = 'AKIAMIRRORFLOWBASE02';
const BASE_SECRET = 'mskBase/Secret+Key0Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2';
const SESSION_TOKEN = 'FwoGZXIvYXdzEMirrorflowTestSessionToken0123456789abcdef';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/msk-mirror';

interface StsCall {
  readonly action: string | null;
  readonly roleArn: string | null;
  readonly sessionName: string | null;
  /** The access key id the request was signed with (SigV4 `Credential=`). */
  readonly signedWith: string | undefined;
}

const stsCalls: StsCall[] = [];
let sts: Server;
let stsUrl = '';

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

/** STS's AssumeRole, as its Query API answers it: the accepted key as temporary credentials, valid an hour. */
before(async () => {
  sts = createServer((request, response) => {
    void body(request).then((text) => {
      const form = new URLSearchParams(text);
      const call: StsCall = {
        action: form.get('Action'),
        roleArn: form.get('RoleArn'),
        sessionName: form.get('RoleSessionName'),
        signedWith: /Credential=([^/]+)\//.exec(request.headers.authorization ?? '')?.[1],
      };
      stsCalls.push(call);
      if (call.action !== 'AssumeRole' || call.signedWith !== BASE_KEY_ID) {
        response.writeHead(403, { 'content-type': 'text/xml' });
        response.end(
          '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>not allowed</Message></Error><RequestId>1</RequestId></ErrorResponse>',
        );
        return;
      }
      const expiration = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      response.writeHead(200, { 'content-type': 'text/xml' });
      response.end(
        [
          '<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>',
          `<AssumedRoleUser><AssumedRoleId>AROAMIRRORFLOWTEST:${call.sessionName}</AssumedRoleId><Arn>arn:aws:sts::123456789012:assumed-role/msk-mirror/${call.sessionName}</Arn></AssumedRoleUser>`,
          `<Credentials><AccessKeyId>${ACCESS_KEY_ID}</AccessKeyId><SecretAccessKey>${SECRET_ACCESS_KEY}</SecretAccessKey><SessionToken>${SESSION_TOKEN}</SessionToken><Expiration>${expiration}</Expiration></Credentials>`,
          '</AssumeRoleResult><ResponseMetadata><RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId></ResponseMetadata></AssumeRoleResponse>',
        ].join(''),
      );
    });
  });
  await new Promise<void>((resolve) => sts.listen(0, '127.0.0.1', resolve));
  stsUrl = `http://127.0.0.1:${(sts.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => sts.close(() => resolve())));

/** The child's AWS environment: the base key, files of the test's own, STS on loopback; nothing of the machine's. */
function awsEnv(dir: string): NodeJS.ProcessEnv {
  const credentials = join(dir, 'credentials');
  const config = join(dir, 'config');
  writeFileSync(
    credentials,
    [
      '[default]',
      `aws_access_key_id = ${BASE_KEY_ID}`,
      `aws_secret_access_key = ${BASE_SECRET}`,
      '',
      '[mirror]',
      `aws_access_key_id = ${ACCESS_KEY_ID}`,
      `aws_secret_access_key = ${SECRET_ACCESS_KEY}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  writeFileSync(config, ['[default]', `region = ${REGION}`, '', '[profile mirror]', `region = ${REGION}`, ''].join('\n'));
  return {
    AWS_ACCESS_KEY_ID: BASE_KEY_ID,
    AWS_SECRET_ACCESS_KEY: BASE_SECRET,
    AWS_REGION: REGION,
    AWS_PROFILE: undefined,
    AWS_SESSION_TOKEN: undefined,
    AWS_SHARED_CREDENTIALS_FILE: credentials,
    AWS_CONFIG_FILE: config,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL_STS: stsUrl,
  };
}

const assertNoSecrets = (result: CliResult): void => assertNoMskSecrets(result, [SECRET_ACCESS_KEY, BASE_SECRET, SESSION_TOKEN]);

async function sourceRecords(topic: string): Promise<TestRecord[]> {
  const kit = msk.clusters.kit('msk');
  await kit.createTopic(topic, 2);
  const records: TestRecord[] = Array.from({ length: 20 }, (_, i) => ({
    partition: i % 2,
    key: Buffer.from(`k${i}`),
    value: Buffer.from(`v${i}`),
    headers: [],
    timestamp: Date.now() - 60_000 + i,
  }));
  await kit.produce(topic, records);
  return records;
}

const pipeline = (topic: string, sasl: Record<string, unknown>): string => mskIamPipeline(msk, 'msk-credentials', topic, sasl);

/** Runs `file` with the AWS environment of a fresh folder until the remote topic holds every record. */
const replicate = (file: string, topic: string, records: readonly TestRecord[]): Promise<CliResult> =>
  replicateThroughIam(msk, { file, env: awsEnv(scratchDir()) }, topic, records);

test("profile: the token is signed with the named profile's key from the credentials file, not the environment's", async () => {
  const topic = uniqueName('msk-profile');
  const records = await sourceRecords(topic);
  const calls = stsCalls.length;
  const result = await replicate(pipeline(topic, { profile: 'mirror' }), topic, records);
  assert.equal(stsCalls.length, calls, 'a profile with static keys needs no STS');
  assertNoSecrets(result);
});

test("role_arn: the role is assumed through STS with the environment's key, and the token is signed with the role's temporary key", async () => {
  const topic = uniqueName('msk-role');
  const records = await sourceRecords(topic);
  const calls = stsCalls.length;
  const result = await replicate(pipeline(topic, { role_arn: ROLE_ARN, role_session_name: 'mirrorflow-test' }), topic, records);
  const assumed = stsCalls.slice(calls);
  assert.ok(assumed.length >= 1, 'STS was asked');
  assert.deepEqual(assumed[0], { action: 'AssumeRole', roleArn: ROLE_ARN, sessionName: 'mirrorflow-test', signedWith: BASE_KEY_ID });
  assertNoSecrets(result);
});
