import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { mskIamRegion } from '../msk-iam-region';
import { parseMm2Properties } from './parse-mm2-properties';
import { parsePipeline } from '../parse-pipeline';

const MSK_HOST = 'b-1.mirror.a1b2c3.c2.kafka.eu-west-1.amazonaws.com:9098';

const yaml = (sasl: string, bootstrap = MSK_HOST): string =>
  [
    'clusters:',
    '  primary: { bootstrap_servers: [127.0.0.1:9092] }',
    '  msk:',
    `    bootstrap_servers: [${bootstrap}]`,
    '    security:',
    '      protocol: sasl_ssl',
    `      sasl: ${sasl}`,
    'flows:',
    '  - { source: primary, target: msk, topics: [orders] }',
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

/** Runs `body` with AWS_REGION unset (the semantic checks read the process's environment, as the run does). */
function withoutAwsRegion<T>(body: () => T): T {
  const saved = process.env['AWS_REGION'];
  delete process.env['AWS_REGION'];
  try {
    return body();
  } finally {
    if (saved !== undefined) process.env['AWS_REGION'] = saved;
  }
}

describe('the region of an MSK IAM token', () => {
  it('is the one set, else the one of the bootstrap host names, else AWS_REGION', () => {
    assert.deepEqual(mskIamRegion('us-east-2', [MSK_HOST], {}), { region: 'us-east-2', from: 'sasl.region' });
    assert.deepEqual(mskIamRegion(undefined, ['127.0.0.1:1', MSK_HOST], { AWS_REGION: 'us-east-2' }), { region: 'eu-west-1', from: 'bootstrap_servers' });
    assert.deepEqual(mskIamRegion(undefined, ['boot-x.c1.kafka-serverless.ap-southeast-2.amazonaws.com:9098'], {}), {
      region: 'ap-southeast-2',
      from: 'bootstrap_servers',
    });
    assert.deepEqual(mskIamRegion(undefined, ['b-2.x.y.kafka.cn-north-1.amazonaws.com.cn:9098'], {}), { region: 'cn-north-1', from: 'bootstrap_servers' });
    assert.deepEqual(mskIamRegion(undefined, ['kafka.internal:9098'], { AWS_REGION: 'us-east-2' }), { region: 'us-east-2', from: 'AWS_REGION' });
    assert.equal(mskIamRegion(undefined, ['kafka.internal:9098'], {}), undefined);
  });
});

describe('sasl aws_msk_iam in a pipeline file', () => {
  it('reads the profile, or the role and its session name; upper case is accepted', () => {
    const profile = parsePipeline(yaml('{ mechanism: AWS_MSK_IAM, profile: mirror }'), 'p.yaml');
    assert.deepEqual(profile.clusters['msk']!.security.sasl, { mechanism: 'aws_msk_iam', profile: 'mirror' });
    const role = parsePipeline(
      yaml('{ mechanism: aws_msk_iam, region: us-east-2, role_arn: "arn:aws:iam::123456789012:role/msk-mirror", role_session_name: mf }'),
      'p.yaml',
    );
    assert.deepEqual(role.clusters['msk']!.security.sasl, {
      mechanism: 'aws_msk_iam',
      region: 'us-east-2',
      role_arn: 'arn:aws:iam::123456789012:role/msk-mirror',
      role_session_name: 'mf',
    });
  });

  it('refuses a cluster whose region nothing names, saying where it was looked for', () => {
    const problems = withoutAwsRegion(() => problemsOf(() => parsePipeline(yaml('{ mechanism: aws_msk_iam }', 'kafka.internal:9098'), 'p.yaml')));
    assert.deepEqual(problems, [
      "p.yaml:7:13: clusters.msk.security.sasl.region: mechanism aws_msk_iam needs an AWS region: none is set, the bootstrap servers do not name one (b-1.<cluster>.kafka.<region>.amazonaws.com), and AWS_REGION is not set\n  hint: add region: eu-west-1 (the MSK cluster's region)",
    ]);
  });

  it("refuses another mechanism's keys, a profile with a role, and AWS keys with another mechanism", () => {
    const problems = problemsOf(() =>
      parsePipeline(yaml('{ mechanism: aws_msk_iam, username: u, profile: p, role_arn: "arn:aws:iam::123456789012:role/r" }'), 'p.yaml'),
    );
    assert.ok(
      problems.some((p) => p.includes('"username" is not used with mechanism aws_msk_iam')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.includes('"profile" and "role_arn" are both set')),
      problems.join('\n'),
    );
    const scram = problemsOf(() => parsePipeline(yaml('{ mechanism: scram-sha-512, username: u, password: p, profile: x }'), 'p.yaml'));
    assert.ok(
      scram.some((p) => p.includes('"profile" is not used with mechanism scram-sha-512')),
      scram.join('\n'),
    );
    const badRole = problemsOf(() => parsePipeline(yaml('{ mechanism: aws_msk_iam, role_arn: my-role }'), 'p.yaml'));
    assert.ok(
      badRole.some((p) => p.includes('must be an IAM role ARN')),
      badRole.join('\n'),
    );
  });
});

const mm2 = (...lines: string[]): string =>
  [
    'clusters = primary, msk',
    'primary.bootstrap.servers = 127.0.0.1:9092',
    `msk.bootstrap.servers = ${MSK_HOST}`,
    'msk.security.protocol = SASL_SSL',
    'primary->msk.enabled = true',
    ...lines,
  ].join('\n');

describe('AWS MSK IAM in an mm2.properties file', () => {
  it('maps AWS_MSK_IAM with IAMLoginModule and IAMClientCallbackHandler, and its profile option', () => {
    const { config } = parseMm2Properties(
      mm2(
        'msk.sasl.mechanism = AWS_MSK_IAM',
        'msk.sasl.jaas.config = software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName="mirror";',
        'msk.sasl.client.callback.handler.class = software.amazon.msk.auth.iam.IAMClientCallbackHandler',
      ),
      'mm2.properties',
      { env: {} },
    );
    assert.deepEqual(config.clusters['msk']!.security.sasl, { mechanism: 'aws_msk_iam', profile: 'mirror' });
  });

  it('maps OAUTHBEARER with IAMOAuthBearerLoginCallbackHandler, and the role options', () => {
    const { config } = parseMm2Properties(
      mm2(
        'msk.sasl.mechanism = OAUTHBEARER',
        'msk.sasl.jaas.config = org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required awsRoleArn="arn:aws:iam::123456789012:role/msk-mirror" awsRoleSessionName="mm2";',
        'msk.sasl.login.callback.handler.class = software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler',
        'msk.sasl.client.callback.handler.class = software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler',
      ),
      'mm2.properties',
      { env: {} },
    );
    assert.deepEqual(config.clusters['msk']!.security.sasl, {
      mechanism: 'aws_msk_iam',
      role_arn: 'arn:aws:iam::123456789012:role/msk-mirror',
      role_session_name: 'mm2',
    });
  });

  it('warns about the options without effect, refuses the ones it cannot honour and handlers of other mechanisms', () => {
    const problems = problemsOf(() =>
      parseMm2Properties(
        mm2(
          'msk.sasl.mechanism = AWS_MSK_IAM',
          'msk.sasl.jaas.config = software.amazon.msk.auth.iam.IAMLoginModule required awsRoleArn="arn:aws:iam::123456789012:role/r" awsRoleSecretAccessKey="never-shown" awsDebugCreds="true";',
          'msk.sasl.client.callback.handler.class = software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler',
        ),
        'mm2.properties',
        { env: {} },
      ),
    );
    const text = problems.join('\n');
    assert.match(text, /login option "awsRoleSecretAccessKey" is not supported yet/);
    assert.match(text, /msk\.sasl\.client\.callback\.handler\.class: custom Java classes cannot run in mirrorflow/);
    assert.doesNotMatch(text, /awsDebugCreds/, 'a warning, not a problem');
    assert.ok(!text.includes('never-shown'));
    const wrongModule = problemsOf(() =>
      parseMm2Properties(
        mm2('msk.sasl.mechanism = AWS_MSK_IAM', 'msk.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required;'),
        'mm2.properties',
        { env: {} },
      ),
    );
    assert.match(wrongModule.join('\n'), /use software\.amazon\.msk\.auth\.iam\.IAMLoginModule/);
  });
});
