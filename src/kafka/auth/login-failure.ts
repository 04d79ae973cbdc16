/**
 * Why a secured cluster refused a connection, said in the user's terms: which user and mechanism
 * failed to authenticate, whose client certificate the broker refused (and whether it has
 * expired), or why the broker's certificate was not trusted, naming the CA file. Never a password
 * or a key: only user names, certificate subjects and file paths.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClusterConnection } from '../../core/cluster';
import { ClusterUnavailableError } from '../../core/errors';
import { toUnavailableError } from '../errors';
import { normalizePem } from '../tls/pem';

interface ErrorShape {
  name?: string;
  message?: string;
  type?: string;
  code?: unknown;
  cause?: unknown;
}

/** Node's codes for a broker certificate the client does not trust. */
const UNTRUSTED_BROKER = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
]);

/** TLS alerts a broker sends when it refuses the client's certificate (or that there is none). */
const REFUSED_CLIENT_CERTIFICATE =
  /alert (certificate unknown|bad certificate|certificate expired|unknown ca|certificate required|handshake failure)|SSL alert number (40|42|45|46|48|116)\b/i;

/** A ClusterUnavailableError for a failed first connection, explaining security failures. */
export function describeConnectFailure(connection: ClusterConnection, error: unknown): ClusterUnavailableError {
  const chain = causes(error);
  const { security } = connection;
  const sasl = chain.find((e) => e.name === 'KafkaJSSASLAuthenticationError' || e.type === 'SASL_AUTHENTICATION_FAILED');
  // A refused OAuth or AWS MSK IAM token is explained by toUnavailableError, below, naming the token endpoint's answer.
  if (sasl !== undefined && security.sasl !== undefined && 'username' in security.sasl) {
    return new ClusterUnavailableError(
      connection.alias,
      `authentication of user "${security.sasl.username}" with ${security.sasl.mechanism.toUpperCase()} failed: the broker does not know the user or the password is wrong`,
      { cause: error },
    );
  }
  const tls = describeTlsFailure(connection, error);
  if (tls !== undefined) return new ClusterUnavailableError(connection.alias, tls, { cause: error });
  return toUnavailableError(connection.alias, error);
}

/** How a TLS reason starts, whether it ends the start of a run or is retried as an outage. */
const TLS_FAILED = 'TLS verification failed: ';

/**
 * Why a TLS handshake failed, said in the user's terms (`TLS verification failed: …`): the
 * broker's certificate is not trusted (naming where the trusted CAs come from) or does not name
 * the host, or the broker refused the client certificate (naming it, and whether it expired).
 * Undefined when `error` is no TLS failure. Used for the first connection and, through the socket
 * factory, for every later one (tls-connect.ts), whose error then already says it.
 */
export function describeTlsFailure(connection: ClusterConnection, error: unknown): string | undefined {
  const chain = causes(error);
  const explained = chain.find((e) => plainMessage(e).startsWith(TLS_FAILED));
  if (explained !== undefined) return plainMessage(explained);
  const untrusted = chain.find((e) => UNTRUSTED_BROKER.has(String(e.code)));
  if (untrusted !== undefined) {
    const ssl = connection.security.ssl;
    const files = [ssl?.caFile, ssl?.truststoreFile].filter((file) => file !== undefined);
    const trusted = files.length > 0 ? files.join(' and ') : ssl?.ca !== undefined ? 'the inline ssl.ca certificates' : "Node's built-in CA list";
    return `${TLS_FAILED}the broker's certificate is not trusted (${plainMessage(untrusted)}); trusted CAs come from ${trusted}`;
  }
  const altName = chain.find((e) => e.code === 'ERR_TLS_CERT_ALTNAME_INVALID');
  if (altName !== undefined) {
    return `${TLS_FAILED}the broker's certificate does not name the host it was reached at (${plainMessage(altName)}); give the broker a certificate that names it, or turn host name verification off explicitly (ssl.verify_hostname: false; MM2: ssl.endpoint.identification.algorithm=)`;
  }
  const alert = chain.find((e) => REFUSED_CLIENT_CERTIFICATE.test(e.message ?? '') || REFUSED_CLIENT_CERTIFICATE.test(String(e.code)));
  if (alert !== undefined) return `${TLS_FAILED}the broker refused the TLS handshake: ${clientCertificateNote(connection)}`;
  return undefined;
}

function clientCertificateNote(connection: ClusterConnection): string {
  const ssl = connection.security.ssl;
  const pem = ssl?.cert !== undefined ? normalizePem(ssl.cert) : ssl?.certFile !== undefined ? readQuietly(ssl.certFile) : undefined;
  if (pem === undefined && ssl?.keystoreFile !== undefined) return `it refused the client certificate of the keystore ${ssl.keystoreFile}`;
  if (pem === undefined) return 'it requires a client certificate and none is configured (ssl.cert_file and ssl.key_file)';
  const where = ssl?.certFile ?? 'the inline ssl.cert';
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    return `it refused the client certificate of ${where}, which cannot be read as PEM`;
  }
  const subject = certificate.subject.split('\n').reverse().join(', ');
  const now = Date.now();
  const validTo = new Date(certificate.validTo);
  const validFrom = new Date(certificate.validFrom);
  const problem =
    validTo.getTime() < now
      ? `; it expired on ${validTo.toISOString()}`
      : validFrom.getTime() > now
        ? `; it is not valid before ${validFrom.toISOString()}`
        : ` (issued by ${certificate.issuer.split('\n').reverse().join(', ')}); the broker does not trust its issuer`;
  return `it refused the client certificate ${subject} of ${where}${problem}`;
}

function readQuietly(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function plainMessage(error: ErrorShape): string {
  return (error.message ?? String(error.code)).replace(/^Connection error: /, '');
}

function causes(error: unknown): ErrorShape[] {
  const chain: ErrorShape[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 10 && typeof current === 'object' && current !== null && !chain.includes(current as ErrorShape); depth++) {
    chain.push(current as ErrorShape);
    current = (current as ErrorShape).cause;
  }
  return chain;
}
