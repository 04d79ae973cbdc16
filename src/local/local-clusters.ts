import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalKafkaError } from '../core/errors';
import { silentLogger, type Logger } from '../core/ports/logger';
import type { BrokerPropertyOverrides } from './broker-properties';
import { DEFAULT_KAFKA_VERSION, ensureKafkaDistribution, type KafkaDistribution } from './kafka-distribution';
import type { BrokerHandle, JvmProfile } from './local-broker';
import { startCluster, validateBrokerCount, type ClusterHandle, type LocalCluster } from './local-cluster';
import type { LocalSecurityOptions } from './local-security';
import { DEFAULT_ALIASES } from './local-defaults';
import { processWatchdog } from './watchdog';

export interface StartLocalClustersOptions {
  /** One independent cluster per alias. Default `['primary', 'backup']`. */
  readonly aliases?: readonly string[];
  /** Kafka release from Maven Central. Default `$MIRRORFLOW_KAFKA_VERSION` or DEFAULT_KAFKA_VERSION. */
  readonly version?: string;
  /**
   * Nodes per cluster, each a broker and a controller voter. Default 1. From 3 on, a cluster is
   * run as production clusters are: replication factor 3 for every topic (the internal ones
   * too), `min.insync.replicas=2`, no unclean leader election (see broker-properties.ts).
   */
  readonly brokers?: number;
  /** Cache root for the jars (see ensureKafkaDistribution). */
  readonly cacheDir?: string;
  /** Parent of the per-cluster temp dirs. Default the OS temp dir. */
  readonly workDir?: string;
  /** Heap of each node in MiB. Default 512. */
  readonly heapMb?: number;
  /**
   * 'server' (default): nodes run as Kafka's scripts run brokers. 'lean': the serial collector
   * and the quick compiler only, for clusters of short tests on a small machine — measured on 2
   * cores, six nodes took 17.5 CPU-seconds to start instead of 27-34, and 10 instead of 14 a
   * minute while idle; a node's restart 2.6 instead of 4.3.
   */
  readonly jvmProfile?: JvmProfile;
  /** Folders or jars on every broker's classpath before Kafka's: classes that `brokerProperties` name. */
  readonly extraClasspath?: readonly string[];
  /** Free ports reserved per node for listeners that `brokerProperties` add (see StartClusterOptions.extraPorts). */
  readonly extraPorts?: number;
  /** JVM options of every node, before its main class: system properties such as `-Djava.security.krb5.conf=…` that broker properties cannot set. */
  readonly jvmOptions?: readonly string[];
  /** Added to (or, with `undefined`, removed from) every broker's server.properties. */
  readonly brokerProperties?: BrokerPropertyOverrides;
  /**
   * Secured listeners on every cluster: SASL_SSL (SCRAM-SHA-512, SCRAM-SHA-256, PLAIN), SSL with
   * client certificates, the StandardAuthorizer; what clients need is on `clusters[alias].security`.
   * Default none: PLAINTEXT only.
   */
  readonly security?: LocalSecurityOptions;
  /** Deadline for each node to answer after its JVM started. Default 90 s, 180 s for several nodes. */
  readonly startTimeoutMs?: number;
  readonly logger?: Logger;
}

export interface LocalClusters {
  readonly version: string;
  readonly distribution: KafkaDistribution;
  readonly clusters: Readonly<Record<string, LocalCluster>>;
  /**
   * `{ alias: "127.0.0.1:port" }`, the shape of MIRRORFLOW_TEST_CLUSTERS; every node's address,
   * comma-separated, for a cluster of several nodes.
   */
  bootstrapServers(): Record<string, string>;
  /**
   * The broker of single-node cluster `alias`, to halt and start again (same address, data and
   * cluster id) in tests that take a cluster away from its clients. Throws for an unknown alias,
   * and for a cluster of several nodes (use node() or nodes()).
   */
  broker(alias: string): RestartableBroker;
  /** Every node of `alias`, in id order, each to halt, kill and start again on its own. */
  nodes(alias: string): readonly RestartableBroker[];
  /** Node `id` (1 …) of `alias`. */
  node(alias: string, id: number): RestartableBroker;
  /** Stops every node (SIGTERM, then SIGKILL) and deletes their temp dirs. Idempotent. */
  stop(): Promise<void>;
}

/**
 * A node of LocalClusters with its cluster, without the final stop(), which belongs to
 * LocalClusters.stop().
 */
export type RestartableBroker = { readonly cluster: LocalCluster } & Pick<BrokerHandle, 'node' | 'running' | 'halt' | 'start' | 'restart'>;

export { DEFAULT_ALIASES };
/** Letters, digits, '_' and '-': safe in paths, and no '.', which MM2 uses as a separator. */
const ALIAS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function validateAliases(aliases: readonly string[]): void {
  if (aliases.length === 0) throw new LocalKafkaError('At least one cluster alias is needed.');
  for (const alias of aliases) {
    if (!ALIAS_PATTERN.test(alias)) {
      throw new LocalKafkaError(`"${alias}" is not a usable cluster alias; use letters, digits, "_" and "-".`);
    }
  }
  const duplicate = aliases.find((alias, index) => aliases.indexOf(alias) !== index);
  if (duplicate !== undefined) throw new LocalKafkaError(`Cluster alias "${duplicate}" is given twice.`);
}

/** The Kafka version to use when none is given: `$MIRRORFLOW_KAFKA_VERSION` or the default. */
export function defaultKafkaVersion(env: NodeJS.ProcessEnv = process.env): string {
  return env['MIRRORFLOW_KAFKA_VERSION'] || DEFAULT_KAFKA_VERSION;
}

/**
 * Starts independent KRaft clusters, one per alias, of `brokers` nodes each on free loopback
 * ports in its own temp dir, and resolves once every node serves clients. The clusters belong
 * to this process: `stop()` ends them, and if this process exits or is killed first, a watchdog
 * stops them and deletes their dirs. Either all start or none stays running.
 */
export async function startLocalClusters(options: StartLocalClustersOptions = {}): Promise<LocalClusters> {
  const aliases = options.aliases ?? DEFAULT_ALIASES;
  validateAliases(aliases);
  validateBrokerCount(options.brokers ?? 1);
  const logger = options.logger ?? silentLogger;
  const distribution = await ensureKafkaDistribution(options.version ?? defaultKafkaVersion(), {
    cacheDir: options.cacheDir,
    logger,
  });
  const watchdog = processWatchdog();
  const workDir = options.workDir ?? tmpdir();

  const results = await Promise.allSettled(
    aliases.map(async (alias) => {
      const dir = await mkdtemp(join(workDir, `mirrorflow-kafka-${alias}-`));
      try {
        return await startCluster({
          alias,
          distribution,
          dir,
          brokers: options.brokers,
          heapMb: options.heapMb,
          jvmProfile: options.jvmProfile,
          extraClasspath: options.extraClasspath,
          jvmOptions: options.jvmOptions,
          extraPorts: options.extraPorts,
          brokerProperties: options.brokerProperties,
          security: options.security,
          startTimeoutMs: options.startTimeoutMs,
          logger,
          watchdog,
        });
      } catch (error) {
        // The error carries the broker log's tail; the temp dir is of no further use.
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }),
  );
  const handles = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  if (failures.length > 0) {
    await Promise.all(handles.map((handle) => handle.stop()));
    throw failures[0];
  }
  return localClusters(distribution, handles);
}

function localClusters(distribution: KafkaDistribution, handles: readonly ClusterHandle[]): LocalClusters {
  const clusters = Object.fromEntries(handles.map((handle) => [handle.cluster.alias, handle.cluster]));
  const nodesOf = new Map(handles.map((handle) => [handle.cluster.alias, handle.nodes.map((node) => restartable(handle.cluster, node))]));
  let stopping: Promise<void> | undefined;
  const nodes = (alias: string): readonly RestartableBroker[] => {
    const found = nodesOf.get(alias);
    if (found === undefined)
      throw new LocalKafkaError(
        `No local cluster "${alias}" was started here; there are ${Object.keys(clusters)
          .map((a) => `"${a}"`)
          .join(', ')}.`,
      );
    return found;
  };
  return {
    version: distribution.version,
    distribution,
    clusters,
    bootstrapServers: () => Object.fromEntries(handles.map((handle) => [handle.cluster.alias, handle.cluster.bootstrapServers])),
    broker: (alias) => {
      const all = nodes(alias);
      if (all.length !== 1)
        throw new LocalKafkaError(`Local cluster "${alias}" has ${all.length} nodes: halt and start them one by one with node() or nodes().`);
      return all[0]!;
    },
    nodes,
    node: (alias, id) => {
      const found = nodes(alias).find((node) => node.node.id === id);
      if (found === undefined) throw new LocalKafkaError(`Local cluster "${alias}" has no node ${id}; its nodes are 1 to ${nodes(alias).length}.`);
      return found;
    },
    stop: () => (stopping ??= Promise.all(handles.map((handle) => handle.stop())).then(() => undefined)),
  };
}

function restartable(cluster: LocalCluster, handle: BrokerHandle): RestartableBroker {
  return {
    cluster,
    node: handle.node,
    get running() {
      return handle.running;
    },
    halt: (options) => handle.halt(options),
    start: () => handle.start(),
    restart: (options) => handle.restart(options),
  };
}
