/**
 * `npm test` / `npm run test:unit`: runs the compiled tests with Node's test runner.
 *
 *   node dist/test/support/run-tests.js [--unit] [--kafka-version V] [--concurrency N]
 *                                       [--production-lane parallel|after] [filter...]
 *
 * Collects `dist/src/**\/*.spec.js`, `dist/plugins/**\/*.spec.js`, `dist/test/**\/*.spec.js` and (unless --unit)
 * `dist/test/**\/*.test.js`, skipping compiled files whose source is gone. The specs run first, in
 * the unit lane, as many at a time as there are cores, and its line coverage is printed at its end
 * (unit-coverage.ts). For integration tests it then builds the Schema Registry if a file uses it
 * and it is not built yet, starts the local clusters `primary` and `backup` once (or uses
 * MIRRORFLOW_TEST_CLUSTERS when set), hands their addresses to every test process in
 * MIRRORFLOW_TEST_CLUSTERS, streams the TAP report to stdout, stops the clusters and exits
 * non-zero if a test failed. The production
 * suite (`test/production/`, three-broker clusters of its own) runs in a lane of its own, one
 * file at a time, then the long files of `AFTER_PRODUCTION`, beside the main lane (`--production-lane after`, or
 * MIRRORFLOW_PRODUCTION_LANE=after: once the main lane is done); its report follows the main
 * lane's, and the output ends with every lane's totals (`# pass N` / `# fail N`), see
 * test-lanes.ts. Its own messages go to stderr so stdout stays TAP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { availableParallelism, constants } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultKafkaVersion, isBrokerReady, startLocalClusters, type LocalClusters } from '../../src/local';
import { parseTestClusters, TEST_CLUSTERS_ENV } from './clusters';
import { lanesSummary, splitLanes, tapTotals, type LaneResult } from './test-lanes';
import { missingPrerequisites } from './prerequisites';
import { ensureSchemaRegistryApp } from './schema-registry';
import { coverageEnabled, prepareCoverage, reportCoverage } from './unit-coverage';

const root = resolve(__dirname, '..', '..', '..');
const dist = join(root, 'dist');

/** Integration tests wait on Kafka more than on the CPU, but the brokers share the 2 cores. */
const INTEGRATION_CONCURRENCY = 2;
/**
 * Per test and per file: a hung test must fail the run, not hang CI. Fault-test files run for
 * minutes under load, and the benchmark's distance smoke (two proxied clusters of its own, MM2
 * through a 25 ms link) takes four or five minutes on a quiet 2-core machine.
 */
const DEFAULT_TEST_TIMEOUT_MS = 600_000;

interface RunnerOptions {
  readonly unit: boolean;
  readonly kafkaVersion: string;
  /** Files at once in the unit lane, and in the main lane. */
  readonly unitConcurrency: number;
  readonly concurrency: number;
  /** The production lane runs beside the main lane, or after it. */
  readonly productionLane: 'parallel' | 'after';
  readonly testTimeoutMs: number;
  readonly filters: readonly string[];
}

function parseOptions(argv: readonly string[]): RunnerOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      unit: { type: 'boolean', default: false },
      'kafka-version': { type: 'string' },
      concurrency: { type: 'string' },
      'production-lane': { type: 'string' },
    },
  });
  const lane = values['production-lane'] ?? process.env['MIRRORFLOW_PRODUCTION_LANE'] ?? 'parallel';
  if (lane !== 'parallel' && lane !== 'after') throw new Error(`--production-lane takes parallel or after, not ${lane}`);
  const given = values.concurrency ?? process.env['MIRRORFLOW_TEST_CONCURRENCY'];
  const count = (n: number): number => (Number.isInteger(n) && n > 0 ? n : 1);
  return {
    unit: values.unit === true,
    kafkaVersion: values['kafka-version'] ?? defaultKafkaVersion(),
    unitConcurrency: count(Number(given ?? availableParallelism())),
    concurrency: count(Number(given ?? INTEGRATION_CONCURRENCY)),
    productionLane: lane,
    testTimeoutMs: Number(process.env['MIRRORFLOW_TEST_TIMEOUT_MS'] ?? DEFAULT_TEST_TIMEOUT_MS),
    filters: positionals,
  };
}

/** Compiled test files, sorted, whose `.ts` source still exists (tsc never deletes stale output). */
export function collectTestFiles(distDir: string, rootDir: string, options: { unit: boolean; filters: readonly string[] }): string[] {
  const found: string[] = [];
  const walk = (dir: string, suffix: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, suffix);
      else if (entry.name.endsWith(suffix)) found.push(path);
    }
  };
  walk(join(distDir, 'src'), '.spec.js');
  walk(join(distDir, 'plugins'), '.spec.js');
  // Specs of the test support and of the repository itself (docs, file sizes) are unit specs too.
  walk(join(distDir, 'test'), '.spec.js');
  if (!options.unit) walk(join(distDir, 'test'), '.test.js');
  return found
    .filter((file) => {
      const source = join(rootDir, relative(distDir, file)).replace(/\.js$/, '.ts');
      if (!existsSync(source)) return false;
      const shown = relative(rootDir, source).split(sep).join('/');
      return options.filters.length === 0 || options.filters.some((filter) => shown.includes(filter));
    })
    .sort();
}

/** Whether a compiled test file starts Schema Registries (test/support/schema-registry.ts). */
function usesSchemaRegistry(file: string): boolean {
  return /require\("[./]*\/support\/(use-)?schema-regist/.test(readFileSync(file, 'utf8'));
}

function say(message: string): void {
  process.stderr.write(`[run-tests] ${message}\n`);
}

/** A TAP report for a run that could not start, so CI still finds `# pass` / `# fail`. */
function reportSetupFailure(what: string, error: unknown): void {
  const message = (error instanceof Error ? error.message : String(error))
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
  process.stdout.write(`TAP version 13\nnot ok 1 - ${what}\n  ---\n  message: |-\n${message}\n  ...\n1..1\n# tests 1\n# pass 0\n# fail 1\n`);
}

/**
 * Clusters given from outside may be gone; one clear failure beats every test timing out. A
 * cluster of several brokers is given as their addresses, comma-separated: each must answer.
 */
export async function checkClustersAnswer(
  clusters: Readonly<Record<string, string>>,
  ready: (host: string, port: number) => Promise<boolean> = (host, port) => isBrokerReady(host, port, 5000),
): Promise<void> {
  for (const [alias, addresses] of Object.entries(clusters)) {
    for (const address of addresses.split(',').map((a) => a.trim())) {
      const at = address.lastIndexOf(':');
      const answers = at > 0 && (await ready(address.slice(0, at), Number(address.slice(at + 1))).catch(() => false));
      if (!answers) throw new Error(`Cluster ${alias}: the broker at ${address} does not answer Kafka requests.`);
    }
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const files = collectTestFiles(dist, root, options);
  if (files.length === 0) {
    say('No test files matched.');
    process.stdout.write('TAP version 13\n1..0\n# tests 0\n# pass 0\n# fail 0\n');
    return 0;
  }
  // Before anything starts: a machine without Chromium should not learn it 20 minutes into the run.
  const missing = missingPrerequisites(files);
  if (missing !== undefined) {
    say(missing);
    reportSetupFailure('find the programs the tests need', new Error(missing));
    return 1;
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  let clusters: LocalClusters | undefined;
  const lanes = splitLanes(files, dist);
  const running = new Set<ChildProcess>();
  const forward = (signal: NodeJS.Signals): void => {
    say(`Received ${signal}; stopping the tests.`);
    for (const child of running) child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const runLane = async (
    name: string,
    laneFiles: readonly string[],
    concurrency: number,
    report: 'stream' | 'keep',
    laneEnv: NodeJS.ProcessEnv = env,
  ): Promise<LaneResult & { report: string }> => {
    const started = Date.now();
    say(`${name} lane: ${laneFiles.length} test files, ${concurrency} at a time.`);
    const child = spawn(
      process.execPath,
      [
        '--test',
        '--test-reporter=tap',
        `--test-concurrency=${concurrency}`,
        // Per test, and per file: a hung test fails the run.
        `--test-timeout=${options.testTimeoutMs}`,
        // A file that leaves something open after its tests is ended 30 s later, naming what it
        // left (exit-guard.ts), rather than cut by the timeout (--test-force-exit would end it at
        // once, say nothing, and cut off the end of the report).
        `--import=${join(dist, 'test', 'support', 'exit-guard.js')}`,
        ...laneFiles,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: laneEnv, cwd: root },
    );
    running.add(child);
    // The streamed lane is passed on as it comes; both keep their report for the totals.
    let kept = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (report === 'stream') process.stdout.write(chunk);
      kept += chunk;
    });
    const code = await new Promise<number>((resolveExit) =>
      child.on('close', (exitCode, signal) => resolveExit(exitCode ?? 128 + (signal === null ? 0 : constants.signals[signal]))),
    );
    running.delete(child);
    const ms = Date.now() - started;
    say(`${name} lane done in ${(ms / 1000).toFixed(0)} s (exit code ${code}).`);
    return { name, files: laneFiles.length, code, ms, totals: tapTotals(kept), report: kept };
  };

  const results: (LaneResult & { report: string })[] = [];
  const shared = [...lanes.main, ...lanes.afterProduction];
  const integration = shared.length + lanes.production.length > 0;
  if (lanes.unit.length > 0) {
    // Of the whole lane only: a few files' specs say nothing of the coverage of src.
    const coverage = coverageEnabled() && options.filters.length === 0;
    const unitEnv = coverage ? { ...env, NODE_V8_COVERAGE: prepareCoverage(root) } : env;
    const unit = await runLane('unit', lanes.unit, options.unitConcurrency, 'stream', unitEnv);
    results.push(unit);
    if (coverage) {
      for (const line of await reportCoverage(root).catch((error: unknown) => [`no coverage report: ${String(error)}`])) say(line);
    }
    if (unit.code !== 0 && integration) say('The unit lane failed (see above); the integration tests run all the same.');
  }
  // Built here (the first time on a machine), its deadline is its own (ensureSchemaRegistryApp's), not a test's.
  if (shared.some(usesSchemaRegistry)) {
    try {
      await ensureSchemaRegistryApp();
    } catch (error) {
      reportSetupFailure('build the Schema Registry the tests run', error);
      return 1;
    }
  }
  // The production lane's own files start clusters of their own; the rest need the shared ones.
  const needsKafka = shared.length > 0;
  if (needsKafka && env[TEST_CLUSTERS_ENV]) {
    try {
      await checkClustersAnswer(parseTestClusters(env[TEST_CLUSTERS_ENV]));
    } catch (error) {
      reportSetupFailure('use the clusters in MIRRORFLOW_TEST_CLUSTERS', error);
      return 1;
    }
    say(`Using the clusters in ${TEST_CLUSTERS_ENV}: ${env[TEST_CLUSTERS_ENV]}`);
  } else if (needsKafka) {
    say(`Starting local Kafka ${options.kafkaVersion} clusters primary and backup.`);
    const started = Date.now();
    try {
      clusters = await startLocalClusters({ aliases: ['primary', 'backup'], version: options.kafkaVersion });
    } catch (error) {
      reportSetupFailure('start local Kafka clusters', error);
      return 1;
    }
    env[TEST_CLUSTERS_ENV] = JSON.stringify(clusters.bootstrapServers());
    say(`Clusters ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${env[TEST_CLUSTERS_ENV]}`);
  }

  const sideFiles = [...lanes.production, ...lanes.afterProduction];
  const production = sideFiles.length === 0 ? undefined : () => runLane('production', sideFiles, 1, lanes.main.length === 0 ? 'stream' : 'keep');
  const besideMain = options.productionLane === 'parallel' ? production?.() : undefined;
  if (lanes.main.length > 0) results.push(await runLane('main', lanes.main, options.concurrency, 'stream'));
  const stopClusters = async (): Promise<void> => {
    if (clusters === undefined) return;
    say('Stopping the local Kafka clusters.');
    await clusters.stop();
    clusters = undefined;
  };
  // Unless the production lane goes on with files of theirs, the shared clusters stop as soon as
  // the main lane is done.
  if (lanes.afterProduction.length === 0) await stopClusters();
  const productionResult = await (besideMain ?? production?.());
  await stopClusters();
  if (productionResult !== undefined) {
    if (lanes.main.length > 0) {
      const after = lanes.afterProduction.length === 0 ? '' : `, then ${lanes.afterProduction.length} of the shared clusters`;
      process.stdout.write(`# production lane (${lanes.production.length} files of test/production${after}, one at a time)\n${productionResult.report}`);
    }
    results.push(productionResult);
  }
  if (results.length > 1) process.stdout.write(lanesSummary(results));
  return results.find((result) => result.code !== 0)?.code ?? 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      reportSetupFailure('run the tests', error);
      process.exit(1);
    },
  );
}
