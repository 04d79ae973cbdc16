import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, LocalKafkaError } from '../core/errors';
import { silentLogger, type Logger } from '../core/ports/logger';
import { brokerProperties, renderProperties } from './broker-properties';
import { findFreePorts } from './free-ports';
import { javaCommand, type KafkaDistribution } from './kafka-distribution';
import { isBrokerReady } from './kafka-probe';
import { randomKafkaUuid } from './kafka-uuid';
import { lastLines, logExcerpt, readLogEnd } from './log-tail';
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
}

export interface StartBrokerOptions {
  readonly alias: string;
  readonly distribution: KafkaDistribution;
  /** Work dir for this cluster; created if missing, and owned by the broker from now on. */
  readonly dir: string;
  readonly heapMb?: number;
  readonly brokerProperties?: Readonly<Record<string, string | undefined>>;
  readonly startTimeoutMs?: number;
  readonly logger?: Logger;
  /**
   * Undefined for a broker that must outlive this process (`mirrorflow local up`); otherwise
   * the watchdog that stops the broker if this process dies.
   */
  readonly watchdog?: Watchdog;
}

export interface BrokerHandle {
  readonly cluster: LocalCluster;
  /** SIGTERM, SIGKILL after `graceMs`; then deletes the work dir unless `keepDir`. */
  stop(options?: { graceMs?: number; keepDir?: boolean }): Promise<void>;
}

const HOST = '127.0.0.1';
const START_ATTEMPTS = 3;
const PROBE_INTERVAL_MS = 200;

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

async function startOnce(options: StartBrokerOptions, logger: Logger): Promise<BrokerHandle> {
  const { alias, distribution, dir } = options;
  const dataDir = join(dir, 'data');
  const logDir = join(dir, 'logs');
  const logFile = join(logDir, 'server.log');
  const stdoutFile = join(logDir, 'stdout.log');
  const propertiesFile = join(dir, 'server.properties');
  await rm(dataDir, { recursive: true, force: true });
  await rm(logDir, { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  await mkdir(logDir, { recursive: true });

  const [port, controllerPort] = (await findFreePorts(2, HOST)) as [number, number];
  const clusterId = randomKafkaUuid();
  const properties = brokerProperties({ brokerPort: port, controllerPort, dataDir, host: HOST, overrides: options.brokerProperties });
  await writeFile(propertiesFile, renderProperties(properties, `Local Kafka cluster "${alias}", written by mirrorflow.`));

  await formatStorage(distribution, clusterId, propertiesFile, logDir, alias);

  const java = javaCommand(distribution, {
    mainClass: 'kafka.Kafka',
    args: [propertiesFile],
    heapMb: options.heapMb,
    logDir,
  });
  const out = openSync(stdoutFile, 'a');
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

  const cluster: LocalCluster = {
    alias,
    bootstrapServers: `${HOST}:${port}`,
    host: HOST,
    port,
    controllerPort,
    clusterId,
    version: distribution.version,
    pid,
    dir,
    logFile,
  };
  let stopped = false;
  const handle: BrokerHandle = {
    cluster,
    async stop(stopOptions = {}) {
      if (stopped) return;
      stopped = true;
      await terminateProcess(pid, { graceMs: stopOptions.graceMs ?? 15_000, group: true });
      ownedBrokers.delete(pid);
      if (!stopOptions.keepDir) await rm(dir, { recursive: true, force: true });
      options.watchdog?.release(pid);
    },
  };

  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const started = Date.now();
  const deadline = started + timeoutMs;
  let lastProbeError = 'no answer yet';
  for (;;) {
    if (exit !== undefined) {
      const { excerpt, bindFailed } = await brokerLog(logFile, stdoutFile);
      await handle.stop({ keepDir: true });
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
      const { excerpt } = await brokerLog(logFile, stdoutFile);
      await handle.stop({ keepDir: true });
      throw new LocalKafkaError(
        `Local Kafka cluster "${alias}" did not answer on ${HOST}:${port} within ${timeoutMs} ms (${lastProbeError}). ` +
          `Broker log:\n${excerpt}`,
      );
    }
    await sleep(PROBE_INTERVAL_MS);
  }
  logger.info('Local Kafka cluster is ready.', { bootstrapServers: cluster.bootstrapServers, pid, ms: Date.now() - started });
  return handle;
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
): Promise<void> {
  const java = javaCommand(distribution, {
    mainClass: 'kafka.tools.StorageTool',
    args: ['format', '-t', clusterId, '-c', propertiesFile],
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
    throw new LocalKafkaError(`Formatting the storage of local Kafka cluster "${alias}" failed (exit code ${code}):\n${output.trim()}`);
  }
}

/**
 * What the broker said before it failed. JVM errors (bad options, missing class) go to
 * stdout.log, Kafka's own messages to server.log.
 */
async function brokerLog(logFile: string, stdoutFile: string): Promise<{ excerpt: string; bindFailed: boolean }> {
  const [log, stdout] = await Promise.all([readLogEnd(logFile), readLogEnd(stdoutFile, 16 * 1024)]);
  const parts = [
    stdout.trim() && `--- ${stdoutFile}\n${lastLines(stdout, 15).join('\n')}`,
    log.trim() && `--- ${logFile}\n${logExcerpt(log)}`,
  ].filter(Boolean);
  return {
    excerpt: parts.join('\n') || '(the broker wrote no log)',
    bindFailed: /Address already in use|BindException/.test(log + stdout),
  };
}
