import { after, before } from 'node:test';
import type { LocalClusters, RestartableBroker } from '../../src/local';
import { KafkaKit } from './kafka-kit';
import { cleanupHarness } from './pipeline-harness';
import { startProxiedCluster } from './proxied-cluster';
import type { TcpProxy } from './tcp-proxy';

/** One cluster of its own behind a TCP proxy; see ownProxiedClusters(). */
export interface ProxiedCluster {
  readonly alias: string;
  /** `127.0.0.1:<proxy port>`: the bootstrap address for the client under test; every connection goes through `proxy`. */
  readonly proxied: string;
  /** `127.0.0.1:<broker port>`: the test's own clients (producer, checks), never cut. */
  readonly direct: string;
  readonly proxy: TcpProxy;
  /** To halt and start the broker again (same ports, same data). */
  readonly broker: RestartableBroker;
  /** A KafkaKit on the direct address, closed after the file's tests. */
  readonly kit: KafkaKit;
}

export interface OwnProxiedClustersOptions {
  /** Added to every broker's server.properties. */
  readonly brokerProperties?: Readonly<Record<string, string>>;
}

/**
 * Starts a single-node cluster per alias for one test file, each with a second listener that is
 * reachable only through a TCP proxy, so a test can cut or slow the network between the client
 * under test and the broker while its own clients go on.
 *
 * Kafka clients connect to the addresses a broker advertises, not to the bootstrap address, so
 * the proxy alone would be bypassed after the first metadata answer. The broker therefore gets a
 * listener `PROXIED` on a port of its own, advertised as the proxy's address: clients that
 * bootstrap through the proxy are told to come back through it. The launcher's `PLAINTEXT`
 * listener stays as it is and advertises itself, for the test's own clients.
 *
 * Call at the top of the file; the clusters start before its first test and stop after its last,
 * after the pipelines the tests left running and the kits.
 */
export function ownProxiedClusters<A extends string>(aliases: readonly A[], options: OwnProxiedClustersOptions = {}): (alias: A) => ProxiedCluster {
  const started = new Map<A, { local: LocalClusters; cluster: ProxiedCluster }>();
  before(async () => {
    await Promise.all(
      aliases.map(async (alias) => {
        const { local, proxy } = await startProxiedCluster(alias, { brokerProperties: options.brokerProperties });
        const broker = local.broker(alias);
        started.set(alias, {
          local,
          cluster: {
            alias,
            proxied: proxy.address,
            direct: broker.cluster.bootstrapServers,
            proxy,
            broker,
            kit: new KafkaKit(broker.cluster.bootstrapServers),
          },
        });
      }),
    );
  });
  after(async () => {
    await cleanupHarness();
    await Promise.all(
      [...started.values()].map(async ({ local, cluster }) => {
        await cluster.kit.close();
        await cluster.proxy.close();
        await local.stop();
      }),
    );
  });
  return (alias) => {
    const found = started.get(alias);
    if (found === undefined) throw new Error(`Cluster "${alias}" is not started: use ownProxiedClusters() inside tests or hooks, not at load time.`);
    return found.cluster;
  };
}
