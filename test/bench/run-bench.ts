/**
 * `npm run bench [-- options]`: mirrorflow against MirrorMaker 2 and the limit, on local clusters.
 *
 *   --workloads bulk,per-core,large,wide,latency,compressed,compressed-tuned,bulk-far-target,bulk-far-source,
 *               compressed-far-target,compressed-far-source,many,latency-committed   (default: all)
 *   --replicators mirrorflow,mm2-default,mm2-tuned,limit  (the default; also mirrorflow-metrics: HTTP on, /metrics scraped every 1 s;
 *               mirrorflow-eos: delivery exactly_once; mirrorflow-transform: JSON converter + insert_field, JSON workloads;
 *               mirrorflow-provenance: provenance headers on (compared with the source without them);
 *               ceiling: the target broker's ingest rate, 4 producers in parallel, throughput workloads)
 *   --rounds N                              rounds per workload (default 3; 1 with --smoke)
 *   --smoke                                 tiny sizes: seconds per run, for correctness only
 *   --scale F                               multiply record counts (latency: seconds) by F
 *   --bulk-records N --bulk-partitions N --large-records N --large-value-bytes N
 *   --wide-topics N --wide-partitions N --wide-records N (per topic)
 *   --latency-rate N --latency-seconds N --latency-partitions N   (latency and latency-committed)
 *   --many-topics N --many-partitions N     many: e.g. --many-topics 1000 for 20,000 partitions
 *   --source HOST:PORT --target HOST:PORT   use these clusters instead of starting two
 *   --kafka-version V --broker-dir DIR      Kafka release; parent dir of the brokers' data
 *   --brokers N                             brokers per cluster the benchmark starts (default 1; e.g. 3: replication factor 3,
 *                                           min.insync.replicas 2; no distance workloads)
 *   --node-arg ARG (repeatable)             extra node flag for mirrorflow, e.g. --max-semi-space-size=64
 *   --set PATH=VALUE (repeatable)           `mirrorflow run --set`, e.g. flows.0.batching.max_records=5000
 *   --cpu-prof DIR                          profile mirrorflow (node --cpu-prof) into DIR
 *   --baseline DIR                          a built checkout (dist/) that the mirrorflow-baseline replicator runs: before/after in one run
 *   --tuned-tasks N                         tasks.max of MM2 tuned (default: the number of cores)
 *   --run-timeout-s N                       deadline per run (default 900)
 *   --keep                                  keep every run's folder (configs and logs)
 *   --out FILE | --no-out                   JSON report (default test/bench/results/latest.json; none with --smoke)
 *   --update-docs                           put the table into docs/performance.md between the bench markers
 *                                           (--update-readme, its old name, still works)
 *   --from-json FILE                        measure nothing: re-render FILE's runs (with --out, --update-docs)
 *
 * `npm run bench -- --soak [options]` runs the soak instead (see soak-run.ts):
 *
 *   --minutes N                             how long records are written (default 30)
 *   --restart-every N                       minutes between target broker restarts (default 5; 0: none)
 *   --restart-signal SIGTERM|SIGKILL        how the target broker is halted (default SIGTERM)
 *   --rate N                                records/s (default 20000)
 *   --partitions N --value-bytes N          the topic (default 8 partitions, 256-byte values, 16-byte keys, 2 headers)
 *   --sample-s N                            how often RSS, heap and CPU are read (default 5)
 *   --kafka-version V --broker-dir DIR --node-arg ARG --set PATH=VALUE   as for the benchmark
 *   --out FILE | --no-out                   JSON report (default test/bench/results/soak.json)
 *   --update-readme                         put the table into test/bench/README.md between the soak markers
 *
 * `npm run bench -- --rebalance [options]` measures scale events instead (see rebalance-run.ts):
 *
 *   --processes N --partitions N --rate N   processes sharing one topic, its partitions, records/s (default 3, 200, 2000)
 *   --brokers N                             nodes per cluster (default 1)
 *   --events add,remove,kill                the events, in order (default add,remove)
 *   --steady-s N                            steady copying before the first event and after each (default 15)
 *   --kafka-version V --broker-dir DIR --node-arg ARG --set PATH=VALUE   as for the benchmark
 *   --out FILE | --no-out                   JSON report (default test/bench/results/rebalance.json)
 *   --update-readme                         put the table into test/bench/README.md between the rebalance markers
 *
 * Exit code 0 when every run was correct, 1 when any run FAILED, 2 on bad options.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultKafkaVersion } from '../../src/local';
import { runBench, type BenchOptions } from './bench-harness';
import { runSoak, type SoakOptions } from './soak-run';
import { runRebalance, writeRebalanceReport, type RebalanceEventKind, type RebalanceOptions } from './rebalance-run';
import { rerender, type BenchReport } from './bench-report';
import { DEFAULT_REPLICATORS, REPLICATOR_NAMES, type ReplicatorName } from './replicators';
import { DEFAULT_WORKLOADS, SMOKE_WORKLOADS, WORKLOAD_NAMES, scaleWorkload, type Workload, type WorkloadName } from './workloads';

/** The repository root, from `dist/test/bench`. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const DEFAULT_OUT = join(REPO_ROOT, 'test', 'bench', 'results', 'latest.json');
export const BENCH_BEGIN = '<!-- bench:begin (written by npm run bench -- --update-docs) -->';
export const BENCH_END = '<!-- bench:end -->';
export const DEFAULT_SOAK_OUT = join(REPO_ROOT, 'test', 'bench', 'results', 'soak.json');
export const SOAK_README_BEGIN = '<!-- soak:begin (written by npm run bench -- --soak --update-readme) -->';
export const SOAK_README_END = '<!-- soak:end -->';
export const DEFAULT_REBALANCE_OUT = join(REPO_ROOT, 'test', 'bench', 'results', 'rebalance.json');
export const REBALANCE_README_BEGIN = '<!-- rebalance:begin (written by npm run bench -- --rebalance --update-readme) -->';
export const REBALANCE_README_END = '<!-- rebalance:end -->';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CliOptions {
  readonly bench: Omit<BenchOptions, 'log'>;
  readonly out?: string;
  readonly updateDocs: boolean;
  /** A report to re-render instead of measuring. */
  readonly fromJson?: string;
}

function positiveNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number, got "${value}".`);
  return n;
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  const n = positiveNumber(name, value);
  if (n !== undefined && !Number.isInteger(n)) throw new UsageError(`--${name} must be a whole number, got "${value}".`);
  return n;
}

function list<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  for (const item of items) {
    if (!allowed.includes(item as T)) throw new UsageError(`--${name}: "${item}" is not one of ${allowed.join(', ')}.`);
  }
  return items as T[];
}

export function parseCli(argv: readonly string[]): CliOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      workloads: { type: 'string' },
      replicators: { type: 'string' },
      rounds: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      scale: { type: 'string' },
      'bulk-records': { type: 'string' },
      'bulk-partitions': { type: 'string' },
      'large-records': { type: 'string' },
      'large-value-bytes': { type: 'string' },
      'wide-topics': { type: 'string' },
      'wide-partitions': { type: 'string' },
      'wide-records': { type: 'string' },
      'latency-rate': { type: 'string' },
      'latency-seconds': { type: 'string' },
      'latency-partitions': { type: 'string' },
      'many-topics': { type: 'string' },
      'many-partitions': { type: 'string' },
      source: { type: 'string' },
      target: { type: 'string' },
      'kafka-version': { type: 'string' },
      'broker-dir': { type: 'string' },
      brokers: { type: 'string' },
      'node-arg': { type: 'string', multiple: true, default: [] },
      set: { type: 'string', multiple: true, default: [] },
      'cpu-prof': { type: 'string' },
      baseline: { type: 'string' },
      'tuned-tasks': { type: 'string' },
      'run-timeout-s': { type: 'string' },
      keep: { type: 'boolean', default: false },
      out: { type: 'string' },
      'no-out': { type: 'boolean', default: false },
      'update-docs': { type: 'boolean', default: false },
      'update-readme': { type: 'boolean', default: false },
      'from-json': { type: 'string' },
    },
  });
  const smoke = values.smoke === true;
  const base = smoke ? SMOKE_WORKLOADS : DEFAULT_WORKLOADS;
  const scale = positiveNumber('scale', values.scale) ?? 1;
  const names = list<WorkloadName>('workloads', values.workloads, WORKLOAD_NAMES) ?? [...WORKLOAD_NAMES];
  const sized = (name: WorkloadName): Workload => {
    const w = scaleWorkload(base[name], scale);
    const n = (flag: string): number | undefined => positiveInt(flag, values[flag as keyof typeof values] as string | undefined);
    switch (w.name) {
      case 'bulk':
        return { ...w, recordsPerTopic: n('bulk-records') ?? w.recordsPerTopic, partitions: n('bulk-partitions') ?? w.partitions };
      case 'large':
        return {
          ...w,
          recordsPerTopic: n('large-records') ?? w.recordsPerTopic,
          shape: { ...w.shape, valueBytes: n('large-value-bytes') ?? w.shape.valueBytes },
        };
      case 'wide':
        return {
          ...w,
          topics: n('wide-topics') ?? w.topics,
          partitions: n('wide-partitions') ?? w.partitions,
          recordsPerTopic: n('wide-records') ?? w.recordsPerTopic,
        };
      case 'latency':
      case 'latency-committed':
        return { ...w, rate: n('latency-rate') ?? w.rate, seconds: n('latency-seconds') ?? w.seconds, partitions: n('latency-partitions') ?? w.partitions };
      case 'many': {
        const partitions = n('many-partitions') ?? w.partitions;
        // Keep the trickle per partition when the partition count changes.
        return { ...w, topics: n('many-topics') ?? w.topics, partitions, recordsPerTopic: (w.recordsPerTopic / w.partitions) * partitions };
      }
      default:
        return w;
    }
  };
  if ((values.source === undefined) !== (values.target === undefined)) throw new UsageError('--source and --target go together.');
  const nodeArgs = [...(values['node-arg'] ?? [])];
  if (values['cpu-prof'] !== undefined) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${resolve(values['cpu-prof'])}`);
  if (values.out !== undefined && values['no-out'] === true) throw new UsageError('--out and --no-out contradict each other.');
  return {
    bench: {
      workloads: names.map(sized),
      replicators: list<ReplicatorName>('replicators', values.replicators, REPLICATOR_NAMES) ?? [...DEFAULT_REPLICATORS],
      rounds: positiveInt('rounds', values.rounds) ?? (smoke ? 1 : 3),
      clusters: values.source !== undefined && values.target !== undefined ? { source: values.source, target: values.target } : undefined,
      kafkaVersion: values['kafka-version'] ?? defaultKafkaVersion(),
      brokerDir: values['broker-dir'],
      brokers: positiveInt('brokers', values.brokers),
      mirrorflow: { nodeArgs, set: [...(values.set ?? [])], ...(values.baseline === undefined ? {} : { baselineDir: resolve(values.baseline) }) },
      tunedTasks: positiveInt('tuned-tasks', values['tuned-tasks']) ?? availableParallelism(),
      runTimeoutMs: (positiveNumber('run-timeout-s', values['run-timeout-s']) ?? 900) * 1000,
      keepRunDirs: values.keep === true,
    },
    out: values['no-out'] === true ? undefined : values.out !== undefined ? resolve(values.out) : smoke ? undefined : DEFAULT_OUT,
    updateDocs: values['update-docs'] === true || values['update-readme'] === true,
    fromJson: values['from-json'] === undefined ? undefined : resolve(values['from-json']),
  };
}

/** `page` with the section between the bench markers (or others) replaced by `markdown`. */
export function replaceMarkedSection(page: string, markdown: string, markers: readonly [string, string] = [BENCH_BEGIN, BENCH_END]): string {
  const [beginMarker, endMarker] = markers;
  const begin = page.indexOf(beginMarker);
  const end = page.indexOf(endMarker);
  if (begin < 0 || end < begin) throw new Error(`The page has no "${beginMarker}" … "${endMarker}" section.`);
  return `${page.slice(0, begin + beginMarker.length)}\n${markdown.trim()}\n${page.slice(end)}`;
}

export interface SoakCliOptions {
  readonly soak: Omit<SoakOptions, 'log'>;
  readonly out?: string;
  readonly updateReadme: boolean;
}

export function parseSoakCli(argv: readonly string[]): SoakCliOptions {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--soak'),
    strict: true,
    options: {
      minutes: { type: 'string' },
      'restart-every': { type: 'string' },
      'restart-signal': { type: 'string' },
      rate: { type: 'string' },
      partitions: { type: 'string' },
      'value-bytes': { type: 'string' },
      'sample-s': { type: 'string' },
      'kafka-version': { type: 'string' },
      'broker-dir': { type: 'string' },
      'node-arg': { type: 'string', multiple: true, default: [] },
      set: { type: 'string', multiple: true, default: [] },
      out: { type: 'string' },
      'no-out': { type: 'boolean', default: false },
      'update-readme': { type: 'boolean', default: false },
    },
  });
  const signal = values['restart-signal'] ?? 'SIGTERM';
  if (signal !== 'SIGTERM' && signal !== 'SIGKILL') throw new UsageError(`--restart-signal must be SIGTERM or SIGKILL, got "${signal}".`);
  const restartEvery = values['restart-every'] === undefined ? 5 : Number(values['restart-every']);
  if (!Number.isFinite(restartEvery) || restartEvery < 0) throw new UsageError(`--restart-every must be 0 or more minutes, got "${values['restart-every']}".`);
  if (values.out !== undefined && values['no-out'] === true) throw new UsageError('--out and --no-out contradict each other.');
  return {
    soak: {
      minutes: positiveNumber('minutes', values.minutes) ?? 30,
      restartEveryMinutes: restartEvery,
      restartSignal: signal,
      rate: positiveInt('rate', values.rate) ?? 20_000,
      partitions: positiveInt('partitions', values.partitions) ?? 8,
      keyBytes: 16,
      valueBytes: positiveInt('value-bytes', values['value-bytes']) ?? 256,
      headers: 2,
      sampleSeconds: positiveNumber('sample-s', values['sample-s']) ?? 5,
      kafkaVersion: values['kafka-version'] ?? defaultKafkaVersion(),
      brokerDir: values['broker-dir'],
      mirrorflow: { nodeArgs: [...(values['node-arg'] ?? [])], set: [...(values.set ?? [])] },
    },
    out: values['no-out'] === true ? undefined : values.out !== undefined ? resolve(values.out) : DEFAULT_SOAK_OUT,
    updateReadme: values['update-readme'] === true,
  };
}

async function soakMain(argv: readonly string[]): Promise<number> {
  let cli: SoakCliOptions;
  try {
    cli = parseSoakCli(argv);
  } catch (error) {
    process.stderr.write(`run-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const report = await runSoak({ ...cli.soak, log: (line) => process.stderr.write(`[soak] ${line}\n`) });
  process.stdout.write(`\n${report.markdown}\n`);
  if (cli.out !== undefined) {
    await mkdir(dirname(cli.out), { recursive: true });
    await writeFile(cli.out, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(`[soak] Wrote ${cli.out}.\n`);
  }
  if (cli.updateReadme) {
    const readme = join(REPO_ROOT, 'test', 'bench', 'README.md');
    await writeFile(readme, replaceMarkedSection(await readFile(readme, 'utf8'), report.markdown, [SOAK_README_BEGIN, SOAK_README_END]));
    process.stderr.write(`[soak] Updated the soak section of ${readme}.\n`);
  }
  return report.ok ? 0 : 1;
}

export interface RebalanceCliOptions {
  readonly rebalance: Omit<RebalanceOptions, 'log'>;
  readonly out?: string;
  readonly updateReadme: boolean;
}

export function parseRebalanceCli(argv: readonly string[]): RebalanceCliOptions {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--rebalance'),
    strict: true,
    options: {
      processes: { type: 'string' },
      partitions: { type: 'string' },
      rate: { type: 'string' },
      brokers: { type: 'string' },
      events: { type: 'string' },
      'steady-s': { type: 'string' },
      'kafka-version': { type: 'string' },
      'broker-dir': { type: 'string' },
      'node-arg': { type: 'string', multiple: true, default: [] },
      set: { type: 'string', multiple: true, default: [] },
      out: { type: 'string' },
      'no-out': { type: 'boolean', default: false },
      'update-readme': { type: 'boolean', default: false },
    },
  });
  if (values.out !== undefined && values['no-out'] === true) throw new UsageError('--out and --no-out contradict each other.');
  return {
    rebalance: {
      processes: positiveInt('processes', values.processes) ?? 3,
      partitions: positiveInt('partitions', values.partitions) ?? 200,
      rate: positiveInt('rate', values.rate) ?? 2000,
      brokers: positiveInt('brokers', values.brokers) ?? 1,
      events: list<RebalanceEventKind>('events', values.events, ['add', 'remove', 'kill']) ?? ['add', 'remove'],
      steadySeconds: positiveNumber('steady-s', values['steady-s']) ?? 15,
      kafkaVersion: values['kafka-version'] ?? defaultKafkaVersion(),
      brokerDir: values['broker-dir'],
      mirrorflow: { nodeArgs: [...(values['node-arg'] ?? [])], set: [...(values.set ?? [])] },
    },
    out: values['no-out'] === true ? undefined : values.out !== undefined ? resolve(values.out) : DEFAULT_REBALANCE_OUT,
    updateReadme: values['update-readme'] === true,
  };
}

async function rebalanceMain(argv: readonly string[]): Promise<number> {
  let cli: RebalanceCliOptions;
  try {
    cli = parseRebalanceCli(argv);
  } catch (error) {
    process.stderr.write(`run-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const report = await runRebalance({ ...cli.rebalance, log: (line) => process.stderr.write(`[rebalance] ${line}\n`) });
  process.stdout.write(`\n${report.markdown}\n`);
  if (cli.out !== undefined) {
    await writeRebalanceReport(report, cli.out);
    process.stderr.write(`[rebalance] Wrote ${cli.out}.\n`);
  }
  if (cli.updateReadme) {
    const readme = join(REPO_ROOT, 'test', 'bench', 'README.md');
    await writeFile(readme, replaceMarkedSection(await readFile(readme, 'utf8'), report.markdown, [REBALANCE_README_BEGIN, REBALANCE_README_END]));
    process.stderr.write(`[rebalance] Updated the rebalance section of ${readme}.\n`);
  }
  return report.ok ? 0 : 1;
}

export async function writeReport(report: BenchReport, out: string): Promise<void> {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--soak')) return soakMain(argv);
  if (argv.includes('--rebalance')) return rebalanceMain(argv);
  let cli: CliOptions;
  try {
    cli = parseCli(argv);
  } catch (error) {
    process.stderr.write(`run-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const started = Date.now();
  const report =
    cli.fromJson !== undefined
      ? rerender(JSON.parse(await readFile(cli.fromJson, 'utf8')) as BenchReport)
      : await runBench({ ...cli.bench, log: (line) => process.stderr.write(`[bench] ${line}\n`) });
  process.stdout.write(`\n${report.text}\n`);
  if (cli.out !== undefined) {
    await writeReport(report, cli.out);
    process.stderr.write(`[bench] Wrote ${cli.out}.\n`);
  }
  if (cli.updateDocs) {
    const page = join(REPO_ROOT, 'docs', 'performance.md');
    await writeFile(page, replaceMarkedSection(await readFile(page, 'utf8'), report.markdown));
    process.stderr.write(`[bench] Updated the table of ${page}.\n`);
  }
  process.stderr.write(`[bench] Done in ${((Date.now() - started) / 60_000).toFixed(1)} min; ${report.ok ? 'every run was correct' : 'some runs FAILED'}.\n`);
  return report.ok ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`run-bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
