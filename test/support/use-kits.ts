import { after, before } from 'node:test';
import { testClusters, type TestClusters } from './clusters';
import { cleanupHarness } from './pipeline-harness';

/**
 * The preamble of an integration test file: `open` makes its kits (KafkaKit, GroupKit …) on the
 * test clusters before the file's tests, `take` hands them to the file's variables; after the
 * tests, every pipeline they left running is stopped first, then the kits are closed.
 */
export function useKits<K extends { readonly [P in keyof K]: { close(): Promise<void> } }>(open: (clusters: TestClusters) => K, take: (kits: K) => void): void {
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
