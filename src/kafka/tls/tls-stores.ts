/**
 * A cluster's JKS and PKCS12 stores, read once when the clients are made, so that a wrong
 * password or an unreadable file ends the command before any connection, as a configuration
 * error naming the cluster, the file and the setting (never the password).
 */
import { readFileSync } from 'node:fs';
import type { ClusterConnection } from '../../core/cluster';
import { ConfigError } from '../../core/errors';
import type { ClientCredentials } from './java-keystore';

/**
 * The store reader (jks-js, node-forge: about a tenth of the modules a pipeline loads) is loaded
 * on the first store file, not with the clients: most pipelines have none.
 */
function keystores(): typeof import('./java-keystore') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use, see above
  return require('./java-keystore') as typeof import('./java-keystore');
}

export interface TlsStores {
  /** PEM of the truststore's trusted certificates. */
  readonly ca: readonly string[];
  readonly credentials?: ClientCredentials;
}

export function readTlsStores(connection: ClusterConnection): TlsStores {
  const ssl = connection.security.ssl;
  if (ssl === undefined) return { ca: [] };
  const ca =
    ssl.truststoreFile === undefined
      ? []
      : read(connection.alias, 'truststore', ssl.truststoreFile, (bytes) => keystores().trustedCertificates(bytes, ssl.truststorePassword));
  const credentials =
    ssl.keystoreFile === undefined
      ? undefined
      : read(connection.alias, 'keystore', ssl.keystoreFile, (bytes) => keystores().clientCredentials(bytes, ssl.keystorePassword ?? '', ssl.keyPassword));
  return { ca, credentials };
}

function read<T>(cluster: string, store: 'truststore' | 'keystore', file: string, parse: (bytes: Buffer) => T): T {
  const path = `clusters.${cluster}.security.ssl`;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new ConfigError([{ path: `${path}.${store}_file`, message: `cluster "${cluster}": the ${store} ${file} cannot be read (${fsReason(error)})` }]);
  }
  try {
    return parse(bytes);
  } catch (error) {
    if (!(error instanceof keystores().KeystoreReadError)) throw error;
    const setting = error.wrongPassword && /key password/.test(error.message) ? 'key_password' : error.wrongPassword ? `${store}_password` : `${store}_file`;
    const mm2 = setting === 'key_password' ? 'ssl.key.password' : `ssl.${store}.${setting.endsWith('password') ? 'password' : 'location'}`;
    throw new ConfigError([
      { path: `${path}.${setting}`, message: `cluster "${cluster}": the ${store} ${file} cannot be read: ${error.message}`, hint: `MM2: ${mm2}` },
    ]);
  }
}

function fsReason(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  return code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? String(error));
}
