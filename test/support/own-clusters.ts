import { after, before } from 'node:test';
import { startLocalClusters, type BrokerPropertyOverrides, type LocalClusters, type RestartableBroker } from '../../src/local';
import { KafkaKit } from './kafka-kit';
import { cleanupHarness } from './pipeline-harness';

/** Clusters of one test file, started for it alone; see ownClusters(). */
export interface OwnClusters<A extends string> {
  /** `127.0.0.1:port` of `alias`; unchanged by halt() and start(). */
  bootstrap(alias: A): string;
  /** Bootstrap addresses by alias, the shape of writePipeline's `clusters`. */
  bootstrapServers(): Record<A, string>;
  /** The broker of `alias`, to halt and start again. */
  broker(alias: A): RestartableBroker;
  /** A KafkaKit on `alias`, made on first use and closed after the file's tests. */
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
    brokerProperties?: BrokerPropertyOverrides;
    /** Kafka version of these clusters; default the tests' own. */
    version?: string;
    /** Folders on the brokers' classpath (classes compiled by the test, named in `brokerProperties`). */
    extraClasspath?: readonly string[];
    /** Awaited before the brokers start, in the same hook: what `brokerProperties` and `extraClasspath` need ready. */
    prepare?: () => Promise<void>;
  } = {},
): OwnClusters<A> {
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
      heapMb: 384,
      brokerProperties: options.brokerProperties,
      ...(options.extraClasspath === undefined ? {} : { extraClasspath: options.extraClasspath }),
      ...(options.version === undefined ? {} : { version: options.version }),
    });
  });
  after(async () => {
    await cleanupHarness();
    await Promise.all([...kits.values()].map((kit) => kit.close()));
    await local?.stop();
  });
  return {
    bootstrap: (alias) => started().broker(alias).cluster.bootstrapServers,
    bootstrapServers: () => started().bootstrapServers() as Record<A, string>,
    broker: (alias) => started().broker(alias),
    kit: (alias) => {
      let kit = kits.get(alias);
      if (kit === undefined) {
        kit = new KafkaKit(started().broker(alias).cluster.bootstrapServers);
        kits.set(alias, kit);
      }
      return kit;
    },
  };
}
