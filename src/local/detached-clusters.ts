import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalKafkaError } from '../core/errors';
import { silentLogger, type Logger } from '../core/ports/logger';
import { withFileLock } from './file-lock';
import { ensureKafkaDistribution } from './kafka-distribution';
import { isBrokerReady } from './kafka-probe';
import type { LocalNode } from './local-broker';
import { startCluster, validateBrokerCount, type LocalCluster } from './local-cluster';
import { defaultKafkaVersion, DEFAULT_ALIASES, validateAliases } from './local-clusters';
import type { LocalSecurityOptions } from './local-security';
import { defaultLocalStateDir } from './paths';
import { isProcessOurs, terminateProcess } from './processes';

/**
 * Clusters that outlive the command that started them (`mirrorflow local up` … `local down`).
 * Each alias has a folder `<stateDir>/<alias>/` holding the nodes' files and `cluster.json`,
 * which records pids and ports so later commands can find, check and stop every node.
 */

export interface DetachedCluster extends LocalCluster {
  readonly startedAt: string;
}

export interface DetachedNodeStatus extends LocalNode {
  /** The recorded pid still runs this node. */
  readonly running: boolean;
  /** The node serves clients (lists itself as alive). */
  readonly answering: boolean;
}

export interface DetachedClusterStatus extends DetachedCluster {
  /** Every node's recorded pid still runs it. */
  readonly running: boolean;
  /** Every node serves clients. */
  readonly answering: boolean;
  readonly nodes: readonly DetachedNodeStatus[];
}

export interface UpOptions {
  readonly aliases?: readonly string[];
  readonly version?: string;
  /** Nodes per cluster (see StartLocalClustersOptions.brokers). Default 1. */
  readonly brokers?: number;
  readonly stateDir?: string;
  readonly cacheDir?: string;
  readonly heapMb?: number;
  readonly startTimeoutMs?: number;
  /** Secured listeners, users and the authorizer for the clusters this call starts (see local-security.ts). */
  readonly security?: LocalSecurityOptions;
  readonly logger?: Logger;
}

export interface UpResult {
  readonly started: readonly DetachedCluster[];
  readonly alreadyRunning: readonly DetachedCluster[];
}

const STATE_FILE = 'cluster.json';

/** Starts the aliases that are not running yet; reports the ones that are. All-or-nothing. */
export async function upDetachedClusters(options: UpOptions = {}): Promise<UpResult> {
  const aliases = options.aliases ?? DEFAULT_ALIASES;
  validateAliases(aliases);
  validateBrokerCount(options.brokers ?? 1);
  const stateDir = options.stateDir ?? defaultLocalStateDir();
  const logger = options.logger ?? silentLogger;
  await mkdir(stateDir, { recursive: true });
  // Two `up`s at once must not both start "primary".
  return withFileLock(join(stateDir, '.lock'), async () => {
    const distribution = await ensureKafkaDistribution(options.version ?? defaultKafkaVersion(), { cacheDir: options.cacheDir, logger });
    const alreadyRunning: DetachedCluster[] = [];
    const toStart: string[] = [];
    for (const alias of aliases) {
      const state = await readState(stateDir, alias);
      if (state !== undefined && nodesOf(state).some((node) => isProcessOurs(node.pid, state.dir))) alreadyRunning.push(state);
      else toStart.push(alias);
    }
    const results = await Promise.allSettled(
      toStart.map(async (alias) => {
        const dir = join(stateDir, alias);
        await rm(dir, { recursive: true, force: true }); // leftovers of a broker that died
        await mkdir(dir, { recursive: true });
        const handle = await startCluster({
          alias,
          distribution,
          dir,
          brokers: options.brokers,
          heapMb: options.heapMb,
          startTimeoutMs: options.startTimeoutMs,
          security: options.security,
          logger,
        });
        // JSON.parse(JSON.stringify(…)): the pids are getters; the file keeps their values now.
        const state = JSON.parse(JSON.stringify({ ...handle.cluster, startedAt: new Date().toISOString() })) as DetachedCluster;
        await writeFile(join(dir, STATE_FILE), JSON.stringify(state, undefined, 2) + '\n');
        return state;
      }),
    );
    const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failure = results.find((result) => result.status === 'rejected');
    if (failure !== undefined) {
      await Promise.all(started.map((state) => stopDetached(state)));
      throw failure.reason;
    }
    return { started, alreadyRunning };
  });
}

/** Every cluster recorded in the state dir, with whether each of its nodes runs and answers. */
export async function detachedClusterStatus(options: { stateDir?: string } = {}): Promise<DetachedClusterStatus[]> {
  const stateDir = options.stateDir ?? defaultLocalStateDir();
  const states = await readAllStates(stateDir);
  return Promise.all(
    states.map(async (state) => {
      const nodes = await Promise.all(
        nodesOf(state).map(async (node) => {
          const running = isProcessOurs(node.pid, state.dir);
          const answering = running && (await isBrokerReady(node.host, node.port).catch(() => false));
          return { ...node, running, answering };
        }),
      );
      return { ...state, nodes, running: nodes.every((node) => node.running), answering: nodes.every((node) => node.answering) };
    }),
  );
}

/** Stops the given aliases (default: all recorded) and deletes their folders. */
export async function downDetachedClusters(options: { aliases?: readonly string[]; stateDir?: string } = {}): Promise<DetachedCluster[]> {
  const stateDir = options.stateDir ?? defaultLocalStateDir();
  if (!existsSync(stateDir)) return [];
  return withFileLock(join(stateDir, '.lock'), async () => {
    let states = await readAllStates(stateDir);
    if (options.aliases !== undefined && options.aliases.length > 0) {
      const unknown = options.aliases.filter((alias) => !states.some((state) => state.alias === alias));
      if (unknown.length > 0) throw new LocalKafkaError(`No local cluster is recorded under ${unknown.map((a) => `"${a}"`).join(', ')}.`);
      states = states.filter((state) => options.aliases!.includes(state.alias));
    }
    await Promise.all(states.map((state) => stopDetached(state)));
    return states;
  });
}

async function stopDetached(state: DetachedCluster): Promise<void> {
  // A pid may have been reused since; only signal it if it still runs one of our nodes.
  await Promise.all(nodesOf(state).map(async (node) => (isProcessOurs(node.pid, state.dir) ? terminateProcess(node.pid, { group: true }) : undefined)));
  await rm(state.dir, { recursive: true, force: true });
}

/** The nodes of a recorded cluster; a state file written before clusters had nodes describes one. */
function nodesOf(state: DetachedCluster): readonly LocalNode[] {
  const recorded = (state as Partial<DetachedCluster>).nodes;
  if (recorded !== undefined && recorded.length > 0) return recorded;
  return [
    {
      id: 1,
      host: state.host,
      port: state.port,
      controllerPort: state.controllerPort,
      bootstrapServers: state.bootstrapServers,
      pid: state.pid,
      dir: state.dir,
      logFile: state.logFile,
    },
  ];
}

async function readAllStates(stateDir: string): Promise<DetachedCluster[]> {
  if (!existsSync(stateDir)) return [];
  const entries = await readdir(stateDir, { withFileTypes: true });
  const states = await Promise.all(entries.filter((entry) => entry.isDirectory()).map((entry) => readState(stateDir, entry.name)));
  return states.filter((state): state is DetachedCluster => state !== undefined).sort((a, b) => a.alias.localeCompare(b.alias));
}

async function readState(stateDir: string, alias: string): Promise<DetachedCluster | undefined> {
  try {
    return JSON.parse(await readFile(join(stateDir, alias, STATE_FILE), 'utf8')) as DetachedCluster;
  } catch {
    return undefined;
  }
}
