import { after, before } from 'node:test';
import {
  startLocalClusters,
  type BrokerPropertyOverrides,
  type JvmProfile,
  type LocalCluster,
  type LocalClusters,
  type RestartableBroker,
} from '../../src/local';
import { KafkaKit } from './kafka-kit';
import { cleanupHarness } from './pipeline-harness';

/** Clusters of one test file, started for it alone; see ownClusters(). */
export interface OwnClusters<A extends string> {
  /** `127.0.0.1:port` of `alias` (every node's, comma-separated, with `brokers`); unchanged by halt() and start(). */
  bootstrap(alias: A): string;
  /** Bootstrap addresses by alias, the shape of writePipeline's `clusters`. */
  bootstrapServers(): Record<A, string>;
  /** The broker of single-node cluster `alias`, to halt and start again. */
  broker(alias: A): RestartableBroker;
  /** Every node of `alias`, in id order, to halt, kill and start again one by one. */
  nodes(alias: A): readonly RestartableBroker[];
  /** Node `id` (1 …) of `alias`. */
  node(alias: A, id: number): RestartableBroker;
  /** What the launcher knows of `alias`: its nodes, ports (`extraPorts` among them), files. */
  cluster(alias: A): LocalCluster;
  /** The Kafka distribution the clusters run, for Java tools of the same version. */
  distribution(): LocalClusters['distribution'];
  /** A KafkaKit on `alias` (creating topics with the cluster's replication factor), made on first use and closed after the file's tests. */
  kit(alias: A): KafkaKit;
}

/**
 * Starts clusters of its own for a test file whose tests hurt them (stop a broker, restart it),
 * since the shared test clusters must stay whole for every other file. Call at the top of the
 * file; the clusters start before its first test and stop after its last one, after the
 * pipelines the tests left running and the kits. Costs a broker start (some seconds) per alias.
 */
export function ownClusters<A extends string>(
  aliases: readonly A[],
  options: {
    /**
     * Nodes per cluster (default 1). Three make production-shaped clusters: RF 3 and
     * min.insync.replicas 2 by default, a quorum that outlives one node (see startLocalClusters).
     */
    brokers?: number;
    /** Heap of each node in MiB; default 384, or 256 per node of a cluster of several. */
    heapMb?: number;
    /** How the nodes' JVMs run (see startLocalClusters); default 'server'. */
    jvmProfile?: JvmProfile;
    brokerProperties?: BrokerPropertyOverrides;
    /** Kafka version of these clusters; default the tests' own. */
    version?: string;
    /** Folders on the brokers' classpath (classes compiled by the test, named in `brokerProperties`). */
    extraClasspath?: readonly string[];
    /** Free ports reserved per node for listeners `brokerProperties` add; see startLocalClusters. */
    extraPorts?: number;
    /** JVM options of every node (system properties broker properties cannot set). */
    jvmOptions?: readonly string[];
    /** Awaited before the brokers start, in the same hook: what `brokerProperties` and `extraClasspath` need ready. */
    prepare?: () => Promise<void>;
  } = {},
): OwnClusters<A> {
  const brokers = options.brokers ?? 1;
  let local: LocalClusters | undefined;
  const kits = new Map<A, KafkaKit>();
  const started = (): LocalClusters => {
    if (local === undefined) throw new Error('ownClusters() are used before they started: use them inside tests or hooks, not at load time.');
    return local;
  };
  before(async () => {
    await options.prepare?.();
    // A smaller heap than the shared clusters': these come on top of them, on small machines.
    local = await startLocalClusters({
      aliases,
      brokers,
      heapMb: options.heapMb ?? (brokers === 1 ? 384 : 256),
      ...(options.jvmProfile === undefined ? {} : { jvmProfile: options.jvmProfile }),
      brokerProperties: options.brokerProperties,
      ...(options.extraClasspath === undefined ? {} : { extraClasspath: options.extraClasspath }),
      ...(options.jvmOptions === undefined ? {} : { jvmOptions: options.jvmOptions }),
      ...(options.extraPorts === undefined ? {} : { extraPorts: options.extraPorts }),
      ...(options.version === undefined ? {} : { version: options.version }),
    });
  });
  after(async () => {
    await cleanupHarness();
    await Promise.all([...kits.values()].map((kit) => kit.close()));
    await local?.stop();
  });
  return {
    bootstrap: (alias) => started().bootstrapServers()[alias]!,
    bootstrapServers: () => started().bootstrapServers() as Record<A, string>,
    broker: (alias) => started().broker(alias),
    nodes: (alias) => started().nodes(alias),
    node: (alias, id) => started().node(alias, id),
    cluster: (alias) => started().clusters[alias]!,
    distribution: () => started().distribution,
    kit: (alias) => {
      let kit = kits.get(alias);
      if (kit === undefined) {
        kit = new KafkaKit(started().bootstrapServers()[alias]!, undefined, { replicationFactor: Math.min(brokers, 3) });
        kits.set(alias, kit);
      }
      return kit;
    },
  };
}
