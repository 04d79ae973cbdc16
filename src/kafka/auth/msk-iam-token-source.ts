/**
 * AWS MSK IAM tokens for SASL/OAUTHBEARER, signed by AWS's own `aws-msk-iam-sasl-signer-js`: a
 * token is the base64url of a SigV4-presigned `https://kafka.<region>.amazonaws.com/?Action=kafka-cluster:Connect`
 * URL, valid 15 minutes (less when the credentials expire sooner), which MSK brokers check. The
 * credentials come from a named profile (`~/.aws/credentials` and `~/.aws/config`), from a role
 * assumed through STS, or else from AWS's default chain (environment, web identity, profile,
 * container and instance metadata). The package is loaded on the first token: it brings the AWS
 * SDK's credential providers, which only flows that use MSK IAM should pay for.
 *
 * Neither the secret key, the session token nor the token itself is ever shown: the secrets of the
 * environment's credentials and every token are added to the process's known secrets, and errors
 * say what failed without values.
 */
import type { AwsMskIamSettings } from '../../core/cluster';
import { knownSecrets, type SecretValues } from '../../core/secrets';
import { OAuthTokenError } from './oauth-token-source';
import { RefreshingToken, type BearerTokenSource, type FetchedToken } from './refreshing-token';

/** The functions of aws-msk-iam-sasl-signer-js that are used, as the package types them. */
export type MskIamSigner = Pick<
  typeof import('aws-msk-iam-sasl-signer-js'),
  'generateAuthToken' | 'generateAuthTokenFromProfile' | 'generateAuthTokenFromRole'
>;

export interface MskIamTokenSourceOptions {
  readonly now?: () => number;
  readonly secrets?: SecretValues;
  readonly env?: NodeJS.ProcessEnv;
  /** The signer; default the package, loaded on first use. */
  readonly signer?: () => Promise<MskIamSigner>;
}

/** Environment variables of AWS's default chain whose values are secrets. */
const SECRET_ENV = ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];

export class MskIamTokenSource implements BearerTokenSource {
  private readonly held: RefreshingToken;
  private readonly now: () => number;
  private readonly signer: () => Promise<MskIamSigner>;

  constructor(
    readonly cluster: string,
    private readonly settings: AwsMskIamSettings,
    options: MskIamTokenSourceOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    // `require`, not `import()`: the CLI's bundle runs from V8's code cache, where Node 20 has no
    // callback for a dynamic import ("A dynamic import callback was not specified"); the package is CommonJS.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.signer = options.signer ?? (async () => require('aws-msk-iam-sasl-signer-js') as MskIamSigner);
    const secrets = options.secrets ?? knownSecrets;
    const env = options.env ?? process.env;
    for (const name of SECRET_ENV) secrets.add(env[name]);
    this.held = new RefreshingToken(() => this.sign(), this.now, secrets);
  }

  token(): Promise<string> {
    return this.held.token();
  }

  private async sign(): Promise<FetchedToken> {
    const { region, profile, roleArn, roleSessionName } = this.settings;
    const signer = await this.signer();
    let signed: { token: string; expiryTime: number };
    try {
      signed =
        profile !== undefined
          ? await signer.generateAuthTokenFromProfile({ region, awsProfileName: profile })
          : roleArn !== undefined
            ? await signer.generateAuthTokenFromRole({
                region,
                awsRoleArn: roleArn,
                ...(roleSessionName !== undefined && { awsRoleSessionName: roleSessionName }),
              })
            : await signer.generateAuthToken({ region });
    } catch (error) {
      throw new OAuthTokenError(this.cluster, `cannot sign an AWS MSK IAM token: ${this.credentialsReason(error)}`, isRetriable(error));
    }
    return { value: signed.token, lifetimeMs: Math.max(signed.expiryTime - this.now(), 0) };
  }

  /** Where the credentials were looked for, and the SDK's reason (its messages name providers and profiles, never values). */
  private credentialsReason(error: unknown): string {
    const { profile, roleArn } = this.settings;
    const where =
      profile !== undefined
        ? `no credentials from profile "${profile}"`
        : roleArn !== undefined
          ? `role ${roleArn} could not be assumed`
          : "no credentials from AWS's default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, container or instance credentials)";
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `${where}: ${message}`;
  }
}

/** No credentials where they were looked for will not change by trying again; an STS call that failed may. */
function isRetriable(error: unknown): boolean {
  const name = (error as { name?: unknown } | undefined)?.name;
  return name !== 'CredentialsProviderError' && name !== 'AccessDenied' && name !== 'InvalidClientTokenId';
}
