/**
 * The files a pipeline's TLS settings name, read before anything connects, so that `validate`
 * (and the load of `run`, `plan` and the tools) report what `run` would otherwise meet later:
 * - the JKS and PKCS12 stores, read by the Kafka clients as they are made (a wrong password or an
 *   unreadable store ends `run` there): made here the same way, and dropped unused;
 * - the PEM files (`ca_file`, `cert_file`, `key_file`), which each connection reads again so that
 *   rotated certificates are used without a restart: one missing at start would only show as an
 *   outage retried forever. Each must be readable and hold a PEM block.
 */
import { readFileSync } from 'node:fs';
import type { ClusterConfig, PipelineConfig, SslConfig } from '../config';
import { ConfigError, type ConfigIssue } from '../core/errors';
import { silentLogger } from '../core/ports/logger';
import { KafkajsClients } from '../kafka';
import { toClusterConnection } from './wiring/cluster-connection';

const PEM_FILES = { ca_file: 'CA file', cert_file: 'client certificate file', key_file: 'client key file' } as const;

export function checkTlsFiles(config: PipelineConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const clusters = Object.values(config.clusters);
  for (const cluster of clusters) {
    if (cluster.security.protocol !== 'ssl' && cluster.security.protocol !== 'sasl_ssl') continue;
    for (const [path, ssl] of sslBlocks(cluster)) {
      for (const setting of Object.keys(PEM_FILES) as (keyof typeof PEM_FILES)[]) {
        const file = ssl[setting];
        if (file === undefined) continue;
        const problem = pemProblem(file, setting);
        if (problem !== undefined) issues.push({ path: `${path}.${setting}`, message: `the ${PEM_FILES[setting]} ${file} ${problem}` });
      }
    }
  }
  try {
    // Reads every JKS and PKCS12 store as `run` does; makes no connection.
    new KafkajsClients({ clusters: clusters.map(toClusterConnection), logger: silentLogger, clientIdPrefix: 'mirrorflow-check' });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // The key names the cluster (in a properties file, as MM2's setting): the message and hint need not.
    issues.push(...error.issues.map(({ hint: _, ...issue }) => ({ ...issue, message: issue.message.replace(/^cluster "[^"]*": /, '') })));
  }
  return issues;
}

/** The cluster's `ssl` block and each role's own, with their paths. */
function sslBlocks(cluster: ClusterConfig): [string, SslConfig][] {
  const base = `clusters.${cluster.alias}.security`;
  const blocks: [string, SslConfig][] = cluster.security.ssl === undefined ? [] : [[`${base}.ssl`, cluster.security.ssl]];
  for (const [role, own] of Object.entries(cluster.security.roles ?? {})) {
    if (own?.ssl !== undefined) blocks.push([`${base}.roles.${role}.ssl`, own.ssl]);
  }
  return blocks;
}

function pemProblem(file: string, setting: keyof typeof PEM_FILES): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
    return `cannot be read (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'a folder' : code})`;
  }
  const wanted = setting === 'key_file' ? /-----BEGIN [A-Z ]*PRIVATE KEY-----/ : /-----BEGIN CERTIFICATE-----/;
  return wanted.test(text)
    ? undefined
    : `holds no ${setting === 'key_file' ? 'PEM private key' : 'PEM certificate'} (-----BEGIN ${setting === 'key_file' ? '… PRIVATE KEY' : 'CERTIFICATE'}-----)`;
}
