/**
 * Starting the replicators under test as child processes, each with its config written into the
 * run's folder and its output in log files there: mirrorflow (`node dist/src/cli/main.js run`)
 * and MirrorMaker 2 (`org.apache.kafka.connect.mirror.MirrorMaker`, dedicated mode).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stringify } from '#yaml';
import { javaCommand, type KafkaDistribution } from '../../src/local';
import { signal, waitForProcessExit } from '../../src/local/processes';
import { processWatchdog } from '../../src/local/watchdog';
import { exactTopicRegex, renderMm2Properties, type Mm2Variant } from './mm2-properties';

export type ReplicatorName =
  | 'mirrorflow'
  | 'mirrorflow-baseline'
  | 'mirrorflow-metrics'
  | 'mirrorflow-eos'
  | 'mirrorflow-transform'
  | 'mirrorflow-provenance'
  | 'mm2-default'
  | 'mm2-tuned'
  | 'limit'
  | 'ceiling';
export const REPLICATOR_NAMES: readonly ReplicatorName[] = [
  'mirrorflow',
  'mirrorflow-baseline',
  'mirrorflow-metrics',
  'mirrorflow-eos',
  'mirrorflow-transform',
  'mirrorflow-provenance',
  'mm2-default',
  'mm2-tuned',
  'limit',
  'ceiling',
];
/**
 * What runs without `--replicators`. `mirrorflow-metrics` (mirrorflow serving HTTP, its /metrics
 * scraped every second) is there to measure what metrics cost: `--replicators mirrorflow,mirrorflow-metrics`.
 * `mirrorflow-eos` is mirrorflow with `delivery: exactly_once` (every workload but latency: its
 * commit markers shift the target's offsets, by which the latency workload pairs records;
 * latency-committed times it instead): `--workloads bulk --replicators mirrorflow,mirrorflow-eos`. `mirrorflow-transform` is mirrorflow
 * with the JSON converter and an `insert_field` transform (JSON workloads only), for what a field
 * transform costs. `mirrorflow-provenance` is mirrorflow with `provenance.enabled`, for what the
 * provenance header costs (docs/active-active.md). `ceiling` is the target broker's best ingest rate (several producers at once).
 * `mirrorflow-baseline` is mirrorflow as built in another checkout (`--baseline DIR`), run the
 * same way: before and after a change, interleaved in one run.
 */
export const DEFAULT_REPLICATORS: readonly ReplicatorName[] = ['mirrorflow', 'mm2-default', 'mm2-tuned', 'limit'];

/** `dist/src/cli/main.js`, from `dist/test/bench`. */
export const MIRRORFLOW_MAIN = resolve(__dirname, '..', '..', 'src', 'cli', 'main.js');

/** The heap MirrorMaker 2's own launcher gives it (connect-mirror-maker.sh: -Xms256M -Xmx2G). */
export const MM2_HEAP_MB = 2048;

export interface ChildRun {
  readonly pid: number;
  readonly logFile: string;
  /** Exit code or signal once the process has ended; undefined while it runs. */
  exitStatus(): string | undefined;
  /** `performance.now()` when the process ended. */
  exitedAt(): number | undefined;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** The last `lines` lines of its output. */
  tail(lines?: number): Promise<string>;
}

const children = new Set<number>();
let exitHookInstalled = false;

/** A benchmark that dies must not leave replicators running: kill what is left at exit. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of children) signal(pid, 'SIGKILL');
  });
}

/**
 * Spawns `command` in `cwd` (the run's folder, which its command line must name) with stdout and
 * stderr appended to `logFile`. The child leads its own process group and is watched by the
 * launcher's watchdog, so that even a SIGKILL of the benchmark (a test runner's timeout) leaves
 * no MirrorMaker behind.
 */
export function spawnLogged(command: string, args: readonly string[], logFile: string, cwd: string): ChildRun {
  installExitHook();
  const out = openSync(logFile, 'a');
  let child;
  try {
    child = spawn(command, [...args], { cwd, stdio: ['ignore', out, out], detached: true });
  } finally {
    closeSync(out);
  }
  if (child.pid === undefined) throw new Error(`${command} could not be started.`);
  const pid = child.pid;
  children.add(pid);
  const watchdog = processWatchdog();
  watchdog.watch(pid, cwd);
  let status: string | undefined;
  let endedAt: number | undefined;
  child.on('error', (error) => (status = `spawn error: ${error.message}`));
  child.on('exit', (code, sig) => {
    endedAt = performance.now();
    status = sig === null ? `exit code ${code}` : `signal ${sig}`;
    children.delete(pid);
    watchdog.release(pid);
  });
  return {
    pid,
    logFile,
    exitStatus: () => status,
    exitedAt: () => endedAt,
    stop: async (graceMs = 30_000) => {
      if (status !== undefined) return;
      signal(pid, 'SIGTERM');
      if (!(await waitForProcessExit(pid, graceMs))) {
        signal(pid, 'SIGKILL');
        await waitForProcessExit(pid, 10_000);
      }
    },
    tail: async (lines = 20) => {
      const text = await readFile(logFile, 'utf8').catch(() => '');
      return text.trimEnd().split('\n').slice(-lines).join('\n');
    },
  };
}

export interface ReplicationRun {
  /** Work folder of this run: configs and logs. */
  readonly dir: string;
  readonly name: string;
  readonly sourceAlias: string;
  readonly targetAlias: string;
  readonly sourceBootstrap: string;
  readonly targetBootstrap: string;
  readonly topics: readonly string[];
  /** Set on clusters shared with other work: see Mm2PropertiesInput.isolateFrom. */
  readonly isolateFrom?: string;
}

export interface MirrorflowLaunch {
  /** Extra node flags, e.g. `--cpu-prof`, `--max-semi-space-size=64`. */
  readonly nodeArgs: readonly string[];
  /** `--set path=value` overrides for `mirrorflow run`. */
  readonly set: readonly string[];
  /** `--status-interval`: a progress line this often (the soak reads them); default 0, none. */
  readonly statusIntervalMs?: number;
  /** Serve HTTP and fetch /metrics this often while it runs, as Prometheus would; default: HTTP off. */
  readonly scrapeMetricsMs?: number;
  /** Serve HTTP (for /status), without scraping. */
  readonly http?: boolean;
  /** `name=value`: read values as JSON and insert this static field into each (`insert_field`). */
  readonly insertField?: string;
  /** The CLI to run; default this checkout's MIRRORFLOW_MAIN. */
  readonly main?: string;
  /** `--baseline DIR`: another checkout, built, whose `dist/src/cli/main.js` the `mirrorflow-baseline` runs start. */
  readonly baselineDir?: string;
}

/**
 * mirrorflow with every setting at its default (checkpoints, heartbeats, offset syncs on; progress
 * flushed every 5 s), only the run's topics selected.
 */
export function mirrorflowPipeline(run: ReplicationRun, insertField?: string): Record<string, unknown> {
  const [field, value] = insertField?.split('=') ?? [];
  const transform =
    field === undefined ? {} : { converter: { value: 'json' }, transforms: [{ type: 'insert_field', on: 'value', static_field: field, static_value: value }] };
  return {
    name: run.name,
    clusters: {
      [run.sourceAlias]: { bootstrap_servers: run.sourceBootstrap.split(',') },
      [run.targetAlias]: { bootstrap_servers: run.targetBootstrap.split(',') },
    },
    flows: [
      {
        source: run.sourceAlias,
        target: run.targetAlias,
        topics: run.topics.map(exactTopicRegex),
        ...transform,
        ...(run.isolateFrom === undefined ? {} : { replicate_heartbeats: false, checkpoints: { groups: [`${run.isolateFrom}-no-such-group`] } }),
      },
    ],
    logging: { level: 'info', format: 'json' },
  };
}

export async function startMirrorflow(run: ReplicationRun, launch: MirrorflowLaunch): Promise<ChildRun> {
  const file = join(run.dir, 'pipeline.yaml');
  await writeFile(file, `# mirrorflow for a benchmark run, written by test/bench.\n${stringify(mirrorflowPipeline(run, launch.insertField))}`);
  const args = [
    ...launch.nodeArgs,
    launch.main ?? MIRRORFLOW_MAIN,
    'run',
    file,
    '--status-interval',
    String(launch.statusIntervalMs ?? 0),
    '--http',
    launch.scrapeMetricsMs === undefined && launch.http !== true ? 'off' : '127.0.0.1:0',
    ...launch.set.flatMap((s) => ['--set', s]),
  ];
  const child = spawnLogged(process.execPath, args, join(run.dir, 'mirrorflow.log'), run.dir);
  return launch.scrapeMetricsMs === undefined ? child : scraped(child, launch.scrapeMetricsMs);
}

/**
 * Records the flow of a mirrorflow run serving HTTP has committed (its /status), or undefined
 * until it serves. An exactly-once run's target offsets count commit markers too, so they cannot
 * tell when every record is there.
 */
export async function statusRecords(child: ChildRun): Promise<number | undefined> {
  const line = (await readFile(child.logFile, 'utf8').catch(() => '')).split('\n').find((l) => l.includes('Serving metrics'));
  if (line === undefined) return undefined;
  const base = `http://${(JSON.parse(line) as { address: string }).address}`;
  const document = (await fetch(`${base}/status`)
    .then((r) => r.json())
    .catch(() => undefined)) as { flows?: { records?: number }[] } | undefined;
  return document?.flows?.reduce((sum, f) => sum + (f.records ?? 0), 0);
}

/**
 * A mirrorflow run whose /metrics is fetched every `everyMs` from when it serves until it is
 * stopped (the address comes from its log line); how many scrapes succeeded goes into its log,
 * so a run that was not really scraped shows.
 */
function scraped(child: ChildRun, everyMs: number): ChildRun {
  let stopping = false;
  let scrapes = 0;
  let bytes = 0;
  const loop = (async () => {
    let base: string | undefined;
    while (!stopping && child.exitStatus() === undefined) {
      const tick = performance.now();
      if (base === undefined) {
        const line = (await readFile(child.logFile, 'utf8').catch(() => '')).split('\n').find((l) => l.includes('Serving metrics'));
        if (line !== undefined) base = `http://${(JSON.parse(line) as { address: string }).address}`;
      } else {
        const text = await fetch(`${base}/metrics`)
          .then((r) => r.text())
          .catch(() => '');
        if (text !== '') {
          scrapes++;
          bytes = text.length;
        }
      }
      // Until it serves, its log is read often; then /metrics once per interval, as a scraper would.
      await sleep(base === undefined ? 50 : Math.max(0, tick + everyMs - performance.now()));
    }
  })();
  return {
    ...child,
    stop: async (graceMs) => {
      stopping = true;
      await loop;
      await appendFile(child.logFile, `${JSON.stringify({ bench: 'metrics scraped', scrapes, lastExpositionBytes: bytes, everyMs })}\n`);
      await child.stop(graceMs);
    },
  };
}

export async function startMm2(
  run: ReplicationRun,
  distribution: KafkaDistribution,
  variant: Mm2Variant,
  tunedTasks: number,
  replicationFactor = 1,
): Promise<ChildRun> {
  const file = join(run.dir, 'mm2.properties');
  await writeFile(
    file,
    renderMm2Properties({
      sourceAlias: run.sourceAlias,
      targetAlias: run.targetAlias,
      sourceBootstrap: run.sourceBootstrap,
      targetBootstrap: run.targetBootstrap,
      topics: run.topics.map(exactTopicRegex),
      variant,
      tunedTasks,
      isolateFrom: run.isolateFrom,
      replicationFactor,
    }),
  );
  const java = javaCommand(distribution, {
    mainClass: 'org.apache.kafka.connect.mirror.MirrorMaker',
    args: [file, '--clusters', run.targetAlias],
    heapMb: MM2_HEAP_MB,
    logDir: run.dir,
  });
  return spawnLogged(java.command, java.args, join(run.dir, 'mm2.out'), run.dir);
}
