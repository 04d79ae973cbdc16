/**
 * Secured listeners for a local cluster: a CA made at start, a broker certificate, SCRAM and PLAIN
 * users with random passwords, client certificates for mutual TLS (also an expired one and one
 * from a CA the broker does not trust, for tests), and the StandardAuthorizer with the launcher's
 * own `admin` as super user (and the broker itself, which reaches its own SSL listener with its
 * certificate). Everything lands in `<cluster dir>/security/`, readable by
 * the owner only; passwords are in one file there and nowhere else outside the broker's config.
 *
 * Listeners: SASL_SSL (SCRAM-SHA-512, SCRAM-SHA-256 and PLAIN), SSL with `ssl.client.auth=required`,
 * PLAINTEXT (kept for the launcher's readiness probe; with the authorizer on, an anonymous client
 * there is denied everything) and the controller's, SASL_PLAINTEXT with PLAIN as `admin`. The
 * broker's own traffic (transaction markers among it) goes over the SSL listener.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalKafkaError } from '../core/errors';
import { createCertificateAuthority, issueCertificate } from './certificates';

export interface LocalSecurityOptions {
  /** Users made with a random password for SCRAM-SHA-512, SCRAM-SHA-256 and PLAIN, each with a client certificate. Default `['alice']`. */
  readonly users?: readonly string[];
  /** The DNS names and IPv4 addresses the broker certificate names. Default `['127.0.0.1', 'localhost']`. */
  readonly brokerHosts?: readonly string[];
  /** StandardAuthorizer with ACLs (`allow.everyone.if.no.acl.found=false`). Default true. */
  readonly authorizer?: boolean;
}

/** A client certificate and its unencrypted PKCS#8 key, PEM files. */
export interface LocalClientCertificate {
  readonly certFile: string;
  readonly keyFile: string;
}

/** What a client needs to reach a secured local cluster; no secret itself, only where to find it. */
export interface LocalClusterSecurity {
  /** `127.0.0.1:port` of the SASL_SSL listener. */
  readonly saslSslBootstrap: string;
  /** `127.0.0.1:port` of the SSL listener, which requires a client certificate. */
  readonly sslBootstrap: string;
  readonly saslMechanisms: readonly string[];
  /** PEM file of the CA that signed the broker and client certificates. */
  readonly caFile: string;
  /** The super user the launcher authenticates as; its password is in `passwordsFile` too. */
  readonly superUser: string;
  readonly users: readonly string[];
  /** `user=password` lines (Java properties) for `superUser` and every user. Owner-readable only. */
  readonly passwordsFile: string;
  /** Client certificates by user (subject `CN=<user>`, mapped to principal `User:<user>`), including `superUser`. */
  readonly clientCertificates: Readonly<Record<string, LocalClientCertificate>>;
  /** A certificate for the first user that expired yesterday. */
  readonly expiredClientCertificate: LocalClientCertificate;
  /** A certificate for the first user from a CA the broker does not trust. */
  readonly untrustedClientCertificate: LocalClientCertificate;
  /** PEM file of that other CA: a client that trusts only it must refuse the broker. */
  readonly untrustedCaFile: string;
  readonly authorizer: boolean;
}

export interface SecurePorts {
  readonly host: string;
  readonly brokerPort: number;
  readonly controllerPort: number;
  readonly saslSslPort: number;
  readonly sslPort: number;
}

export interface PreparedSecurity {
  readonly descriptor: LocalClusterSecurity;
  /** Settings for server.properties (listeners, SASL, TLS, authorizer). */
  readonly brokerProperties: Readonly<Record<string, string>>;
  /** Arguments for `kafka-storage format` that create the SCRAM users. */
  readonly formatArgs: readonly string[];
}

export const LOCAL_SUPER_USER = 'admin';
export const LOCAL_SASL_MECHANISMS: readonly string[] = ['SCRAM-SHA-512', 'SCRAM-SHA-256', 'PLAIN'];
const USER_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const DAY_MS = 86_400_000;
/** The broker certificate's CN, and so its principal on the SSL listener it uses to reach itself. */
const BROKER_COMMON_NAME = 'mirrorflow-broker';
const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';

/** Makes the CA, certificates and passwords in `<dir>/security/` and the broker settings that use them. */
export async function prepareSecurity(dir: string, options: LocalSecurityOptions, ports: SecurePorts): Promise<PreparedSecurity> {
  const users = options.users ?? ['alice'];
  for (const user of users) {
    if (!USER_PATTERN.test(user) || user === LOCAL_SUPER_USER) {
      throw new LocalKafkaError(`"${user}" is not a usable local user name; use letters, digits, "_" and "-", and not "${LOCAL_SUPER_USER}".`);
    }
  }
  const first = users[0] ?? LOCAL_SUPER_USER;
  const securityDir = join(dir, 'security');
  await mkdir(securityDir, { recursive: true, mode: 0o700 });
  const write = async (name: string, content: string): Promise<string> => {
    const file = join(securityDir, name);
    await writeFile(file, content, { mode: 0o600 });
    await chmod(file, 0o600);
    return file;
  };

  const ca = createCertificateAuthority('mirrorflow local CA');
  const stranger = createCertificateAuthority('mirrorflow untrusted CA');
  const broker = issueCertificate(ca, { commonName: BROKER_COMMON_NAME, hosts: options.brokerHosts ?? ['127.0.0.1', 'localhost'] });
  const caFile = await write('ca.pem', ca.certificatePem);
  const untrustedCaFile = await write('untrusted-ca.pem', stranger.certificatePem);

  const everyone = [LOCAL_SUPER_USER, ...users];
  const passwords = new Map(everyone.map((user) => [user, randomBytes(18).toString('hex')]));
  const passwordsFile = await write('passwords.properties', [...passwords].map(([user, password]) => `${user}=${password}`).join('\n') + '\n');

  const clientCertificates: Record<string, LocalClientCertificate> = {};
  const saveClient = async (name: string, cert: { certificatePem: string; keyPem: string }): Promise<LocalClientCertificate> => ({
    certFile: await write(`${name}.pem`, cert.certificatePem),
    keyFile: await write(`${name}.key`, cert.keyPem),
  });
  for (const user of everyone) clientCertificates[user] = await saveClient(`client-${user}`, issueCertificate(ca, { commonName: user }));
  const expiredClientCertificate = await saveClient(
    'client-expired',
    issueCertificate(ca, { commonName: first, notBefore: new Date(Date.now() - 3 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) }),
  );
  const untrustedClientCertificate = await saveClient('client-untrusted', issueCertificate(stranger, { commonName: first }));

  const adminPassword = passwords.get(LOCAL_SUPER_USER)!;
  const authorizer = options.authorizer ?? true;
  const { host } = ports;
  const plainUsers = [...passwords].map(([user, password]) => `user_${user}="${password}"`).join(' ');
  const brokerProperties: Record<string, string> = {
    listeners: `PLAINTEXT://${host}:${ports.brokerPort},CONTROLLER://${host}:${ports.controllerPort},SASL_SSL://${host}:${ports.saslSslPort},SSL://${host}:${ports.sslPort}`,
    'advertised.listeners': `PLAINTEXT://${host}:${ports.brokerPort},SASL_SSL://${host}:${ports.saslSslPort},SSL://${host}:${ports.sslPort}`,
    'listener.security.protocol.map': 'CONTROLLER:SASL_PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL',
    // The broker reaches itself over its SSL listener with its own certificate (User:mirrorflow-broker,
    // a super user below): over PLAINTEXT it would be User:ANONYMOUS, denied the CLUSTER_ACTION that
    // transaction markers and the leaders' transaction checks need, so exactly-once could not commit.
    'inter.broker.listener.name': 'SSL',
    // The broker reaches its own controller as the super user.
    'sasl.mechanism.controller.protocol': 'PLAIN',
    'listener.name.controller.sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.controller.plain.sasl.jaas.config': `${PLAIN_MODULE} required username="${LOCAL_SUPER_USER}" password="${adminPassword}" user_${LOCAL_SUPER_USER}="${adminPassword}";`,
    'listener.name.sasl_ssl.sasl.enabled.mechanisms': LOCAL_SASL_MECHANISMS.join(','),
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': `${SCRAM_MODULE} required;`,
    'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config': `${SCRAM_MODULE} required;`,
    'listener.name.sasl_ssl.plain.sasl.jaas.config': `${PLAIN_MODULE} required ${plainUsers};`,
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.certificate.chain': broker.certificatePem + ca.certificatePem,
    'ssl.keystore.key': broker.keyPem,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.certificates': ca.certificatePem,
    'listener.name.ssl.ssl.client.auth': 'required',
    // CN=alice,O=mirrorflow local -> User:alice, the same principal as alice's SASL login.
    'ssl.principal.mapping.rules': 'RULE:^CN=([^,]+),.*$/$1/,DEFAULT',
  };
  if (authorizer) {
    brokerProperties['authorizer.class.name'] = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
    brokerProperties['allow.everyone.if.no.acl.found'] = 'false';
    brokerProperties['super.users'] = `User:${LOCAL_SUPER_USER};User:${BROKER_COMMON_NAME}`;
  }
  const formatArgs = [...passwords].flatMap(([user, password]) =>
    ['SCRAM-SHA-512', 'SCRAM-SHA-256'].flatMap((mechanism) => ['--add-scram', `${mechanism}=[name=${user},password=${password}]`]),
  );
  return {
    descriptor: {
      saslSslBootstrap: `${host}:${ports.saslSslPort}`,
      sslBootstrap: `${host}:${ports.sslPort}`,
      saslMechanisms: LOCAL_SASL_MECHANISMS,
      caFile,
      superUser: LOCAL_SUPER_USER,
      users,
      passwordsFile,
      clientCertificates,
      expiredClientCertificate,
      untrustedClientCertificate,
      untrustedCaFile,
      authorizer,
    },
    brokerProperties,
    formatArgs,
  };
}

/** The password of `user` on a secured local cluster, read from its passwords file. */
export async function readLocalPassword(security: LocalClusterSecurity, user: string): Promise<string> {
  const text = await readFile(security.passwordsFile, 'utf8');
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && line.slice(0, at) === user) return line.slice(at + 1);
  }
  throw new LocalKafkaError(`The local cluster has no user "${user}"; its users are listed in ${security.passwordsFile}.`);
}
