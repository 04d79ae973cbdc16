import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SecretValues } from '../../core/secrets';
import { OAuthTokenError } from './oauth-token-source';
import { MskIamTokenSource, type MskIamSigner } from './msk-iam-token-source';

type Call = { readonly fn: string; readonly options: Record<string, unknown> };

/** A signer that records its calls and answers token-1, token-2, … valid `lifetimeMs` from `now()`. */
function fakeSigner(now: () => number, lifetimeMs = 900_000, fail?: Error): { signer: () => Promise<MskIamSigner>; calls: Call[] } {
  const calls: Call[] = [];
  const answer = (fn: string) => async (options: object) => {
    calls.push({ fn, options: options as Record<string, unknown> });
    if (fail !== undefined) throw fail;
    return { token: `token-${calls.length}`, expiryTime: now() + lifetimeMs };
  };
  const signer = {
    generateAuthToken: answer('default'),
    generateAuthTokenFromProfile: answer('profile'),
    generateAuthTokenFromRole: answer('role'),
  } as unknown as MskIamSigner;
  return { signer: () => Promise.resolve(signer), calls };
}

test('signs with the default chain, a profile or a role, for the region', async () => {
  const now = () => 1_000;
  const cases = [
    [{ region: 'eu-west-1' }, 'default', { region: 'eu-west-1' }],
    [{ region: 'eu-west-1', profile: 'p' }, 'profile', { region: 'eu-west-1', awsProfileName: 'p' }],
    [
      { region: 'eu-west-1', roleArn: 'arn:aws:iam::1:role/r', roleSessionName: 's' },
      'role',
      { region: 'eu-west-1', awsRoleArn: 'arn:aws:iam::1:role/r', awsRoleSessionName: 's' },
    ],
  ] as const;
  for (const [settings, fn, options] of cases) {
    const { signer, calls } = fakeSigner(now);
    const source = new MskIamTokenSource('msk', settings, { now, signer, secrets: new SecretValues(), env: {} });
    assert.equal(await source.token(), 'token-1');
    assert.deepEqual(calls, [{ fn, options }]);
  }
});

test('keeps a token until 80 % of its lifetime, then signs a new one; tokens and the environment secrets are known secrets', async () => {
  let now = 10_000;
  const { signer, calls } = fakeSigner(() => now, 100_000);
  const secrets = new SecretValues();
  const source = new MskIamTokenSource(
    'msk',
    { region: 'eu-west-1' },
    {
      now: () => now,
      signer,
      secrets,
      env: { AWS_SECRET_ACCESS_KEY: 'wJalr-secret-key', AWS_SESSION_TOKEN: 'session-tok-1' },
    },
  );
  assert.equal(secrets.mask('a wJalr-secret-key b session-tok-1'), 'a [redacted] b [redacted]');
  assert.equal(await source.token(), 'token-1');
  now += 79_000;
  assert.equal(await source.token(), 'token-1');
  now += 2_000;
  assert.equal(await source.token(), 'token-2');
  assert.equal(calls.length, 2);
  assert.equal(secrets.mask('token-2'), '[redacted]');
  assert.equal(secrets.mask('token-1'), 'token-1', 'the replaced token is forgotten');
});

test('no credentials: an error naming the cluster and where credentials were looked for, not retried', async () => {
  const missing = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
  const { signer } = fakeSigner(() => 0, 900_000, missing);
  const source = new MskIamTokenSource('msk', { region: 'eu-west-1', profile: 'mirror' }, { signer, secrets: new SecretValues(), env: {} });
  const error = await source.token().then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OAuthTokenError);
  assert.equal(
    error.message,
    'Cluster "msk": cannot sign an AWS MSK IAM token: no credentials from profile "mirror": Could not load credentials from any providers',
  );
  assert.equal(error.retriable, false);
});

test('loads AWS’s signer only when the first token is asked for, and its token is a presigned kafka-cluster:Connect URL', async () => {
  const source = new MskIamTokenSource(
    'msk',
    { region: 'eu-west-1' },
    {
      secrets: new SecretValues(),
      env: { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    },
  );
  const before = Object.keys(require.cache).some((file) => file.includes('aws-msk-iam-sasl-signer-js'));
  assert.equal(before, false, 'not loaded by making the source');
  const saved = { ...process.env };
  process.env['AWS_ACCESS_KEY_ID'] = 'AKIDEXAMPLE';
  process.env['AWS_SECRET_ACCESS_KEY'] = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
  delete process.env['AWS_SESSION_TOKEN'];
  delete process.env['AWS_PROFILE'];
  try {
    const url = new URL(Buffer.from(await source.token(), 'base64url').toString('utf8'));
    assert.equal(url.host, 'kafka.eu-west-1.amazonaws.com');
    assert.equal(url.searchParams.get('Action'), 'kafka-cluster:Connect');
    assert.match(url.searchParams.get('X-Amz-Credential') ?? '', /^AKIDEXAMPLE\/\d{8}\/eu-west-1\/kafka-cluster\/aws4_request$/);
    assert.equal(url.searchParams.get('X-Amz-Expires'), '900');
    assert.ok(!url.href.includes('wJalrXUtnFEMI'), 'the secret key is not in the token');
  } finally {
    process.env = saved;
  }
});
