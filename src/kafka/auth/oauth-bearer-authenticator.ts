/**
 * SASL/OAUTHBEARER (RFC 7628) as a kafkajs authentication provider. kafkajs's own sends the token
 * and never reads the broker's answer, so a token the broker refuses passes for a success there:
 * the broker then waits for the end of the exchange, the next request breaks the connection, and
 * the failure looks like a broker that cannot be reached — retried forever as an outage. Here the
 * answer is read: an empty one means the token was accepted; an error document
 * (`{"status":"invalid_token",…}`) is answered with the `%x01` that ends the exchange, as the
 * RFC asks, and the authentication fails with KafkaJSSASLAuthenticationError, which is not
 * retried and ends a run with exit 69.
 */
import { KafkaJSSASLAuthenticationError, type AuthenticationProviderArgs, type Authenticator } from '../kafkajs';
import type { BearerTokenSource } from './refreshing-token';

const SOH = '\u0001';

/** kafkajs's typings give its errors no constructor arguments; at run time they take the message. */
const SaslAuthenticationError = KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;

/** SASL auth bytes travel as Kafka BYTES: an int32 length, then the bytes. */
function asKafkaBytes(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const out = Buffer.alloc(4 + bytes.length);
  out.writeInt32BE(bytes.length, 0);
  bytes.copy(out, 4);
  return out;
}

function fromKafkaBytes(raw: Buffer): Buffer {
  if (raw.length < 4) return Buffer.alloc(0);
  const length = raw.readInt32BE(0);
  return length <= 0 ? Buffer.alloc(0) : raw.subarray(4, 4 + length);
}

/** The `status` of the broker's error document (`invalid_token`, `invalid_scope`…), a fixed code, safe to show. */
function refusalStatus(challenge: Buffer): string {
  try {
    const status: unknown = (JSON.parse(challenge.toString('utf8')) as { status?: unknown }).status;
    return typeof status === 'string' && /^[a-z_]{1,64}$/.test(status) ? status : 'refused';
  } catch {
    return 'refused';
  }
}

/** `tokenKind` names the token in the refusal: `OAuth token`, or `AWS MSK IAM token`. */
export function oauthBearerAuthenticator(source: BearerTokenSource, tokenKind = 'OAuth token'): (args: AuthenticationProviderArgs) => Authenticator {
  return ({ host, port, logger, saslAuthenticate }) => ({
    authenticate: async () => {
      const token = await source.token();
      const broker = `${host}:${port}`;
      const answer = await saslAuthenticate<Buffer>({
        request: { encode: () => asKafkaBytes(`n,,${SOH}auth=Bearer ${token}${SOH}${SOH}`) },
        response: { decode: (raw) => raw, parse: (raw) => raw },
      });
      const challenge = answer === undefined ? Buffer.alloc(0) : fromKafkaBytes(answer);
      if (challenge.length === 0) {
        logger.debug('SASL OAUTHBEARER authentication successful', { broker });
        return;
      }
      // The broker fails the exchange once it gets %x01; that answer is the failure we report anyway.
      await saslAuthenticate({ request: { encode: () => asKafkaBytes(SOH) } }).catch(() => undefined); // expected: see above
      throw new SaslAuthenticationError(`SASL OAUTHBEARER authentication failed: the broker refused the ${tokenKind} (${refusalStatus(challenge)})`);
    },
  });
}
