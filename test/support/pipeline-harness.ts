/**
 * Runs mirrorflow pipelines against the shared test clusters, the two ways a test needs:
 *
 * - `startPipeline(file)`: in the test process (loadPipeline + Pipeline, as the CLI does), fast,
 *   with the flows' live statuses at hand;
 * - `spawnPipeline(file)`: `node dist/src/cli/main.js run FILE` as a real child process, for
 *   signals, kill -9, exit codes and what a user reads on stderr.
 *
 * `writePipeline` writes the YAML: clusters from `testClusters()`, short refresh and flush
 * intervals so tests are fast. Topic filters must select only the test's own unique topics,
 * because every test file shares the two clusters.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from '#yaml';
import { Pipeline, loadPipeline } from '../../src/pipeline';
import type { FlowStatus } from '../../src/flow/status/flow-status';
import type { Logger } from '../../src/core/ports/logger';
import { describeError } from '../../src/core/errors';
import { testClusters, uniqueName, waitFor, type WaitForOptions } from './clusters';

/** `dist/src/cli/main.js`, from `dist/test/support`. */
export const MIRRORFLOW_MAIN = resolve(__dirname, '..', '..', 'src', 'cli', 'main.js');

/** One flow of a test pipeline: `source`/`target` default to primary → backup; any other key as in the YAML. */
export interface TestFlow {
  readonly source?: string;
  readonly target?: string;
  readonly topics: readonly string[];
  readonly [key: string]: unknown;
}

/** One link of a test pipeline (both directions between `clusters`); any other key as in the YAML. */
export interface TestLink {
  readonly clusters: readonly [string, string];
  readonly topics: readonly string[];
  readonly [key: string]: unknown;
}

export interface TestPipelineSpec {
  /** Default: a unique name, so consumer groups never collide between tests. */
  readonly name?: string;
  readonly flows: readonly TestFlow[];
  /** Links, with the flows' fast test settings (other than source and target). */
  readonly links?: readonly TestLink[];
  /** Extra or replacing clusters by alias (bootstrap address, or several comma-separated); `primary` and `backup` are there too unless `sharedClusters` is false. */
  readonly clusters?: Readonly<Record<string, string>>;
  /**
   * Default true: the shared test clusters are in the file as `primary` and `backup`. False for a
   * file on clusters of its own only, which then needs no shared clusters at all.
   */
  readonly sharedClusters?: boolean;
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
}

export interface TestPipelineFile {
  readonly file: string;
  readonly name: string;
  readonly dir: string;
  /** The document as written, for tests that want to tweak it and write it again. */
  readonly document: Record<string, unknown>;
}

/**
 * Fast settings for tests; a flow's own keys win (maps merged key by key). Heartbeats topics are
 * replicated whatever the topic filter says, so a test pipeline would pick up every other test's
 * `*.heartbeats` topic on the shared clusters: off unless a test turns it on.
 */
const FLOW_TEST_DEFAULTS = {
  source: 'primary',
  target: 'backup',
  replicate_heartbeats: false,
  topic_sync: { refresh_interval_ms: 1000 },
  progress: { flush_interval_ms: 500 },
  consumer: { max_wait_ms: 100 },
};

const { source: _source, target: _target, ...LINK_TEST_DEFAULTS } = FLOW_TEST_DEFAULTS;

const scratchDirs: string[] = [];

/** A fresh temp folder, removed by `cleanupHarness()`. */
export function scratchDir(prefix = 'mirrorflow-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** Writes a pipeline file for `spec` into a temp folder. */
export async function writePipeline(spec: TestPipelineSpec): Promise<TestPipelineFile> {
  const shared = spec.sharedClusters === false ? {} : await testClusters().then(({ primary, backup }) => ({ primary, backup }));
  const name = spec.name ?? uniqueName('itest');
  const allClusters: Record<string, string> = { ...shared, ...(spec.clusters ?? {}) };
  const document: Record<string, unknown> = {
    name,
    // A cluster of several brokers comes as their addresses, comma-separated: one list entry each.
    clusters: Object.fromEntries(Object.entries(allClusters).map(([alias, bootstrap]) => [alias, { bootstrap_servers: bootstrap.split(',') }])),
    ...(spec.flows.length === 0 && spec.links !== undefined ? {} : { flows: spec.flows.map((flow) => deepMerge(FLOW_TEST_DEFAULTS, flow)) }),
    ...(spec.links === undefined ? {} : { links: spec.links.map((link) => deepMerge(LINK_TEST_DEFAULTS, link)) }),
    logging: { level: spec.logLevel ?? 'info', format: 'json' },
  };
  return writeDocument(document, name);
}

/** Writes a document (or raw text) as a pipeline file, e.g. a deliberately broken one. */
export function writePipelineText(text: string, fileName = 'pipeline.yaml'): string {
  const file = join(scratchDir(), fileName);
  writeFileSync(file, text);
  return file;
}

function writeDocument(document: Record<string, unknown>, name: string): TestPipelineFile {
  const dir = scratchDir();
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(document));
  return { file, name, dir, document };
}

function deepMerge(base: Record<string, unknown>, over: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isMap(current) && isMap(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// In-process runs

export interface LogLine {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly message: string;
  readonly meta: Record<string, unknown>;
}

/** Keeps every log line in memory (printed on failure by tests that want it); MIRRORFLOW_TEST_LOG=1 also prints them. */
export function memoryLogger(lines: LogLine[] = [], base: Record<string, unknown> = {}): Logger & { readonly lines: LogLine[] } {
  const print = process.env['MIRRORFLOW_TEST_LOG'] === '1';
  const at =
    (level: LogLine['level']) =>
    (message: string, meta: Record<string, unknown> = {}): void => {
      const line = { level, message, meta: { ...base, ...meta } };
      lines.push(line);
      if (print) process.stderr.write(`[${level}] ${message} ${JSON.stringify(line.meta)}\n`);
    };
  return {
    lines,
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    child: (meta) => memoryLogger(lines, { ...base, ...meta }),
  };
}

export interface RunningPipeline {
  readonly pipeline: Pipeline;
  /** Settles when the pipeline stops (resolves) or fails (rejects). Never rejects unobserved. */
  readonly done: Promise<void>;
  readonly logs: LogLine[];
  statuses(): readonly FlowStatus[];
  /** Waits until every flow reports `running`. */
  running(timeoutMs?: number): Promise<void>;
  /**
   * `waitFor(check)`, failing at once if the pipeline ends meanwhile, and quoting the run's
   * warnings and errors on failure.
   */
  until<T>(check: () => T | Promise<T>, options: WaitForOptions): Promise<NonNullable<T>>;
  /** Asks the pipeline to drain and stop, and waits for it; a stop that hangs fails, saying where each flow was. */
  stop(): Promise<void>;
}

const runningPipelines = new Set<RunningPipeline>();

/** A drain in a test moves a few records; a stop taking longer than this has hung. */
const STOP_TIMEOUT_MS = 60_000;

/**
 * True when the run's next offset of every partition of `topics` is at the source's end offset
 * (transaction markers and aborted records included): everything on the source was read.
 */
export async function caughtUp(run: RunningPipeline, source: { endOffsets(topic: string): Promise<number[]> }, topics: readonly string[]): Promise<boolean> {
  const done = new Map<string, number>();
  for (const status of run.statuses()) for (const p of status.partitions.values()) done.set(`${p.topic}/${p.partition}`, p.nextOffset);
  for (const topic of topics) {
    const ends = await source.endOffsets(topic);
    if (ends.some((end, partition) => (done.get(`${topic}/${partition}`) ?? 0) < end)) return false;
  }
  return true;
}

/** Loads `file` as `mirrorflow run` does and starts it in this process. */
export async function startPipeline(file: string, options: { set?: readonly string[]; pluginDirs?: readonly string[] } = {}): Promise<RunningPipeline> {
  // As `mirrorflow run` loads it: the project's plugins, every transform step checked.
  const { config, registry } = await loadPipeline(file, { set: options.set ?? [], pluginDirs: options.pluginDirs ?? [] });
  const logger = memoryLogger();
  const pipeline = new Pipeline(config, { logger, registry });
  await pipeline.prepare();
  const done = pipeline.run();
  // Observed here so a failure is never "unhandled"; tests await `done` to see it.
  let ended: { error?: unknown } | undefined;
  done.then(
    () => (ended = {}),
    (error: unknown) => (ended = { error }),
  );
  let stopped: Promise<void> | undefined;
  const handle: RunningPipeline = {
    pipeline,
    done,
    logs: logger.lines,
    statuses: () => pipeline.statuses,
    running: (timeoutMs = 30_000) =>
      handle
        .until(() => pipeline.statuses.length > 0 && pipeline.statuses.every((s) => s.state === 'running'), {
          what: `pipeline ${config.name} to run`,
          timeoutMs,
        })
        .then(() => undefined),
    until: async <T>(check: () => T | Promise<T>, options: WaitForOptions): Promise<NonNullable<T>> => {
      let value: NonNullable<T> | undefined;
      try {
        await waitFor(async () => {
          if (ended !== undefined) return true;
          const result = await check();
          if (result) value = result as NonNullable<T>;
          return result;
        }, options);
      } catch (error) {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\n${problems(logger.lines)}`, { cause: error });
      }
      if (value !== undefined) return value;
      const reason = ended?.error === undefined ? 'it stopped' : describeError(ended.error);
      throw new Error(`The pipeline ended while waiting for ${options.what}: ${reason}\n${problems(logger.lines)}`, { cause: ended?.error });
    },
    stop: () => {
      stopped ??= (async () => {
        pipeline.stop();
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const states = pipeline.statuses.map((s) => `${s.source}->${s.target}: ${s.state}`).join(', ');
            reject(new Error(`Pipeline ${config.name} did not stop within ${STOP_TIMEOUT_MS} ms (${states})\n${problems(logger.lines)}`));
          }, STOP_TIMEOUT_MS);
        });
        try {
          await Promise.race([done, hung]);
        } finally {
          clearTimeout(timer);
          runningPipelines.delete(handle);
        }
      })();
      return stopped;
    },
  };
  runningPipelines.add(handle);
  return handle;
}

/** Error and warning lines of a run, for assertion messages. */
export function problems(logs: readonly LogLine[]): string {
  return logs
    .filter((l) => l.level === 'error' || l.level === 'warn')
    .map((l) => `${l.level}: ${l.message} ${JSON.stringify(l.meta)}`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// Child processes

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ChildPipeline {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<CliResult>;
  /** Waits for a line of output (stdout or stderr) matching `pattern`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

const children = new Set<ChildPipeline>();

/** `node dist/src/cli/main.js <args>` with output captured. */
export function spawnCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; defaultHttp?: boolean } = {}): ChildPipeline {
  // Test files run in parallel: a `run` without its own `--http` listens on a free loopback port
  // (`httpAddress` finds it), unless the test is about the default address (`defaultHttp`).
  const http = args[0] === 'run' && !args.includes('--http') && options.defaultHttp !== true ? ['--http', '127.0.0.1:0'] : [];
  const child = spawn(process.execPath, [MIRRORFLOW_MAIN, ...args, ...http], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...(options.env ?? {}) },
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<CliResult>((resolveExit) => {
    child.on('close', (code, signal) => resolveExit({ code, signal, stdout: out, stderr: err }));
    child.on('error', (error) => resolveExit({ code: null, signal: null, stdout: out, stderr: `${err}\nspawn failed: ${error.message}` }));
  });
  const handle: ChildPipeline = {
    child,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput: async (pattern, timeoutMs = 30_000) => {
      let exitedEarly = false;
      void exited.then(() => (exitedEarly = true));
      await waitFor(
        () => {
          if (pattern.test(out) || pattern.test(err)) return true;
          if (exitedEarly) throw new Error(`the process exited; stderr:\n${err.slice(-2000)}`);
          return false;
        },
        { what: `output matching ${pattern} from mirrorflow (pid ${child.pid})`, timeoutMs },
      );
    },
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
}

/** `mirrorflow run FILE` as a child process; progress lines every `statusIntervalMs` (0 = none). */
export function spawnPipeline(file: string, options: { args?: readonly string[]; statusIntervalMs?: number } = {}): ChildPipeline {
  return spawnCli(['run', file, '--status-interval', String(options.statusIntervalMs ?? 0), ...(options.args ?? [])]);
}

/** The `http://host:port` a child `mirrorflow run` serves on, from its log line (JSON or text logs). */
export async function httpAddress(child: ChildPipeline, timeoutMs = 30_000): Promise<string> {
  await child.waitForOutput(/Serving metrics/, timeoutMs);
  const line = (child.stderr() + '\n' + child.stdout()).split('\n').find((l) => l.includes('Serving metrics'))!;
  const address = line.startsWith('{') ? (JSON.parse(line) as { address: string }).address : /address=(\S+)/.exec(line)![1];
  return `http://${address}`;
}

/** Runs the CLI to completion; kills it (and fails) if it takes longer than `timeoutMs`. */
export async function runCli(args: readonly string[], timeoutMs = 60_000): Promise<CliResult> {
  const run = spawnCli(args);
  const timer = setTimeout(() => run.kill('SIGKILL'), timeoutMs);
  try {
    const result = await run.exited;
    if (result.signal === 'SIGKILL') throw new Error(`mirrorflow ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr:\n${result.stderr}`);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Stops whatever a test file left running: in-process pipelines drain, child processes are
 * killed. Call from `after()`.
 */
export async function cleanupHarness(): Promise<void> {
  for (const child of [...children]) child.kill('SIGKILL');
  await Promise.allSettled([...children].map((c) => c.exited));
  await Promise.allSettled([...runningPipelines].map((p) => p.stop()));
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
