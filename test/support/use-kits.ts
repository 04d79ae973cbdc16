import { after, before } from 'node:test';
import { testClusters, type TestClusters } from './clusters';
import { KafkaKit } from './kafka-kit';
import { cleanupHarness, scratchDir } from './pipeline-harness';

/** What a test file opens on the clusters and closes after its tests. */
type Closables<K> = { readonly [P in keyof K]: { close(): Promise<void> } };

/**
 * The preamble of an integration test file: `open` makes its kits (KafkaKit, GroupKit …) on the
 * test clusters before the file's tests, `take` hands them to the file's variables; after the
 * tests, every pipeline they left running is stopped first, then the kits are closed.
 */
export function useKits<K extends Closables<K>>(open: (clusters: TestClusters) => K, take: (kits: K) => void): void {
  let kits: K | undefined;
  before(async () => {
    kits = open(await testClusters());
    take(kits);
  });
  after(async () => {
    await cleanupHarness();
    if (kits) await Promise.all(Object.values<{ close(): Promise<void> }>(kits).map((kit) => kit.close()));
  });
}

/**
 * `useKits` for the preamble most files repeat: a KafkaKit on the shared `primary` cluster (the
 * source) and one on `backup` (the target), handed to the file's variables by `take`.
 */
export function sourceAndTargetKits(take: (kits: { readonly source: KafkaKit; readonly target: KafkaKit }) => void): void {
  useKits((clusters) => ({ source: new KafkaKit(clusters.primary), target: new KafkaKit(clusters.backup) }), take);
}

/** The shared clusters as most integration files use them. */
export interface SharedClusterKits {
  /** Bootstrap addresses, for the files a test writes (mm2.properties, YAML). */
  readonly clusters: TestClusters;
  /** A KafkaKit on `primary` and one on `backup`. */
  readonly primary: KafkaKit;
  readonly backup: KafkaKit;
  /** A fresh temp folder whose name starts with `prefix`, removed after the file's tests. */
  readonly dir: string;
}

/**
 * `useKits` for the preamble most files repeat: a KafkaKit on each shared cluster, the clusters'
 * addresses and a scratch folder, handed to the file's variables by `take`; `more` opens the
 * file's other closables (KafkaClients, GroupKits …) on the same clusters, closed with the kits.
 */
export function sharedClusterKits(prefix: string, take: (kits: SharedClusterKits) => void): void;
export function sharedClusterKits<M extends Closables<M>>(
  prefix: string,
  more: (clusters: TestClusters) => M,
  take: (kits: SharedClusterKits & M) => void,
): void;
export function sharedClusterKits(
  prefix: string,
  ...args: [take: (kits: SharedClusterKits) => void] | [more: (clusters: TestClusters) => Closables<object>, take: (kits: SharedClusterKits) => void]
): void {
  const [more, take] = args.length === 1 ? [() => ({}), args[0]] : args;
  let clusters: TestClusters;
  useKits(
    (opened) => {
      clusters = opened;
      return { ...more(opened), primary: new KafkaKit(opened.primary), backup: new KafkaKit(opened.backup) };
    },
    (kits) => take({ ...kits, clusters, dir: scratchDir(prefix) }),
  );
}
