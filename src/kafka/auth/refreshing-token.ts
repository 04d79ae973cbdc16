/**
 * The token a cluster's connections share, whatever issues it (an OAuth server, AWS's signer):
 * kept until 80 % of its lifetime has passed (Kafka's default `sasl.login.refresh.window.factor`),
 * then fetched again, one fetch at a time. While a due token has not expired, a failing fetch
 * still answers with it, so a token endpoint that is briefly away stops nothing. Every token is
 * added to the process's known secrets, and the one it replaces removed, so no log shows one.
 */
import type { SecretValues } from '../../core/secrets';

/** What the OAUTHBEARER authenticator asks for a token. */
export interface BearerTokenSource {
  token(): Promise<string>;
}

export interface FetchedToken {
  readonly value: string;
  readonly lifetimeMs: number;
}

interface HeldToken {
  readonly value: string;
  readonly refreshAt: number;
  readonly expiresAt: number;
}

const REFRESH_FACTOR = 0.8;

export class RefreshingToken implements BearerTokenSource {
  private held: HeldToken | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly fetch: () => Promise<FetchedToken>,
    private readonly now: () => number,
    private readonly secrets: SecretValues,
  ) {}

  token(): Promise<string> {
    const held = this.held;
    if (held !== undefined && this.now() < held.refreshAt) return Promise.resolve(held.value);
    this.pending ??= this.renew()
      .catch((error: unknown) => {
        if (held !== undefined && this.now() < held.expiresAt) return held.value;
        throw error;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async renew(): Promise<string> {
    const { value, lifetimeMs } = await this.fetch();
    const receivedAt = this.now();
    this.secrets.delete(this.held?.value);
    this.secrets.add(value);
    this.held = { value, refreshAt: receivedAt + lifetimeMs * REFRESH_FACTOR, expiresAt: receivedAt + lifetimeMs };
    return value;
  }
}
