import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, LocalKafkaError } from '../core/errors';
import type { Logger } from '../core/ports/logger';
import { javaCommand, type KafkaDistribution } from './kafka-distribution';
import { isBrokerReady } from './kafka-probe';
import { lastLines, logExcerpt, readLogEnd } from './log-tail';
import { signal, terminateProcess } from './processes';
import type { Watchdog } from './watchdog';

/**
 * One node of a local KRaft cluster: a JVM that is both broker and controller, started from a
 * work dir that local-cluster.ts prepared (server.properties written, storage formatted), and
 * halted, killed and started again on the same ports from the same data.
 */

/** A node of a running local cluster. */
export interface LocalNode {
  /** `node.id`: 1 … the cluster's size. */
  readonly id: number;
  readonly host: string;
  readonly port: number;
  readonly controllerPort: number;
  /** `host:port` of this node alone. */
  readonly bootstrapServers: string;
  /** Pid of the node's JVM; a new one after each start. */
  readonly pid: number;
  /** The node's work dir: server.properties, data/, logs/. */
  readonly dir: string;
  /** The node's log file. */
  readonly logFile: string;
}

export interface BrokerHandle {
  /** Stays valid across halt() and start(): same ports and data. Only `pid` changes on a start. */
  readonly node: LocalNode;
  /** False between halt() and start(), and after stop(). */
  readonly running: boolean;
  /**
   * Stops the JVM (SIGTERM, SIGKILL after `graceMs`; `signal: 'SIGKILL'` kills it at once, like a
   * crash) and keeps its work dir, so start() brings the same node back. Idempotent.
   */
  halt(options?: HaltOptions): Promise<void>;
  /**
   * Starts a halted node again on the same ports, from the same data dir and cluster id (no
   * re-format), and resolves once it serves clients. Does nothing while it runs.
   */
  start(): Promise<void>;
  /** halt() then start(). */
  restart(options?: HaltOptions): Promise<void>;
  /** SIGTERM, SIGKILL after `graceMs`. Final; the work dir is the cluster's to delete. */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/**
 * How a node's JVM runs: 'server' as Kafka's scripts run brokers (G1, both compilers); 'lean'
 * for nodes of short tests on a small machine (the serial collector and the quick compiler only:
 * about half the CPU to start and a quarter less while idle; slower under heavy load).
 */
export type JvmProfile = 'server' | 'lean';

export interface HaltOptions {
  readonly graceMs?: number;
  readonly signal?: 'SIGTERM' | 'SIGKILL';
}

/** What launching a node needs; its work dir is prepared already. */
export interface NodeLaunch {
  readonly alias: string;
  readonly id: number;
  readonly distribution: KafkaDistribution;
  /** The node's work dir (see nodeFiles). */
  readonly dir: string;
  /** The folder the watchdog deletes if the owner dies: the cluster's. */
  readonly watchDir: string;
  readonly host: string;
  readonly port: number;
  readonly controllerPort: number;
  readonly heapMb?: number;
  /** See StartLocalClustersOptions.jvmProfile. Default 'server'. */
  readonly jvmProfile?: JvmProfile;
  readonly extraClasspath?: readonly string[];
  /** JVM options of the node before its main class, e.g. `-Djava.security.krb5.conf=…`. */
  readonly jvmOptions?: readonly string[];
  readonly startTimeoutMs?: number;
  readonly logger: Logger;
  /** Undefined for a node that must outlive this process (`mirrorflow local up`). */
  readonly watchdog?: Watchdog;
}

/** Where a node keeps its files; fixed for the life of its work dir. */
export interface NodeFiles {
  readonly propertiesFile: string;
  readonly dataDir: string;
  readonly logDir: string;
  readonly logFile: string;
  readonly stdoutFile: string;
}

export function nodeFiles(dir: string): NodeFiles {
  const logDir = join(dir, 'logs');
  return {
    propertiesFile: join(dir, 'server.properties'),
    dataDir: join(dir, 'data'),
    logDir,
    logFile: join(logDir, 'server.log'),
    stdoutFile: join(logDir, 'stdout.log'),
  };
}

const START_ATTEMPTS = 3;
/** Between two readiness probes of a starting broker, and of a cluster whose nodes must list each other. */
export const PROBE_INTERVAL_MS = 200;
/** Between attempts to bind the same ports again after a restart found one still taken. */
const REBIND_PAUSE_MS = 1_000;

/** Another process bound one of the free ports first; worth another try with new ports. */
export class PortTakenError extends Error {
  override readonly name = 'PortTakenError';
  constructor(readonly excerpt: string) {
    super('A port of the broker was taken.');
  }
}

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
 * Starts the node's JVM and resolves, once it serves clients, with its handle. Throws
 * PortTakenError when a port was taken meanwhile; `abort` stops a launch that waits for a quorum
 * whose other nodes failed.
 */
export async function launchBroker(launch: NodeLaunch, abort?: AbortSignal): Promise<BrokerHandle> {
  const files = nodeFiles(launch.dir);
  const logger = launch.logger;
  let pid = await spawnNode(launch, files, abort);
  const node: LocalNode = {
    id: launch.id,
    host: launch.host,
    port: launch.port,
    controllerPort: launch.controllerPort,
    bootstrapServers: `${launch.host}:${launch.port}`,
    get pid() {
      return pid;
    },
    dir: launch.dir,
    logFile: files.logFile,
  };
  let running = true;
  let stopped = false;
  // One transition at a time: a start() racing a halt() would leave a JVM nobody tracks.
  let transition: Promise<void> = Promise.resolve();
  const serially = (step: () => Promise<void>): Promise<void> => {
    const next = transition.then(step);
    transition = next.catch(() => undefined); // the chain only orders; the caller gets `next` and its failure
    return next;
  };
  const handle: BrokerHandle = {
    node,
    get running() {
      return running;
    },
    halt: (options = {}) =>
      serially(async () => {
        if (!running) return;
        await terminateProcess(pid, { graceMs: options.signal === 'SIGKILL' ? 0 : (options.graceMs ?? 15_000), group: true });
        running = false;
        ownedBrokers.delete(pid);
        // The old pid stays watched until a new one replaces it: if this process dies while the
        // node is halted, the watchdog still deletes the work dir (it only signals a pid whose
        // command line names the dir, so a reused pid is safe).
        logger.info('Local Kafka node halted.', { pid, signal: options.signal ?? 'SIGTERM' });
      }),
    start: () =>
      serially(async () => {
        if (running) return;
        if (stopped) throw new LocalKafkaError(`Local Kafka cluster "${launch.alias}" was stopped for good and cannot start again.`);
        const previous = pid;
        pid = await respawnNode(launch, files);
        running = true;
        launch.watchdog?.release(previous);
      }),
    restart: async (options) => {
      await handle.halt(options);
      await handle.start();
    },
    stop: (options = {}) =>
      serially(async () => {
        if (stopped) return;
        stopped = true;
        if (running) await terminateProcess(pid, { graceMs: options.graceMs ?? 15_000, group: true });
        running = false;
        ownedBrokers.delete(pid);
        launch.watchdog?.release(pid);
      }),
  };
  return handle;
}

/** Starts a halted node's JVM again on its own ports; a port still held is retried a few times. */
async function respawnNode(launch: NodeLaunch, files: NodeFiles): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnNode(launch, files);
    } catch (error) {
      if (!(error instanceof PortTakenError)) throw error;
      if (attempt >= START_ATTEMPTS) {
        throw new LocalKafkaError(
          `Local Kafka cluster "${launch.alias}" could not bind its ports again in ${START_ATTEMPTS} attempts. Broker log:\n${error.excerpt}`,
        );
      }
      // The ports are the node's identity for its clients: wait for them, never pick others.
      launch.logger.warn('A port of the broker is still taken; retrying the same ports.', { attempt, port: launch.port });
      await sleep(REBIND_PAUSE_MS);
    }
  }
}

/**
 * Spawns the node's JVM from the properties file in its work dir and waits until it serves
 * clients on its port; resolves with its pid. A JVM that exits, does not answer in time or whose
 * launch is aborted is stopped, and the error quotes its log.
 */
async function spawnNode(launch: NodeLaunch, files: NodeFiles, abort?: AbortSignal): Promise<number> {
  const { alias, distribution, dir, host, port, logger } = launch;
  const java = javaCommand(distribution, {
    mainClass: 'kafka.Kafka',
    args: [files.propertiesFile],
    heapMb: launch.heapMb,
    profile: launch.jvmProfile === 'lean' ? 'tool' : 'server',
    logDir: files.logDir,
    ...(launch.extraClasspath !== undefined && { classpath: launch.extraClasspath }),
    ...(launch.jvmOptions !== undefined && { jvmOptions: launch.jvmOptions }),
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
  if (launch.watchdog !== undefined) {
    launch.watchdog.watch(pid, launch.watchDir);
    ownedBrokers.add(pid);
    installExitHook();
  }
  // The broker must not keep the owner alive: an owner that forgets stop() still exits, and the
  // exit hook and watchdog stop the broker.
  child.unref();
  const abandon = async (): Promise<void> => {
    await terminateProcess(pid, { graceMs: 15_000, group: true });
    ownedBrokers.delete(pid);
    launch.watchdog?.release(pid);
  };

  const timeoutMs = launch.startTimeoutMs ?? 90_000;
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
    if (abort?.aborted) {
      await abandon();
      throw new LocalKafkaError(`The start of local Kafka cluster "${alias}" was given up: another of its nodes failed.`);
    }
    try {
      if (await isBrokerReady(host, port)) break;
      lastProbeError = 'the broker does not list itself as alive yet';
    } catch (error) {
      lastProbeError = describeError(error);
    }
    if (Date.now() >= deadline) {
      const { excerpt } = await brokerLog(files, logStart, stdoutStart);
      await abandon();
      throw new LocalKafkaError(
        `Local Kafka cluster "${alias}" did not answer on ${host}:${port} within ${timeoutMs} ms (${lastProbeError}). ` + `Broker log:\n${excerpt}`,
      );
    }
    await sleep(PROBE_INTERVAL_MS);
  }
  logger.info('Kafka is ready.', { bootstrapServers: `${host}:${port}`, pid, ms: Date.now() - started });
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
export function spawned(child: ChildProcess, command: string, alias: string): Promise<number> {
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

/**
 * What the broker said before it failed, since `logStart`/`stdoutStart` (the sizes of the files
 * when this launch began). JVM errors (bad options, missing class) go to stdout.log, Kafka's own
 * messages to server.log.
 */
async function brokerLog(files: NodeFiles, logStart: number, stdoutStart: number): Promise<{ excerpt: string; bindFailed: boolean }> {
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
