import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, LocalKafkaError } from '../core/errors';
import { silentLogger, type Logger } from '../core/ports/logger';
import { brokerProperties, renderProperties, type BrokerPropertyOverrides } from './broker-properties';
import { findFreePorts } from './free-ports';
import { javaCommand, type KafkaDistribution } from './kafka-distribution';
import { isBrokerReady } from './kafka-probe';
import { randomKafkaUuid } from './kafka-uuid';
import { lastLines, logExcerpt, readLogEnd } from './log-tail';
import { prepareSecurity, type LocalClusterSecurity, type LocalSecurityOptions } from './local-security';
import { signal, terminateProcess } from './processes';
import type { Watchdog } from './watchdog';

/** One running single-node KRaft cluster. */
export interface LocalCluster {
  readonly alias: string;
  /** `127.0.0.1:<port>`, for `bootstrap.servers`. */
  readonly bootstrapServers: string;
  readonly host: string;
  readonly port: number;
  readonly controllerPort: number;
  readonly clusterId: string;
  readonly version: string;
  /** Pid of the broker JVM. */
  readonly pid: number;
  /** Work dir: server.properties, data/, logs/. */
  readonly dir: string;
  /** The broker's log file. */
  readonly logFile: string;
  /** Its secured listeners, when it was started with `security`. */
  readonly security?: LocalClusterSecurity;
}

export interface StartBrokerOptions {
  readonly alias: string;
  readonly distribution: KafkaDistribution;
  /** Work dir for this cluster; created if missing, and owned by the broker from now on. */
  readonly dir: string;
  readonly heapMb?: number;
  /** Folders or jars on the broker's classpath before Kafka's: classes that broker properties name (callback handlers). */
  readonly extraClasspath?: readonly string[];
  readonly brokerProperties?: BrokerPropertyOverrides;
  /** Secured listeners, users, certificates and the authorizer (see local-security.ts). */
  readonly security?: LocalSecurityOptions;
  readonly startTimeoutMs?: number;
  readonly logger?: Logger;
  /**
   * Undefined for a broker that must outlive this process (`mirrorflow local up`); otherwise
   * the watchdog that stops the broker if this process dies.
   */
  readonly watchdog?: Watchdog;
}

export interface BrokerHandle {
  /**
   * The cluster; stays valid across halt() and start(): same bootstrap address, ports, cluster
   * id and data. Only `pid` changes when the broker is started again.
   */
  readonly cluster: LocalCluster;
  /** False between halt() and start(), and after stop(). */
  readonly running: boolean;
  /**
   * Stops the broker JVM (SIGTERM, SIGKILL after `graceMs`; `signal: 'SIGKILL'` kills it at once,
   * like a crash) and keeps its work dir, so start() brings the same cluster back. For tests
   * that take a cluster away from its clients. Idempotent.
   */
  halt(options?: { graceMs?: number; signal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>;
  /**
   * Starts a halted broker again on the same ports, from the same data dir and cluster id (no
   * re-format), and resolves once it serves clients. Does nothing while it runs.
   */
  start(): Promise<void>;
  /** halt() then start(). */
  restart(options?: { graceMs?: number; signal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>;
  /** SIGTERM, SIGKILL after `graceMs`; then deletes the work dir unless `keepDir`. Final. */
  stop(options?: { graceMs?: number; keepDir?: boolean }): Promise<void>;
}

const HOST = '127.0.0.1';
const START_ATTEMPTS = 3;
const PROBE_INTERVAL_MS = 200;
/** Between attempts to bind the same ports again after a restart found one still taken. */
const REBIND_PAUSE_MS = 1_000;

/** Brokers owned by this process, signalled at exit in case nobody called stop(). */
const ownedBrokers = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: send SIGTERM and leave waiting, SIGKILL and deleting
  // the work dir to the watchdog, which notices this process is gone.
  process.on('exit', () => {
    for (const pid of ownedBrokers) signal(pid, 'SIGTERM', true);
  });
}

/**
 * Formats storage and starts one broker+controller JVM on free loopback ports, then waits until
 * it serves clients. Retries with new ports when another process took a port first.
 */
export async function startBroker(options: StartBrokerOptions): Promise<BrokerHandle> {
  const logger = (options.logger ?? silentLogger).child({ cluster: options.alias });
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, logger);
    } catch (error) {
      if (!(error instanceof PortTakenError)) throw error;
      if (attempt >= START_ATTEMPTS) {
        throw new LocalKafkaError(
          `Local Kafka cluster "${options.alias}" could not bind its ports in ${START_ATTEMPTS} attempts. Broker log:\n${error.excerpt}`,
        );
      }
      logger.warn('A port was taken before the broker could bind it; retrying with new ports.', { attempt });
    }
  }
}

/** Another process bound one of the free ports first; worth another try with new ports. */
class PortTakenError extends Error {
  override readonly name = 'PortTakenError';
  constructor(readonly excerpt: string) {
    super('A port of the broker was taken.');
  }
}

/** Where a broker keeps its files; fixed for the life of its work dir. */
interface BrokerFiles {
  readonly propertiesFile: string;
  readonly logDir: string;
  readonly logFile: string;
  readonly stdoutFile: string;
}

function brokerFiles(dir: string): BrokerFiles {
  const logDir = join(dir, 'logs');
  return { propertiesFile: join(dir, 'server.properties'), logDir, logFile: join(logDir, 'server.log'), stdoutFile: join(logDir, 'stdout.log') };
}

async function startOnce(options: StartBrokerOptions, logger: Logger): Promise<BrokerHandle> {
  const { alias, distribution, dir } = options;
  const files = brokerFiles(dir);
  const dataDir = join(dir, 'data');
  await rm(dataDir, { recursive: true, force: true });
  await rm(files.logDir, { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  await mkdir(files.logDir, { recursive: true });

  const [port, controllerPort, saslSslPort, sslPort] = (await findFreePorts(options.security ? 4 : 2, HOST)) as [number, number, number, number];
  const clusterId = randomKafkaUuid();
  const secured = options.security && (await prepareSecurity(dir, options.security, { host: HOST, brokerPort: port, controllerPort, saslSslPort, sslPort }));
  const overrides = { ...secured?.brokerProperties, ...options.brokerProperties };
  const properties = brokerProperties({ brokerPort: port, controllerPort, dataDir, host: HOST, overrides });
  // The file holds the broker's key and the PLAIN passwords when secured: owner-readable only.
  await writeFile(files.propertiesFile, renderProperties(properties, `Local Kafka cluster "${alias}", written by mirrorflow.`), { mode: 0o600 });

  await formatStorage(distribution, clusterId, files.propertiesFile, files.logDir, alias, secured?.formatArgs ?? []);

  let pid = await launch(options, files, port, logger);
  const cluster: LocalCluster = {
    alias,
    bootstrapServers: `${HOST}:${port}`,
    host: HOST,
    port,
    controllerPort,
    clusterId,
    version: distribution.version,
    get pid() {
      return pid;
    },
    dir,
    logFile: files.logFile,
    ...(secured && { security: secured.descriptor }),
  };
  let running = true;
  let stopped = false;
  // One transition at a time: a start() racing a halt() would leave a JVM nobody tracks.
  let transition: Promise<void> = Promise.resolve();
  const serially = (step: () => Promise<void>): Promise<void> => {
    const next = transition.then(step);
    transition = next.catch(() => undefined);
    return next;
  };
  const halt = async (haltOptions: { graceMs?: number; signal?: 'SIGTERM' | 'SIGKILL' } = {}): Promise<void> => {
    if (!running) return;
    await terminateProcess(pid, { graceMs: haltOptions.signal === 'SIGKILL' ? 0 : (haltOptions.graceMs ?? 15_000), group: true });
    running = false;
    ownedBrokers.delete(pid);
    // The old pid stays watched until a new one replaces it: if this process dies while the
    // broker is halted, the watchdog still deletes the work dir (it only signals a pid whose
    // command line names the dir, so a reused pid is safe).
    logger.info('Local Kafka cluster halted.', { pid });
  };
  const handle: BrokerHandle = {
    cluster,
    get running() {
      return running;
    },
    halt: (haltOptions) => serially(() => halt(haltOptions)),
    start: () =>
      serially(async () => {
        if (running) return;
        if (stopped) throw new LocalKafkaError(`Local Kafka cluster "${alias}" was stopped for good and cannot start again.`);
        const previous = pid;
        pid = await relaunch(options, files, port, logger);
        running = true;
        if (options.watchdog !== undefined) options.watchdog.release(previous);
      }),
    restart: async (haltOptions) => {
      await handle.halt(haltOptions);
      await handle.start();
    },
    stop: (stopOptions = {}) =>
      serially(async () => {
        if (stopped) return;
        stopped = true;
        if (running) await terminateProcess(pid, { graceMs: stopOptions.graceMs ?? 15_000, group: true });
        running = false;
        ownedBrokers.delete(pid);
        if (!stopOptions.keepDir) await rm(dir, { recursive: true, force: true });
        options.watchdog?.release(pid);
      }),
  };
  return handle;
}

/** Starts a halted broker's JVM again on its own ports; a port still held is retried a few times. */
async function relaunch(options: StartBrokerOptions, files: BrokerFiles, port: number, logger: Logger): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(options, files, port, logger);
    } catch (error) {
      if (!(error instanceof PortTakenError)) throw error;
      if (attempt >= START_ATTEMPTS) {
        throw new LocalKafkaError(
          `Local Kafka cluster "${options.alias}" could not bind its ports again in ${START_ATTEMPTS} attempts. Broker log:\n${error.excerpt}`,
        );
      }
      // The ports are the cluster's identity for its clients: wait for them, never pick others.
      logger.warn('A port of the broker is still taken; retrying the same ports.', { attempt, port });
      await sleep(REBIND_PAUSE_MS);
    }
  }
}

/**
 * Spawns the broker JVM from the properties file in the work dir and waits until it serves
 * clients on `port`; resolves with its pid. A JVM that exits or does not answer in time is
 * stopped, and the error quotes its log.
 */
async function launch(options: StartBrokerOptions, files: BrokerFiles, port: number, logger: Logger): Promise<number> {
  const { alias, distribution, dir } = options;
  const java = javaCommand(distribution, {
    mainClass: 'kafka.Kafka',
    args: [files.propertiesFile],
    heapMb: options.heapMb,
    logDir: files.logDir,
    ...(options.extraClasspath !== undefined && { classpath: options.extraClasspath }),
  });
  // Where this launch's output starts, so a failure quotes this run's log and not an earlier one's.
  const logStart = await fileSize(files.logFile);
  const stdoutStart = await fileSize(files.stdoutFile);
  const out = openSync(files.stdoutFile, 'a');
  let child: ChildProcess;
  try {
    // detached: the broker leads its own process group, so a Ctrl-C meant for the owner does not
    // kill it mid-write; the owner (or its watchdog) stops it in order instead.
    child = spawn(java.command, java.args, { cwd: dir, detached: true, stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
  let exit: string | undefined;
  child.on('exit', (code, sig) => {
    exit = sig === null ? `exit code ${code}` : `signal ${sig}`;
  });
  const pid = await spawned(child, java.command, alias);
  if (options.watchdog !== undefined) {
    options.watchdog.watch(pid, dir);
    ownedBrokers.add(pid);
    installExitHook();
  }
  // The broker must not keep the owner alive: an owner that forgets stop() still exits, and the
  // exit hook and watchdog stop the broker.
  child.unref();
  const abandon = async (): Promise<void> => {
    await terminateProcess(pid, { graceMs: 15_000, group: true });
    ownedBrokers.delete(pid);
    options.watchdog?.release(pid);
  };

  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const started = Date.now();
  const deadline = started + timeoutMs;
  let lastProbeError = 'no answer yet';
  for (;;) {
    if (exit !== undefined) {
      const { excerpt, bindFailed } = await brokerLog(files, logStart, stdoutStart);
      await abandon();
      if (bindFailed) throw new PortTakenError(excerpt);
      throw new LocalKafkaError(`Local Kafka cluster "${alias}" stopped during start-up (${exit}). Broker log:\n${excerpt}`);
    }
    try {
      if (await isBrokerReady(HOST, port)) break;
      lastProbeError = 'the broker does not list itself as alive yet';
    } catch (error) {
      lastProbeError = describeError(error);
    }
    if (Date.now() >= deadline) {
      const { excerpt } = await brokerLog(files, logStart, stdoutStart);
      await abandon();
      throw new LocalKafkaError(
        `Local Kafka cluster "${alias}" did not answer on ${HOST}:${port} within ${timeoutMs} ms (${lastProbeError}). ` + `Broker log:\n${excerpt}`,
      );
    }
    await sleep(PROBE_INTERVAL_MS);
  }
  logger.info('Local Kafka cluster is ready.', { bootstrapServers: `${HOST}:${port}`, pid, ms: Date.now() - started });
  return pid;
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

/** Resolves with the pid once the process runs; rejects clearly when Java is missing. */
function spawned(child: ChildProcess, command: string, alias: string): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new LocalKafkaError(`Java ("${command}") was not found; local Kafka clusters need Java 17 or newer.`, { cause: error })
          : new LocalKafkaError(`Local Kafka cluster "${alias}" could not be started.`, { cause: error }),
      );
    });
    child.once('spawn', () => resolve(child.pid!));
  });
}

async function formatStorage(
  distribution: KafkaDistribution,
  clusterId: string,
  propertiesFile: string,
  logDir: string,
  alias: string,
  extraArgs: readonly string[],
): Promise<void> {
  const java = javaCommand(distribution, {
    mainClass: 'kafka.tools.StorageTool',
    args: ['format', '-t', clusterId, '-c', propertiesFile, ...extraArgs],
    profile: 'tool',
    logDir,
  });
  const child = spawn(java.command, java.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  await spawned(child, java.command, alias);
  const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
  if (code !== 0) {
    throw new LocalKafkaError(
      `Formatting the storage of local Kafka cluster "${alias}" failed (exit code ${code}):\n${output.trim().replace(/password=[^\]\s]*/g, 'password=(hidden)')}`,
    );
  }
}

/**
 * What the broker said before it failed, since `logStart`/`stdoutStart` (the sizes of the files
 * when this launch began). JVM errors (bad options, missing class) go to stdout.log, Kafka's own
 * messages to server.log.
 */
async function brokerLog(files: BrokerFiles, logStart: number, stdoutStart: number): Promise<{ excerpt: string; bindFailed: boolean }> {
  const [log, stdout] = await Promise.all([readLogEnd(files.logFile, undefined, logStart), readLogEnd(files.stdoutFile, 16 * 1024, stdoutStart)]);
  const parts = [
    stdout.trim() && `--- ${files.stdoutFile}\n${lastLines(stdout, 15).join('\n')}`,
    log.trim() && `--- ${files.logFile}\n${logExcerpt(log)}`,
  ].filter(Boolean);
  return {
    excerpt: parts.join('\n') || '(the broker wrote no log)',
    bindFailed: /Address already in use|BindException/.test(log + stdout),
  };
}
