/**
 * A Kafka broker that authenticates clients, for the security tests, and the OAuth server it
 * trusts. The broker (a cluster of the test file's own, see ownClusters) keeps the launcher's
 * PLAINTEXT listener for the tests' own kits and adds two SASL_PLAINTEXT listeners:
 *
 * - `OAUTH`: SASL/OAUTHBEARER, tokens checked by Kafka's own OAuthBearerValidatorCallbackHandler
 *   against the JWKS the OAuth server below publishes (RS256, keys made with node:crypto);
 * - `PLAIN_SASL`: SASL/PLAIN with one user, `mirror`, and the password PLAIN_PASSWORD.
 *
 * The OAuth server is a small HTTP server on 127.0.0.1: `POST /token` implements the
 * client-credentials grant for the clients it is given (HTTP Basic client authentication, as
 * Kafka's Java client sends it), `GET /jwks` publishes the signing key. Kafka 4 only fetches URLs
 * listed in the JVM system property `org.apache.kafka.sasl.oauthbearer.allowed.urls`; the broker
 * JVM gets it through JAVA_TOOL_OPTIONS, which every JVM reads from its environment, so the
 * launcher needs no option for it.
 */
import { generateKeyPairSync, createSign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import type { BrokerAddress } from '../../src/local';
import { ownClusters, type OwnClusters } from '../support/own-clusters';

export const PLAIN_USER = 'mirror';
export const PLAIN_PASSWORD = 'plain-right-Pw-51';

export interface OAuthClient {
  readonly secret: string;
  /** Sign its tokens with a key the JWKS does not publish: the broker must refuse them. */
  readonly rogue?: boolean;
}

export interface OAuthServer {
  readonly tokenUrl: string;
  readonly jwksUrl: string;
  /** Every access token handed out, in order. */
  readonly issued: string[];
  /** Every Authorization header received at /token. */
  readonly authorizations: string[];
  close(): Promise<void>;
}

export async function startOAuthServer(clients: Readonly<Record<string, OAuthClient>>, lifetimeSeconds = 3600): Promise<OAuthServer> {
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rogue = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(signing.publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const issued: string[] = [];
  const authorizations: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const answer = (status: number, json: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.method === 'GET' && req.url === '/jwks') return answer(200, { keys: [jwk] });
      if (req.method !== 'POST' || req.url !== '/token') return answer(404, { error: 'not_found' });
      const authorization = req.headers['authorization'] ?? '';
      authorizations.push(authorization);
      const form = new URLSearchParams(body);
      const [id, secret] = Buffer.from(authorization.replace(/^Basic /, ''), 'base64')
        .toString('utf8')
        .split(':');
      const client = id === undefined ? undefined : clients[id];
      if (form.get('grant_type') !== 'client_credentials') return answer(400, { error: 'unsupported_grant_type' });
      if (client === undefined || client.secret !== secret) return answer(401, { error: 'invalid_client' });
      const now = Math.floor(Date.now() / 1000);
      const claims = { sub: id, iat: now, exp: now + lifetimeSeconds, scope: form.get('scope') ?? 'kafka' };
      const token = signJwt(claims, client.rogue === true ? rogue.privateKey : signing.privateKey);
      issued.push(token);
      return answer(200, { access_token: token, token_type: 'Bearer', expires_in: lifetimeSeconds });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    tokenUrl: `${base}/token`,
    jwksUrl: `${base}/jwks`,
    issued,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function signJwt(claims: Record<string, unknown>, key: KeyObject): string {
  const encode = (part: unknown): string => Buffer.from(JSON.stringify(part)).toString('base64url');
  const input = `${encode({ alg: 'RS256', typ: 'JWT', kid: 'test-key' })}.${encode(claims)}`;
  return `${input}.${createSign('RSA-SHA256').update(input).sign(key).toString('base64url')}`;
}

/** A free loopback port (another process may take it before the broker binds it; the launcher then fails clearly). */
async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SecuredCluster {
  readonly clusters: OwnClusters<'secured'>;
  /** Started before the broker, stopped when the process ends. */
  oauth(): OAuthServer;
  /** `127.0.0.1:port` of the OAUTHBEARER listener. */
  oauthBootstrap(): string;
  /** `127.0.0.1:port` of the PLAIN listener. */
  plainBootstrap(): string;
}

/**
 * Call at the top of a test file: starts the OAuth server, then a broker of the file's own with
 * the two SASL listeners, before the file's first test.
 */
export function securedCluster(clients: Readonly<Record<string, OAuthClient>>): SecuredCluster {
  let server: OAuthServer | undefined;
  let oauthPort = 0;
  let plainPort = 0;
  // Registered before ownClusters' hook, so it runs first: the broker fetches the JWKS as it starts.
  before(async () => {
    server = await startOAuthServer(clients);
    [oauthPort, plainPort] = [await freePort(), await freePort()];
    process.env['JAVA_TOOL_OPTIONS'] = `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${server.jwksUrl}`;
  });
  after(() => server?.close());
  const listeners = (a: BrokerAddress, controller: boolean): string =>
    [
      `PLAINTEXT://${a.host}:${a.brokerPort}`,
      ...(controller ? [`CONTROLLER://${a.host}:${a.controllerPort}`] : []),
      `OAUTH://${a.host}:${oauthPort}`,
      `PLAIN_SASL://${a.host}:${plainPort}`,
    ].join(',');
  const clusters = ownClusters(['secured'] as const, {
    brokerProperties: {
      listeners: (a) => listeners(a, true),
      'advertised.listeners': (a) => listeners(a, false),
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,OAUTH:SASL_PLAINTEXT,PLAIN_SASL:SASL_PLAINTEXT',
      'listener.name.oauth.sasl.enabled.mechanisms': 'OAUTHBEARER',
      'listener.name.oauth.oauthbearer.sasl.jaas.config': 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
      'listener.name.oauth.oauthbearer.sasl.server.callback.handler.class': 'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler',
      'sasl.oauthbearer.jwks.endpoint.url': () => server!.jwksUrl,
      'listener.name.plain_sasl.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.plain_sasl.plain.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required user_${PLAIN_USER}="${PLAIN_PASSWORD}";`,
    },
  });
  return {
    clusters,
    oauth: () => server!,
    oauthBootstrap: () => `127.0.0.1:${oauthPort}`,
    plainBootstrap: () => `127.0.0.1:${plainPort}`,
  };
}
