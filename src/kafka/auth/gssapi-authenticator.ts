/**
 * SASL/GSSAPI — Kerberos, as Kafka's Java client speaks it (RFC 4752) — as a kafkajs
 * authentication provider, on the `kerberos` npm package: MIT Kerberos's GSS-API, compiled from
 * source against libkrb5 when mirrorflow is installed (an optional dependency: only a pipeline
 * that uses Kerberos loads it, and one without it is told how to get it).
 *
 * The exchange: the client's initial context token, the broker's answer (mutual authentication),
 * then the SASL security layer: the broker offers the layers it allows, wrapped; the client
 * chooses "none" (Kafka's brokers allow only that, `auth`; Kafka's traffic is protected by TLS,
 * not by SASL) and answers wrapped. kafkajs sends each token in a SaslAuthenticate request and
 * re-authenticates before the session the broker grants ends (`connections.max.reauth.ms`, or the
 * ticket's end), so an expired ticket is replaced on the next login: the GSS library gets a new
 * one from the keytab by itself (kerberos-environment.ts).
 */
import { KafkaJSSASLAuthenticationError, type AuthenticationProviderArgs, type Authenticator } from '../kafkajs';
import { kerberosFailure, loadKerberos, type KerberosIdentity, type KerberosModule } from './kerberos-environment';

/** kafkajs's typings give its errors no constructor arguments; at run time they take the message. */
const SaslAuthenticationError = KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;

/** RFC 4752's security layer bit for "no security layer". */
const NO_SECURITY_LAYER = 0x01;

/** SASL auth bytes travel as Kafka BYTES: an int32 length, then the bytes. */
function asKafkaBytes(bytes: Buffer): Buffer {
  const out = Buffer.alloc(4 + bytes.length);
  out.writeInt32BE(bytes.length, 0);
  bytes.copy(out, 4);
  return out;
}

function fromKafkaBytes(raw: Buffer | undefined): Buffer {
  if (raw === undefined || raw.length < 4) return Buffer.alloc(0);
  const length = raw.readInt32BE(0);
  return length <= 0 ? Buffer.alloc(0) : raw.subarray(4, 4 + length);
}

/**
 * The provider for one cluster. `identity` is who logs in (principal, keytab) and the broker's
 * service name; `cluster` names the cluster in failures; `load` gives the `kerberos` package
 * (specs give a fake).
 */
export function gssapiAuthenticator(
  cluster: string,
  identity: KerberosIdentity,
  load: (cluster: string) => KerberosModule = loadKerberos,
): (args: AuthenticationProviderArgs) => Authenticator {
  return ({ host, port, logger, saslAuthenticate }) => ({
    authenticate: async () => {
      const kerberos = load(cluster);
      const send = async (token: Buffer): Promise<Buffer> =>
        fromKafkaBytes(
          (await saslAuthenticate<Buffer>({
            request: { encode: () => asKafkaBytes(token) },
            response: { decode: (raw) => raw, parse: (raw) => raw },
          })) ?? undefined,
        );
      // The broker's principal is <service>/<host it is reached at>, as Kafka's Java client names it.
      const service = `${identity.serviceName}@${host}`;
      const broker = `${host}:${port}`;
      const gss = async <T>(step: string, call: () => Promise<T>): Promise<T> => {
        try {
          return await call();
        } catch (error) {
          throw kerberosFailure(cluster, identity, `${step} for ${identity.serviceName}/${host}`, error);
        }
      };
      const client = await gss('starting a Kerberos context', () =>
        kerberos.initializeClient(service, {
          mechOID: kerberos.GSS_MECH_OID_KRB5,
          ...(identity.principal !== undefined && { principal: identity.principal }),
        }),
      );
      let token = await gss('getting a service ticket', () => client.step(''));
      let challenge: Buffer;
      for (;;) {
        challenge = await send(Buffer.from(token ?? '', 'base64'));
        if (client.contextComplete) break;
        token = await gss("checking the broker's answer", () => client.step(challenge.toString('base64')));
      }
      // RFC 4752 §3.1: the broker's wrapped offer of security layers and its largest message.
      const offer = Buffer.from(await gss("reading the broker's security layer offer", () => client.unwrap(challenge.toString('base64'))), 'base64');
      if (offer.length < 4 || (offer[0]! & NO_SECURITY_LAYER) === 0) {
        throw new SaslAuthenticationError(
          `SASL GSSAPI authentication with ${broker} failed: the broker requires a SASL security layer (sasl.qop other than auth), which mirrorflow does not support; use TLS (SASL_SSL) for confidentiality`,
        );
      }
      // "No security layer", a largest message of 0 (none is wrapped), and no authorization id: the principal is the identity.
      const reply = await gss('answering the security layer offer', () => client.wrap(Buffer.from([NO_SECURITY_LAYER, 0, 0, 0]).toString('base64')));
      await send(Buffer.from(reply, 'base64'));
      logger.debug('SASL GSSAPI authentication successful', { broker, principal: client.username });
    },
  });
}
