import { startLocalClusters, type BrokerAddress, type LocalClusters, type StartLocalClustersOptions } from '../../src/local';
import { findFreePorts } from '../../src/local/free-ports';
import { TcpProxy } from './tcp-proxy';

/** One single-node cluster whose second listener is reachable only through a TCP proxy. */
export interface StartedProxiedCluster {
  readonly local: LocalClusters;
  readonly proxy: TcpProxy;
  /** `127.0.0.1:<proxy port>`: bootstrap through the proxy; the broker advertises the proxy too. */
  readonly proxied: string;
  /** `127.0.0.1:<broker port>`: the launcher's own listener, never through the proxy. */
  readonly direct: string;
  /** Closes the proxy and stops the broker. */
  stop(): Promise<void>;
}

/**
 * Starts a cluster of its own for `alias` with a listener `PROXIED` on a port of its own,
 * advertised as the address of a TCP proxy in this process, beside the launcher's `PLAINTEXT`
 * listener, which advertises itself.
 *
 * Kafka clients connect to the addresses a broker advertises, not to the bootstrap address, so
 * a proxy in front of the bootstrap address alone would be bypassed after the first metadata
 * answer: clients that bootstrap through the proxy are told to come back through it, and only
 * they cross it. The broker's own traffic (its controller) stays on its own listeners.
 */
export async function startProxiedCluster(
  alias: string,
  options: Omit<StartLocalClustersOptions, 'aliases' | 'brokerProperties'> & { readonly brokerProperties?: Readonly<Record<string, string>> } = {},
): Promise<StartedProxiedCluster> {
  // The proxy must listen before the broker starts, as its address goes into the broker's
  // settings. Both ports come from one call, so they differ.
  const [proxyPort, proxiedPort] = (await findFreePorts(2)) as [number, number];
  const proxy = await TcpProxy.start({ port: proxyPort, targetPort: proxiedPort });
  const local = await startLocalClusters({
    ...options,
    aliases: [alias],
    brokerProperties: {
      ...options.brokerProperties,
      listeners: ({ host, brokerPort, controllerPort }: BrokerAddress) =>
        `PLAINTEXT://${host}:${brokerPort},CONTROLLER://${host}:${controllerPort},PROXIED://127.0.0.1:${proxiedPort}`,
      'advertised.listeners': ({ host, brokerPort }: BrokerAddress) => `PLAINTEXT://${host}:${brokerPort},PROXIED://${proxy.address}`,
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT',
    },
  }).catch(async (error: unknown) => {
    await proxy.close();
    throw error;
  });
  return {
    local,
    proxy,
    proxied: proxy.address,
    direct: local.broker(alias).cluster.bootstrapServers,
    stop: async () => {
      await proxy.close();
      await local.stop();
    },
  };
}
