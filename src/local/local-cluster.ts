import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalKafkaError } from '../core/errors';
import { silentLogger, type Logger } from '../core/ports/logger';
import { brokerProperties, renderProperties, type BrokerPropertyOverrides, type QuorumVoter } from './broker-properties';
import { findFreePorts } from './free-ports';
import { javaCommand, type KafkaDistribution } from './kafka-distribution';
import { probeKafka } from './kafka-probe';
import { randomKafkaUuid } from './kafka-uuid';
import { launchBroker, nodeFiles, PortTakenError, PROBE_INTERVAL_MS, spawned, type BrokerHandle, type JvmProfile, type LocalNode } from './local-broker';
import { prepareSecurity, type LocalClusterSecurity, type LocalSecurityOptions } from './local-security';
import type { Watchdog } from './watchdog';

/**
 * One local KRaft cluster of one or more nodes, each a broker+controller JVM on loopback ports
 * of its own; together the nodes are the cluster's controller quorum, so with three nodes one
 * can be halted or killed (the active controller among them) and the others carry on.
 */

/** One running local cluster. Its top-level address fields are those of its first node. */
export interface LocalCluster {
  readonly alias: string;
  /** `127.0.0.1:<port>` of every node, comma-separated, for `bootstrap.servers`. */
  readonly bootstrapServers: string;
  readonly host: string;
  readonly port: number;
  readonly controllerPort: number;
  readonly clusterId: string;
  readonly version: string;
  /** Pid of the first node's JVM. */
  readonly pid: number;
  /** Work dir: the node's files (single node), or one `node-<id>` folder per node. */
  readonly dir: string;
  /** The first node's log file. */
  readonly logFile: string;
  /** Its secured listeners, when it was started with `security`. */
  readonly security?: LocalClusterSecurity;
  /** Every node, in id order (1 …). */
  readonly nodes: readonly LocalNode[];
  /** Each node's reserved ports (StartClusterOptions.extraPorts), in id order. */
  readonly extraPorts: readonly (readonly number[])[];
}

export interface StartClusterOptions {
  readonly alias: string;
  readonly distribution: KafkaDistribution;
  /** Work dir for this cluster; created if missing, and owned by the cluster from now on. */
  readonly dir: string;
  /** Nodes (combined broker+controller). Default 1. */
  readonly brokers?: number;
  readonly heapMb?: number;
  readonly jvmProfile?: JvmProfile;
  /** Folders or jars on the broker's classpath before Kafka's: classes that broker properties name (callback handlers). */
  readonly extraClasspath?: readonly string[];
  /**
   * Free ports to reserve for each node, for listeners that `brokerProperties` add: a property
   * given as a function sees its node's in `extraPorts`. Default 0.
   */
  readonly extraPorts?: number;
  /** JVM options of every node (see startLocalClusters). */
  readonly jvmOptions?: readonly string[];
  readonly brokerProperties?: BrokerPropertyOverrides;
  /** Secured listeners, users, certificates and the authorizer (see local-security.ts); single-node clusters only. */
  readonly security?: LocalSecurityOptions;
  /** Deadline for each node to answer after its JVM started. Default 90 s, 180 s for several nodes (they start at once). */
  readonly startTimeoutMs?: number;
  readonly logger?: Logger;
  /**
   * Undefined for a cluster that must outlive this process (`mirrorflow local up`); otherwise
   * the watchdog that stops its nodes if this process dies.
   */
  readonly watchdog?: Watchdog;
}

export interface ClusterHandle {
  /** Stays valid across halts and starts of its nodes; only pids change. */
  readonly cluster: LocalCluster;
  /** Every node, in id order. */
  readonly nodes: readonly BrokerHandle[];
  /** Stops every node (SIGTERM, SIGKILL after `graceMs`); then deletes the work dir unless `keepDir`. Final. */
  stop(options?: { graceMs?: number; keepDir?: boolean }): Promise<void>;
}

const HOST = '127.0.0.1';
const START_ATTEMPTS = 3;
export const MAX_LOCAL_BROKERS = 9;

/** Throws a LocalKafkaError unless `brokers` is a usable node count. */
export function validateBrokerCount(brokers: number): void {
  if (!Number.isInteger(brokers) || brokers < 1 || brokers > MAX_LOCAL_BROKERS) {
    throw new LocalKafkaError(`A local cluster has 1 to ${MAX_LOCAL_BROKERS} brokers; ${brokers} was asked for.`);
  }
}

/**
 * Formats storage and starts every node of one cluster on free loopback ports, then waits until
 * each serves clients. Retries with new ports when another process took a port first.
 */
export async function startCluster(options: StartClusterOptions): Promise<ClusterHandle> {
  const brokers = options.brokers ?? 1;
  validateBrokerCount(brokers);
  if (brokers > 1 && options.security !== undefined) {
    throw new LocalKafkaError(`Local cluster "${options.alias}": secured listeners are made for single-node clusters only.`);
  }
  const logger = (options.logger ?? silentLogger).child({ cluster: options.alias });
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, brokers, logger);
    } catch (error) {
      if (!(error instanceof PortTakenError)) throw error;
      if (attempt >= START_ATTEMPTS) {
        throw new LocalKafkaError(
          `Local Kafka cluster "${options.alias}" could not bind its ports in ${START_ATTEMPTS} attempts. Broker log:\n${error.excerpt}`,
        );
      }
      logger.warn('A port was taken before the broker could bind it; retrying with new ports.', { attempt });
    }
  }
}

/** A single node keeps its files in the cluster's dir, as it always has; several nodes one folder each. */
function nodeDir(dir: string, brokers: number, id: number): string {
  return brokers === 1 ? dir : join(dir, `node-${id}`);
}

async function startOnce(options: StartClusterOptions, brokers: number, logger: Logger): Promise<ClusterHandle> {
  const { alias, distribution, dir } = options;
  const ids = Array.from({ length: brokers }, (_, i) => i + 1);
  for (const id of ids) {
    const files = nodeFiles(nodeDir(dir, brokers, id));
    await rm(files.dataDir, { recursive: true, force: true });
    await rm(files.logDir, { recursive: true, force: true });
    await mkdir(files.dataDir, { recursive: true });
    await mkdir(files.logDir, { recursive: true });
  }
  const extra = options.extraPorts ?? 0;
  const ports = await findFreePorts(2 * brokers + (options.security ? 2 : 0) + extra * brokers, HOST);
  const extraOf = (id: number): number[] => ports.slice(ports.length - extra * brokers).slice(extra * (id - 1), extra * id);
  const portsOf = (id: number): { port: number; controllerPort: number } => ({ port: ports[2 * (id - 1)]!, controllerPort: ports[2 * (id - 1) + 1]! });
  const voters: QuorumVoter[] = ids.map((id) => ({ id, host: HOST, controllerPort: portsOf(id).controllerPort }));
  const clusterId = randomKafkaUuid();
  const first = portsOf(1);
  const secured =
    options.security &&
    (await prepareSecurity(dir, options.security, {
      host: HOST,
      brokerPort: first.port,
      controllerPort: first.controllerPort,
      saslSslPort: ports[2]!,
      sslPort: ports[3]!,
    }));
  const overrides = { ...secured?.brokerProperties, ...options.brokerProperties };
  await Promise.all(
    ids.map(async (id) => {
      const files = nodeFiles(nodeDir(dir, brokers, id));
      const { port, controllerPort } = portsOf(id);
      const properties = brokerProperties({
        brokerPort: port,
        controllerPort,
        dataDir: files.dataDir,
        host: HOST,
        nodeId: id,
        voters,
        overrides,
        extraPorts: extraOf(id),
      });
      const header =
        brokers === 1 ? `Local Kafka cluster "${alias}", written by mirrorflow.` : `Node ${id} of local Kafka cluster "${alias}", written by mirrorflow.`;
      // The file holds the broker's key and the PLAIN passwords when secured: owner-readable only.
      await writeFile(files.propertiesFile, renderProperties(properties, header), { mode: 0o600 });
      await formatStorage(distribution, clusterId, files.propertiesFile, files.logDir, alias, secured?.formatArgs ?? []);
    }),
  );

  // Every node at once: none answers before a majority of the quorum runs.
  const abort = new AbortController();
  const results = await Promise.allSettled(
    ids.map((id) =>
      launchBroker(
        {
          alias,
          id,
          distribution,
          dir: nodeDir(dir, brokers, id),
          watchDir: dir,
          host: HOST,
          ...portsOf(id),
          heapMb: options.heapMb,
          jvmProfile: options.jvmProfile,
          extraClasspath: options.extraClasspath,
          jvmOptions: options.jvmOptions,
          startTimeoutMs: options.startTimeoutMs ?? (brokers === 1 ? 90_000 : 180_000),
          logger: brokers === 1 ? logger : logger.child({ node: id }),
          watchdog: options.watchdog,
        },
        abort.signal,
      ).catch((error: unknown) => {
        abort.abort();
        throw error;
      }),
    ),
  );
  const nodes = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  if (failures.length > 0) {
    await Promise.all(nodes.map((node) => node.stop()));
    // A taken port is worth a new attempt; the nodes that gave up because of it are not the cause.
    throw failures.find((failure) => failure instanceof PortTakenError) ?? failures[0];
  }
  // A node is ready once it lists itself; a client's first Metadata may come from any node, so a
  // cluster of several is ready once each lists all (node 1 was seen listing only two of three).
  if (nodes.length > 1) {
    try {
      await untilEveryNodeListsAll(alias, nodes, Date.now() + (options.startTimeoutMs ?? 180_000));
    } catch (error) {
      await Promise.all(nodes.map((node) => node.stop()));
      throw error;
    }
  }

  const head = nodes[0]!;
  const cluster: LocalCluster = {
    alias,
    bootstrapServers: nodes.map((node) => node.node.bootstrapServers).join(','),
    host: HOST,
    port: head.node.port,
    controllerPort: head.node.controllerPort,
    clusterId,
    version: distribution.version,
    get pid() {
      return head.node.pid;
    },
    dir,
    logFile: head.node.logFile,
    ...(secured && { security: secured.descriptor }),
    nodes: nodes.map((node) => node.node),
    extraPorts: ids.map(extraOf),
  };
  let stopping: Promise<void> | undefined;
  return {
    cluster,
    nodes,
    stop: (stopOptions = {}) =>
      (stopping ??= (async () => {
        await Promise.all(nodes.map((node) => node.stop({ graceMs: stopOptions.graceMs })));
        if (!stopOptions.keepDir) await rm(dir, { recursive: true, force: true });
      })()),
  };
}

async function formatStorage(
  distribution: KafkaDistribution,
  clusterId: string,
  propertiesFile: string,
  logDir: string,
  alias: string,
  extraArgs: readonly string[],
): Promise<void> {
  const java = javaCommand(distribution, {
    mainClass: 'kafka.tools.StorageTool',
    args: ['format', '-t', clusterId, '-c', propertiesFile, ...extraArgs],
    profile: 'tool',
    logDir,
  });
  const child = spawn(java.command, java.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  await spawned(child, java.command, alias);
  const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
  if (code !== 0) {
    throw new LocalKafkaError(
      `Formatting the storage of local Kafka cluster "${alias}" failed (exit code ${code}):\n${output.trim().replace(/password=[^\]\s]*/g, 'password=(hidden)')}`,
    );
  }
}

/** Waits until every node's Metadata lists every node of the cluster, or `deadline` passed. */
async function untilEveryNodeListsAll(alias: string, nodes: readonly BrokerHandle[], deadline: number): Promise<void> {
  const want = nodes.map(({ node }) => node.id).sort((a, b) => a - b);
  for (;;) {
    const seen = await Promise.all(
      nodes.map(async ({ node }) => {
        const metadata = (await probeKafka(node.host, node.port).catch(() => undefined))?.metadata;
        return metadata === undefined ? [] : metadata.brokers.map((broker) => broker.nodeId).sort((a, b) => a - b);
      }),
    );
    if (seen.every((ids) => ids.join() === want.join())) return;
    if (Date.now() >= deadline)
      throw new LocalKafkaError(
        `Local Kafka cluster "${alias}": its nodes do not all list each other (${seen.map((ids, i) => `node ${nodes[i]!.node.id} lists ${ids.join(',') || 'none'}`).join('; ')}).`,
      );
    await sleep(PROBE_INTERVAL_MS);
  }
}
