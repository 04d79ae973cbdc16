import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretValues } from '../../core/secrets';
import { OAuthTokenError, OAuthTokenSource } from './oauth-token-source';

interface Seen {
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A token endpoint on loopback answering with `answer(request number)`. */
async function withEndpoint(answer: (n: number, res: ServerResponse) => void, run: (url: string, seen: Seen[]) => Promise<void>): Promise<void> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', headers: req.headers, body });
      answer(seen.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth2/token`, seen);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const credentials = (url: string) => ({ tokenEndpointUrl: url, clientId: 'mirror flow', clientSecret: 'cs:42/x', scope: 'kafka write' });

test('asks for a token as Kafka’s Java client does: a form POST with the client id and secret in a Basic header', async () => {
  await withEndpoint(
    (n, res) => json(res, 200, { access_token: `tok-${n}`, token_type: 'bearer', expires_in: 3600 }),
    async (url, seen) => {
      const source = new OAuthTokenSource('backup', credentials(url), { secrets: new SecretValues() });
      assert.equal(await source.token(), 'tok-1');
      const request = seen[0]!;
      assert.equal(request.method, 'POST');
      assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.equal(request.headers['accept'], 'application/json');
      assert.equal(request.headers['authorization'], `Basic ${Buffer.from('mirror flow:cs:42/x').toString('base64')}`);
      assert.deepEqual(Object.fromEntries(new URLSearchParams(request.body)), { grant_type: 'client_credentials', scope: 'kafka write' });
    },
  );
});

test('keeps the token until 80 % of its lifetime, then gets a new one; concurrent callers share one request', async () => {
  let now = 1_000_000;
  await withEndpoint(
    (n, res) => json(res, 200, { access_token: `tok-${n}`, expires_in: 100 }),
    async (url, seen) => {
      const secrets = new SecretValues();
      const source = new OAuthTokenSource('backup', credentials(url), { now: () => now, secrets });
      assert.deepEqual(await Promise.all([source.token(), source.token(), source.token()]), ['tok-1', 'tok-1', 'tok-1']);
      now += 79_000;
      assert.equal(await source.token(), 'tok-1');
      assert.equal(seen.length, 1);
      now += 2_000;
      assert.equal(await source.token(), 'tok-2');
      assert.equal(seen.length, 2);
      assert.equal(secrets.mask('sent tok-1 and tok-2'), 'sent tok-1 and [redacted]', 'the token in use is a known secret, the old one is dropped');
    },
  );
});

test('when a refresh fails, the token held is used until it expires', async () => {
  let now = 1_000_000;
  await withEndpoint(
    (n, res) => (n === 1 ? json(res, 200, { access_token: 'tok-1', expires_in: 100 }) : json(res, 503, { error: 'temporarily_unavailable' })),
    async (url) => {
      const source = new OAuthTokenSource('backup', credentials(url), { now: () => now, secrets: new SecretValues() });
      assert.equal(await source.token(), 'tok-1');
      now += 90_000;
      assert.equal(await source.token(), 'tok-1', 'due for refresh, the endpoint fails, the token still works');
      now += 20_000;
      const error = await source.token().then(
        () => assert.fail('expected a failure'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof OAuthTokenError);
      assert.equal(error.retriable, true, 'a 503 passes with time');
    },
  );
});

test('a JWT’s exp claim sets its lifetime', async () => {
  const now = 2_000_000_000_000;
  const jwt = (exp: number): string =>
    [{ alg: 'none' }, { sub: 'mf', exp }].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.';
  await withEndpoint(
    (n, res) => json(res, 200, { access_token: jwt(now / 1000 + 10 * n), expires_in: 3600 }),
    async (url, seen) => {
      let clock = now;
      const source = new OAuthTokenSource('backup', credentials(url), { now: () => clock, secrets: new SecretValues() });
      await source.token();
      clock += 9_000; // past 80 % of the JWT's 10 s, far below expires_in's hour
      await source.token();
      assert.equal(seen.length, 2);
    },
  );
});

test('a refused client names the cluster, the endpoint and the OAuth error, never the secret; it is not retriable', async () => {
  await withEndpoint(
    (_n, res) => json(res, 401, { error: 'invalid_client', error_description: 'bad secret cs:42/x' }),
    async (url) => {
      const source = new OAuthTokenSource('backup', credentials(url), { secrets: new SecretValues() });
      const error = await source.token().then(
        () => assert.fail('expected a failure'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof OAuthTokenError);
      assert.equal(error.retriable, false);
      assert.match(
        error.message,
        /^Cluster "backup": cannot get an OAuth token: the token endpoint http:\/\/127\.0\.0\.1:\d+\/oauth2\/token answered 401 \(invalid_client\); check the client id and secret$/,
      );
      assert.ok(!error.message.includes('cs:42'));
    },
  );
});

test('an endpoint that cannot be reached is retriable and named', async () => {
  let closedUrl = '';
  await withEndpoint(
    () => undefined,
    async (url) => void (closedUrl = url),
  );
  const source = new OAuthTokenSource('primary', credentials(closedUrl), { secrets: new SecretValues() });
  const error = await source.token().then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OAuthTokenError);
  assert.equal(error.retriable, true);
  assert.match(
    error.message,
    /^Cluster "primary": cannot get an OAuth token: the token endpoint http:\/\/127\.0\.0\.1:\d+\/oauth2\/token cannot be reached \(ECONNREFUSED\)$/,
  );
});
