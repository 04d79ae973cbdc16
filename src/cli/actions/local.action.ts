import type { Logger } from '../../core/ports/logger';
import {
  detachedClusterStatus,
  downDetachedClusters,
  upDetachedClusters,
  type DetachedCluster,
  type DetachedClusterStatus,
  type LocalSecurityOptions,
} from '../../local';
import { textTable } from './text-table';
import { join } from 'node:path';
import { LocalKafkaError } from '../../core/errors';
import { defaultKafkaVersion, defaultLocalStateDir } from '../../local';
import { change, check, renderSteps, type ChangeStep } from '../../pipeline/tools/change-steps';

/** Options of `mirrorflow local up`, as parsed by the command. */
export interface LocalUpOptions {
  readonly aliases: readonly string[];
  /** Nodes per cluster; default 1. */
  readonly brokers?: number;
  /** Secured listeners, users and ACLs; undefined for PLAINTEXT only (the demo default). */
  readonly security?: LocalSecurityOptions;
  readonly version?: string;
  readonly stateDir?: string;
  readonly json: boolean;
  /** Say what would be started, start nothing. */
  readonly dryRun?: boolean;
}

export interface LocalStatusOptions {
  readonly stateDir?: string;
  readonly json: boolean;
}

export interface LocalDownOptions {
  readonly aliases: readonly string[];
  readonly stateDir?: string;
  /** Say what would be stopped and deleted, touch nothing. */
  readonly dryRun?: boolean;
}

/** Where the actions write; tests pass their own. */
export interface ActionOutput {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

const processOutput: ActionOutput = { out: process.stdout, err: process.stderr };

/** Starts clusters that keep running after the command ends and prints their addresses. */
export async function localUpAction(options: LocalUpOptions, output: ActionOutput = processOutput): Promise<void> {
  if (options.dryRun === true) {
    const recorded = await detachedClusterStatus({ stateDir: options.stateDir });
    const steps: ChangeStep[] = [];
    for (const alias of options.aliases) {
      const found = recorded.find((c) => c.alias === alias && c.nodes.some((n) => n.running));
      if (found !== undefined) {
        steps.push(check(alias, `already running at ${found.bootstrapServers} (pid ${found.nodes.map((n) => n.pid).join(' ')}): left as it is`));
        continue;
      }
      const brokers = options.brokers ?? 1;
      steps.push(
        change(
          alias,
          `start ${brokers === 1 ? 'a Kafka node (broker and controller)' : `${brokers} Kafka nodes (each a broker and a controller)`} of Kafka ${options.version ?? defaultKafkaVersion()} on free loopback ports, ` +
            `files in ${join(options.stateDir ?? defaultLocalStateDir(), alias)} (emptied first)${options.security === undefined ? '' : ', with SASL_SSL and mutual-TLS listeners, a CA, users and ACLs'}`,
        ),
      );
    }
    output.out.write(renderSteps(steps, true));
    return;
  }
  const result = await upDetachedClusters({
    aliases: options.aliases,
    brokers: options.brokers,
    version: options.version,
    stateDir: options.stateDir,
    security: options.security,
    logger: progressLogger(output.err),
  });
  const all = [...result.started, ...result.alreadyRunning].sort((a, b) => options.aliases.indexOf(a.alias) - options.aliases.indexOf(b.alias));
  if (options.json) {
    output.out.write(JSON.stringify(bootstrapMap(all)) + '\n');
    return;
  }
  const rows = all.map((cluster) => [
    cluster.alias,
    cluster.bootstrapServers,
    `Kafka ${cluster.version}`,
    nodeCount(cluster) === 1 ? `pid ${cluster.pid}` : `${nodeCount(cluster)} brokers, pids ${cluster.nodes.map((node) => node.pid).join(' ')}`,
    result.started.includes(cluster) ? 'started' : 'already running',
  ]);
  output.out.write(textTable(rows));
  output.out.write(securityLines(all));
  output.out.write(`\nFor the tests: export MIRRORFLOW_TEST_CLUSTERS='${JSON.stringify(bootstrapMap(all))}'\n`);
  output.out.write('Stop with: mirrorflow local down\n');
}

/** Lists recorded clusters with whether each still runs and answers. */
export async function localStatusAction(options: LocalStatusOptions, output: ActionOutput = processOutput): Promise<void> {
  const clusters = await detachedClusterStatus({ stateDir: options.stateDir });
  if (options.json) {
    output.out.write(JSON.stringify(clusters, undefined, 2) + '\n');
    return;
  }
  if (clusters.length === 0) {
    output.out.write('No local clusters are running. Start some with: mirrorflow local up\n');
    return;
  }
  output.out.write(textTable([['ALIAS', 'NODE', 'BOOTSTRAP', 'VERSION', 'PID', 'STATE', 'LOG'], ...clusters.flatMap(statusRows)]));
  output.out.write(securityLines(clusters));
}

/**
 * What a client needs for each secured cluster: the listener per protocol, mechanisms, the CA
 * file, the users, and where the passwords and client certificates are. Never a password.
 */
export function securityLines(clusters: readonly DetachedCluster[]): string {
  const lines: string[] = [];
  for (const { alias, security } of clusters) {
    if (security === undefined) continue;
    const certificates = security.clientCertificates[security.superUser];
    lines.push(
      '',
      `${alias} (secured):`,
      `  SASL_SSL  ${security.saslSslBootstrap}  mechanisms ${security.saslMechanisms.join(', ')}`,
      `  SSL       ${security.sslBootstrap}  client certificate required`,
      `  CA file: ${security.caFile}`,
      `  users: ${security.superUser} (super user), ${security.users.join(', ')}; passwords in ${security.passwordsFile}`,
      `  client certificates: ${certificates === undefined ? '(none)' : certificates.certFile.replace(/client-[^/]*\.pem$/, 'client-<user>.pem and .key')}`,
      `  authorizer: ${security.authorizer ? 'StandardAuthorizer; without an ACL only the super user may act' : 'none'}`,
    );
  }
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

/** Stops recorded clusters (all, or the aliases given) and removes their files. */
export async function localDownAction(options: LocalDownOptions, output: ActionOutput = processOutput): Promise<void> {
  if (options.dryRun === true) {
    const recorded = await detachedClusterStatus({ stateDir: options.stateDir });
    const unknown = options.aliases.filter((alias) => !recorded.some((c) => c.alias === alias));
    if (unknown.length > 0) throw new LocalKafkaError(`No local cluster is recorded under ${unknown.map((a) => `"${a}"`).join(', ')}.`);
    const chosen = options.aliases.length === 0 ? recorded : recorded.filter((c) => options.aliases.includes(c.alias));
    const steps = chosen.flatMap((c) => [
      ...c.nodes.filter((n) => n.running).map((n) => change(c.alias, `stop node ${n.id} (pid ${n.pid}, ${n.host}:${n.port})`)),
      change(c.alias, `delete ${c.dir}: its topics, records and consumer groups are gone for good`),
    ]);
    output.out.write(renderSteps(steps, true));
    return;
  }
  const stopped = await downDetachedClusters({ aliases: options.aliases, stateDir: options.stateDir });
  if (stopped.length === 0) {
    output.out.write('No local clusters were running.\n');
    return;
  }
  for (const cluster of stopped) output.out.write(`${cluster.alias} stopped\n`);
}

/** One row per node; a cluster of several nodes first has a row of its own with its bootstrap list. */
function statusRows(cluster: DetachedClusterStatus): string[][] {
  const state = (node: { running: boolean; answering: boolean }): string => (node.answering ? 'up' : node.running ? 'not answering' : 'dead');
  const nodes = cluster.nodes.map((node) => [
    cluster.alias,
    String(node.id),
    node.bootstrapServers,
    cluster.version,
    String(node.pid),
    state(node),
    node.logFile,
  ]);
  if (nodes.length === 1) return nodes;
  const up = cluster.nodes.filter((node) => node.answering).length;
  return [[cluster.alias, 'all', cluster.bootstrapServers, cluster.version, '', `${up} of ${nodes.length} up`, ''], ...nodes];
}

/** Nodes of a cluster recorded by `local up`; a state file of an older version lists none. */
function nodeCount(cluster: DetachedCluster): number {
  return (cluster as Partial<DetachedCluster>).nodes?.length ?? 1;
}

function bootstrapMap(clusters: readonly DetachedCluster[]): Record<string, string> {
  return Object.fromEntries(clusters.map((cluster) => [cluster.alias, cluster.bootstrapServers]));
}

/**
 * Start-up can take a while the first time (jar download); say what is happening on stderr, each
 * line led by the cluster and, in a cluster of several, the node it is about.
 */
function progressLogger(err: NodeJS.WritableStream, context: Readonly<Record<string, unknown>> = {}): Logger {
  const line = (message: string, meta: Readonly<Record<string, unknown>> | undefined): void => {
    const { cluster, node } = { ...context, ...meta };
    const about = [typeof cluster === 'string' ? cluster : undefined, node === undefined ? undefined : `node ${String(node)}`].filter(
      (part) => part !== undefined,
    );
    err.write(`${about.length === 0 ? '' : `${about.join(' ')}: `}${message}\n`);
  };
  return {
    error: (message, meta) => line(message, meta),
    warn: (message, meta) => line(message, meta),
    info: (message, meta) => line(message, meta),
    debug: () => undefined,
    child: (meta) => progressLogger(err, { ...context, ...meta }),
  };
}
