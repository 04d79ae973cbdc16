import { startLocalClusters } from '../../src/local';

export { uniqueName } from './unique-name';
export { waitFor, type WaitForOptions } from './wait-for';

/** Bootstrap addresses of the shared test clusters by alias; `primary` and `backup` always exist. */
export type TestClusters = Readonly<Record<'primary' | 'backup', string>> & Readonly<Record<string, string>>;

/**
 * Set by the test runner: `{"primary":"127.0.0.1:p","backup":"127.0.0.1:q"}`; a cluster of
 * several brokers as their addresses comma-separated (`"127.0.0.1:p1,127.0.0.1:p2,…"`).
 */
export const TEST_CLUSTERS_ENV = 'MIRRORFLOW_TEST_CLUSTERS';

let ownClusters: Promise<TestClusters> | undefined;

/**
 * The Kafka clusters for integration tests. Under the test runner they come from
 * MIRRORFLOW_TEST_CLUSTERS and are shared by all test files (so use uniqueName() for topics and
 * groups). A test file run on its own starts its own pair once, stopped when the process ends.
 */
export function testClusters(env: NodeJS.ProcessEnv = process.env): Promise<TestClusters> {
  const fromEnv = env[TEST_CLUSTERS_ENV];
  if (fromEnv) return Promise.resolve(parseTestClusters(fromEnv));
  ownClusters ??= startOwnClusters();
  return ownClusters;
}

export function parseTestClusters(json: string): TestClusters {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`${TEST_CLUSTERS_ENV} is not JSON: ${json}`, { cause: error });
  }
  const record = parsed as Record<string, unknown>;
  if (typeof parsed !== 'object' || parsed === null || typeof record['primary'] !== 'string' || typeof record['backup'] !== 'string') {
    throw new Error(`${TEST_CLUSTERS_ENV} must map "primary" and "backup" to host:port (several comma-separated), got: ${json}`);
  }
  return record as TestClusters;
}

async function startOwnClusters(): Promise<TestClusters> {
  const clusters = await startLocalClusters({ aliases: ['primary', 'backup'] });
  // The brokers do not keep this process alive, so it reaches beforeExit once the tests are
  // done; stop them there. If the process is killed or force-exits instead, the launcher's exit
  // hook and watchdog stop them.
  let stopping = false;
  process.on('beforeExit', () => {
    if (stopping) return;
    stopping = true;
    void clusters.stop();
  });
  return clusters.bootstrapServers() as TestClusters;
}
