/**
 * TLS connections whose certificates are read from their files at every new connection, never
 * kept for the life of the process: a CA bundle, client certificate, key, truststore or keystore
 * replaced on disk (a certificate rotated in place, a Kubernetes secret updated) is used from the
 * next connection on — after a broker restart, say — without restarting mirrorflow. kafkajs takes
 * TLS options once, when a client is made, so ours are built inside the socket factory it calls
 * for each connection.
 *
 * A file that cannot be read or parsed then, or a handshake that fails verification, fails that
 * connection only, with a message naming the cluster's files and the reason: kafkajs reports it as
 * a connection error, which the flows retry as an outage until the files or the broker are fixed.
 */
import { readFileSync } from 'node:fs';
import { isIP, type OnReadOpts } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';
import type { ClusterConnection, ClusterSecurity } from '../../core/cluster';
import type { ISocketFactory } from '../kafkajs';
import { normalizePem } from './pem';
import { readTlsStores } from './tls-stores';
import { KEEP_ALIVE_DELAY_MS, readFramed } from '../wire/framed-reads';

/**
 * Node's TLS options of a login, read now: trusted CAs from the PEM file, the inline PEM and the
 * truststore, the client certificate (PEM, or the keystore's), host name checks.
 */
export function readTlsOptions(connection: ClusterConnection): ConnectionOptions {
  const ssl = connection.security.ssl;
  const stores = readTlsStores(connection);
  const ca = [...(ssl?.caFile ? [readPem(connection.alias, 'ca_file', ssl.caFile)] : []), ...(ssl?.ca ? [normalizePem(ssl.ca)] : []), ...stores.ca];
  const client =
    stores.credentials !== undefined
      ? stores.credentials
      : {
          cert: ssl?.cert !== undefined ? normalizePem(ssl.cert) : ssl?.certFile ? readPem(connection.alias, 'cert_file', ssl.certFile) : undefined,
          key: ssl?.key !== undefined ? normalizePem(ssl.key) : ssl?.keyFile ? readPem(connection.alias, 'key_file', ssl.keyFile) : undefined,
          passphrase: ssl?.keyPassword,
        };
  return {
    rejectUnauthorized: ssl?.rejectUnauthorized ?? true,
    ca: ca.length > 0 ? ca : undefined,
    ...client,
    // Node checks the host name unless told otherwise; the chain is still verified.
    ...(ssl !== undefined && !ssl.verifyHostname && { checkServerIdentity: () => undefined }),
  };
}

/**
 * kafkajs's socket factory for TLS: options from `options()` at each connection, and a failed
 * handshake's error given the message `explain` makes of it (kafkajs reports `error.message`).
 * `framed`: its sockets read each response whole into a buffer of its size (../wire/framed-reads.ts).
 */
export function tlsSocketFactory(options: () => ConnectionOptions, explain: (error: Error) => string | undefined, framed = false): ISocketFactory {
  return ({ host, port, onConnect }) => {
    const connectWith = (onread?: OnReadOpts) =>
      connect({ host, port, ...(isIP(host) === 0 && { servername: host }), ...options(), ...(onread && { onread }) }, onConnect);
    const socket = framed ? readFramed(connectWith) : connectWith();
    socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
    // Added before kafkajs's own listener, so that it reads the explained message.
    socket.on('error', (error: Error) => {
      const explained = explain(error);
      if (explained !== undefined) error.message = explained;
    });
    return socket;
  };
}

/** Whether a login connects with TLS. */
export function usesTls(security: Pick<ClusterSecurity, 'protocol'>): boolean {
  return security.protocol === 'ssl' || security.protocol === 'sasl_ssl';
}

const PEM_FILES = { ca_file: 'CA file', cert_file: 'client certificate file', key_file: 'client key file' } as const;

function readPem(cluster: string, setting: 'ca_file' | 'cert_file' | 'key_file', file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code;
    throw new Error(`cluster "${cluster}": the ${PEM_FILES[setting]} ${file} (ssl.${setting}) cannot be read (${reason})`, { cause: error });
  }
}
