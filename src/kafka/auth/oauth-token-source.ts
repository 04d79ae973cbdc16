/**
 * OAuth tokens for SASL/OAUTHBEARER, got with the client-credentials grant as Kafka's Java client
 * gets them (its ClientCredentialsJwtRetriever): a POST of `grant_type=client_credentials` (and
 * `scope=…` when one is set) as a form, the client id and secret in an HTTP Basic `Authorization`
 * header, `Accept: application/json`; the answer's `access_token` is the token. One token per
 * cluster is kept and shared by every connection, and asked for again once 80 % of its lifetime
 * has passed (refreshing-token.ts), so a broker that makes clients re-authenticate
 * (`connections.max.reauth.ms`) gets a fresh one. Lifetime: the token's `exp` claim
 * when it is a JWT (what brokers check), else the answer's `expires_in`.
 *
 * Errors name the cluster and the endpoint (without any user info or query), never the secret or
 * a token; every token received is added to the process's known secrets, so no log can show it.
 */
import { MirrorflowError } from '../../core/errors';
import type { OAuthClientCredentials } from '../../core/cluster';
import { describeEndpoint } from '../../core/describe-endpoint';
import { knownSecrets, type SecretValues } from '../../core/secrets';
import { RefreshingToken, type BearerTokenSource, type FetchedToken } from './refreshing-token';

/** The token endpoint could not be reached or would not give a token. `retriable` when trying later can help. */
export class OAuthTokenError extends MirrorflowError {
  override readonly name = 'OAuthTokenError';
  override readonly code = 'OAUTH_TOKEN';
  override readonly retriable: boolean;

  constructor(
    readonly cluster: string,
    /** What failed, without the cluster. */
    readonly reason: string,
    retriable: boolean,
  ) {
    super(`Cluster "${cluster}": ${reason}`);
    this.retriable = retriable;
  }
}

export interface OAuthTokenSourceOptions {
  /** Per request to the token endpoint, ms. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
  readonly secrets?: SecretValues;
}

/** For a token that says nothing of its lifetime. */
const UNKNOWN_LIFETIME_MS = 5 * 60_000;

export class OAuthTokenSource implements BearerTokenSource {
  private readonly held: RefreshingToken;
  private readonly now: () => number;

  constructor(
    readonly cluster: string,
    private readonly credentials: OAuthClientCredentials,
    private readonly options: OAuthTokenSourceOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.held = new RefreshingToken(() => this.fetchToken(), this.now, options.secrets ?? knownSecrets);
  }

  /** A valid token: the one held, or a new one when it is due for refresh (one request at a time). */
  token(): Promise<string> {
    return this.held.token();
  }

  private async fetchToken(): Promise<FetchedToken> {
    const { tokenEndpointUrl, clientId, clientSecret, scope } = this.credentials;
    const endpoint = describeEndpoint(tokenEndpointUrl);
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined && scope.trim() !== '') body.set('scope', scope);
    let response: Response;
    try {
      response = await fetch(tokenEndpointUrl, {
        method: 'POST',
        headers: {
          Accept: 'application/json',
          Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64')}`,
          'Cache-Control': 'no-cache',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: body.toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new OAuthTokenError(this.cluster, `cannot get an OAuth token: the token endpoint ${endpoint} cannot be reached (${networkReason(error)})`, true);
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      const refused = response.status === 400 || response.status === 401 || response.status === 403;
      const code = oauthErrorCode(text);
      throw new OAuthTokenError(
        this.cluster,
        `cannot get an OAuth token: the token endpoint ${endpoint} answered ${response.status}${code === undefined ? '' : ` (${code})`}` +
          (refused ? '; check the client id and secret' : ''),
        !refused,
      );
    }
    const value = accessToken(text);
    if (value === undefined) {
      throw new OAuthTokenError(this.cluster, `the token endpoint ${endpoint} answered without an access_token`, false);
    }
    return { value, lifetimeMs: tokenLifetimeMs(value, text, this.now()) ?? UNKNOWN_LIFETIME_MS };
  }
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if ((error as { name?: unknown } | undefined)?.name === 'TimeoutError') return 'timed out';
  return 'connection failed';
}

/** OAuth's `error` field (`invalid_client`, …): a fixed code, safe to show, unlike `error_description`. */
function oauthErrorCode(text: string): string | undefined {
  const code = parseJson(text)?.['error'];
  return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : undefined;
}

function accessToken(text: string): string | undefined {
  const token = parseJson(text)?.['access_token'];
  return typeof token === 'string' && token !== '' ? token : undefined;
}

function tokenLifetimeMs(token: string, text: string, now: number): number | undefined {
  const parts = token.split('.');
  if (parts.length === 3) {
    const payload = parseJson(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    const exp = payload?.['exp'];
    if (typeof exp === 'number' && exp * 1000 > now) return exp * 1000 - now;
  }
  const expiresIn = parseJson(text)?.['expires_in'];
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
