/**
 * The steps every kind of benchmark run shares (bench-run.ts, bench-many.ts, bench-visible.ts,
 * bench-ceiling.ts): the run's environment and result, set-up errors against replicator failures,
 * CPU accounting, polling, preload arguments, verification, and starting the replicator.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KafkaDistribution } from '../../src/local';
import { PROVENANCE_HEADER } from '../../src/formats';
import type { TcpProxy } from '../support/tcp-proxy';
import { sumOffsets, type BenchAdmin } from './bench-admin';
import type { JavaTools, ProducerPerformanceSummary } from './java-tools';
import { machineBusySeconds, processCpuSeconds, type ProcessMeter } from './process-meter';
import { startMirrorflow, startMm2, type ChildRun, type MirrorflowLaunch, type ReplicationRun, type ReplicatorName } from './replicators';
import {
  LATENCY_WARMUP_SECONDS,
  latencyWarmupRecords,
  recordBytes,
  totalRecords,
  type LatencyWorkload,
  type ManyWorkload,
  type RecordShape,
  type ThroughputWorkload,
  type Workload,
} from './workloads';

export interface BenchCluster {
  readonly bootstrap: string;
  /** Broker pids when the benchmark started the cluster (their CPU is then reported). */
  readonly pids?: readonly number[];
}

export interface BenchEnv {
  readonly source: BenchCluster;
  readonly target: BenchCluster;
  readonly sourceAdmin: BenchAdmin;
  readonly targetAdmin: BenchAdmin;
  readonly java: JavaTools;
  readonly distribution: KafkaDistribution;
  /** Parent of the per-run folders. */
  readonly runsDir: string;
  readonly mirrorflow: MirrorflowLaunch;
  readonly tunedTasks: number;
  /** Deadline for the replicator to deliver everything, per run. */
  readonly runTimeoutMs: number;
  /** The clusters serve other work too (the CI smoke): runs must touch only their own topics. */
  readonly sharedClusters: boolean;
  /**
   * TCP proxies in front of each cluster's second listener (test/support/proxied-cluster.ts), for
   * the distance workloads; undefined on clusters without one (given with --source/--target).
   */
  readonly proxies?: { readonly source: TcpProxy; readonly target: TcpProxy };
  /** Of every topic of a run, on both clusters: 1, or 3 on clusters of three brokers (`--brokers`). */
  readonly replicationFactor: number;
  readonly log: (line: string) => void;
}

export interface LatencyStats {
  readonly pairs: number;
  readonly p50: number;
  readonly p90?: number;
  readonly p99: number;
  readonly p999?: number;
  readonly max: number;
  readonly mean: number;
}

export interface Verification {
  readonly partitions: number;
  readonly records: number;
  /** Empty when source and target agree everywhere. */
  readonly mismatches: readonly string[];
  /**
   * Bytes of the run's topics in the brokers' logs (one replica per partition): the source's, and
   * the remote topics' on the target. Their ratio says whether the target kept the source's
   * compression.
   */
  readonly logBytes?: { readonly source: number; readonly target: number };
}

export interface RunResult {
  readonly workload: Workload['name'];
  readonly round: number;
  readonly replicator: ReplicatorName;
  readonly id: string;
  /**
   * `failed`: the replicator delivered wrong or incomplete data, or died — it never counts in a
   * median. `error`: the harness could not set the run up (say, the preload failed); the
   * replicator is not to blame, and the run is not counted either.
   */
  readonly status: 'ok' | 'failed' | 'error';
  readonly failure?: string;
  readonly records: number;
  readonly bytes: number;
  /** Process start → the target holds every record (latency: the paced window → all delivered). */
  readonly elapsedMs?: number;
  /** Process start → the first record shows on the target (latency: → the warm-up arrived). */
  readonly firstRecordMs?: number;
  readonly recordsPerSec?: number;
  readonly mibPerSec?: number;
  /** records / (elapsed − first record): the rate once running, startup left out. */
  readonly steadyRecordsPerSec?: number;
  readonly cpuSeconds?: number;
  readonly cpuSecondsPerMillion?: number;
  /**
   * Cost per core (issue 42 item 8): MB (10^6 bytes) of records copied per CPU second of the
   * replicator — its MB/s divided by the cores it used. Over the whole run (its start included)
   * and once running: the bytes that reached the target after the first poll that saw a record,
   * over the CPU used from that poll to the end (undefined under 1 s).
   */
  readonly mbPerCpuSecond?: number;
  readonly steadyMbPerCpuSecond?: number;
  readonly peakRssMiB?: number;
  readonly brokerCpuSeconds?: { readonly source?: number; readonly target?: number };
  /** Busy CPU of the machine in the timed window not used by the replicator, the brokers or the harness. */
  readonly otherCpuSeconds?: number;
  readonly latencyMs?: LatencyStats;
  /** latency: the p99 of each second of the measured window (by source append time; -1 for none): where the slow records are. */
  readonly latencyP99BySecond?: readonly number[];
  /**
   * latency-committed: the two parts of `latencyMs`, per record — send → visible on the source
   * (the bench's own producer and consumer, which a loaded machine slows down) and visible on the
   * source → visible on the target (what the replicator adds).
   */
  readonly sourceLatencyMs?: LatencyStats;
  readonly replicationLatencyMs?: LatencyStats;
  /** Many partitions: process start → every partition has its first record on the target. */
  readonly allPartitionsMs?: number;
  /** Many partitions: CPU of the replicator (cores) over the idle window after catch-up. */
  readonly idleCores?: number;
  readonly preload?: { readonly records: number; readonly ms: number };
  readonly producerPerformance?: ProducerPerformanceSummary;
  readonly verification?: Verification;
  /** Target log bytes ÷ source log bytes of the run's topics (`verification.logBytes`). */
  readonly targetBytesRatio?: number;
  /** Wall time per step of the run, ms: where a benchmark's own time goes. */
  readonly phasesMs?: Readonly<Record<string, number>>;
  readonly dir: string;
}

/** Wall time of each step of a run (setup, preload, replicate, stop, verify, cleanup), for the JSON. */
export class PhaseClock {
  private last = performance.now();
  readonly phases: Record<string, number> = {};

  mark(phase: string): void {
    const now = performance.now();
    this.phases[phase] = Math.round((this.phases[phase] ?? 0) + now - this.last);
    this.last = now;
  }
}

/** The replicator's fault: wrong data, a timeout, a crash. */
export class RunFailure extends Error {
  override readonly name = 'RunFailure';
}

/** The harness's own trouble before the replicator started (preload, topic setup). */
export class HarnessError extends Error {
  override readonly name = 'HarnessError';
}

/** Runs a set-up step; whatever it throws is the harness's trouble, not the replicator's. */
export async function setup<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new HarnessError(`${what}: ${error instanceof Error ? error.message.slice(0, 2000) : String(error)}`, { cause: error });
  }
}

export const POLL_MS = 100;
export const MIB = 1024 * 1024;

export function topicNames(workload: Workload, id: string): string[] {
  if (workload.topics === 1) return [`bench-${id}`];
  return Array.from({ length: workload.topics }, (_, i) => `bench-${id}-${String(i).padStart(2, '0')}`);
}

/** Snapshot of everything a run's CPU accounting needs, at one moment. */
export interface CpuMark {
  readonly at: number;
  readonly replicator: number;
  readonly source?: number;
  readonly target?: number;
  readonly machine: number;
  readonly harness: number;
}

function brokersCpuSeconds(cluster: BenchCluster): number | undefined {
  return cluster.pids === undefined ? undefined : cluster.pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
}

export function cpuMark(env: BenchEnv, meter: Pick<ProcessMeter, 'cpuSeconds'>, at = performance.now()): CpuMark {
  const self = process.cpuUsage();
  return {
    at,
    replicator: meter.cpuSeconds(),
    source: brokersCpuSeconds(env.source),
    target: brokersCpuSeconds(env.target),
    machine: machineBusySeconds(),
    harness: (self.user + self.system) / 1e6,
  };
}

export function cpuBetween(start: CpuMark, end: CpuMark): Pick<RunResult, 'brokerCpuSeconds' | 'otherCpuSeconds'> & { replicator: number } {
  const replicator = end.replicator - start.replicator;
  const source = start.source === undefined || end.source === undefined ? undefined : end.source - start.source;
  const target = start.target === undefined || end.target === undefined ? undefined : end.target - start.target;
  const other = end.machine - start.machine - replicator - (source ?? 0) - (target ?? 0) - (end.harness - start.harness);
  return {
    replicator,
    brokerCpuSeconds: source === undefined && target === undefined ? undefined : { source, target },
    // Only meaningful when both brokers are ours; with shared clusters it includes them.
    otherCpuSeconds: Math.max(0, other),
  };
}

/** The figures of a timed copy: rates, CPU and memory of `total` records between two marks. */
export type CopyFigures = Pick<
  RunResult,
  | 'elapsedMs'
  | 'firstRecordMs'
  | 'recordsPerSec'
  | 'mibPerSec'
  | 'steadyRecordsPerSec'
  | 'cpuSeconds'
  | 'cpuSecondsPerMillion'
  | 'mbPerCpuSecond'
  | 'steadyMbPerCpuSecond'
  | 'peakRssMiB'
  | 'brokerCpuSeconds'
  | 'otherCpuSeconds'
>;

/** What the target held when a record first showed there: the moment, the CPU, the records. */
export interface FirstSeen {
  readonly mark: CpuMark;
  readonly records: number;
}

/**
 * The figures of `total` records of `shape` copied from `start` (the spawn) to `end` (every record
 * on the target); `first` is the first poll that saw records there (the end when none before it).
 */
export function copyFigures(total: number, shape: RecordShape, start: CpuMark, end: CpuMark, first: FirstSeen | undefined, peakRssMiB: number): CopyFigures {
  const cpu = cpuBetween(start, end);
  const elapsedMs = end.at - start.at;
  const firstRecordMs = (first?.mark.at ?? end.at) - start.at;
  const mb = (records: number): number => (records * recordBytes(shape)) / 1e6;
  const steadyCpu = first === undefined ? 0 : end.replicator - first.mark.replicator;
  return {
    elapsedMs,
    firstRecordMs,
    recordsPerSec: total / (elapsedMs / 1000),
    mibPerSec: (total * recordBytes(shape)) / MIB / (elapsedMs / 1000),
    steadyRecordsPerSec: steadyRate(total, elapsedMs, firstRecordMs),
    cpuSeconds: cpu.replicator,
    cpuSecondsPerMillion: (cpu.replicator / total) * 1e6,
    mbPerCpuSecond: cpu.replicator > 0 ? mb(total) / cpu.replicator : undefined,
    steadyMbPerCpuSecond: first !== undefined && elapsedMs - firstRecordMs >= 1000 && steadyCpu > 0 ? mb(total - first.records) / steadyCpu : undefined,
    peakRssMiB,
    brokerCpuSeconds: cpu.brokerCpuSeconds,
    otherCpuSeconds: cpu.otherCpuSeconds,
  };
}

/** A run's status from its mismatches: `ok` when there are none; otherwise `fault`, with the first few. */
export function checkedStatus(mismatches: readonly string[], fault: 'failed' | 'error' = 'failed', prefix = ''): Pick<RunResult, 'status' | 'failure'> {
  return mismatches.length === 0 ? { status: 'ok', failure: undefined } : { status: fault, failure: `${prefix}${mismatches.slice(0, 5).join('; ')}` };
}

/** Polls `check` every 100 ms until it returns a value, the child exits, or the deadline passes. */
export async function pollUntil<T>(what: string, deadlineMs: number, child: ChildRun | undefined, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    const status = child?.exitStatus();
    if (status !== undefined) throw new RunFailure(`the process ended (${status}) before ${what}; log ${child!.logFile}:\n${await child!.tail(15)}`);
    if (performance.now() >= deadline) throw new RunFailure(`timed out after ${Math.round(deadlineMs / 1000)} s waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

export type Offsets = Map<string, number[]>;

/**
 * A latency workload's first records: `latencyWarmupRecords` at its rate from a producer of their
 * own, then a wait until `arrived` says they are on the target, so the replicator is up and
 * delivering. Returns the source's end offsets after them.
 */
export async function writeFirstRecords(
  env: BenchEnv,
  run: ReplicationRun,
  workload: LatencyWorkload,
  child: ChildRun,
  arrived: (primed: Offsets) => Promise<boolean>,
): Promise<Offsets> {
  await setup('writing the first records', () =>
    env.java.benchToolJson(
      produceArgs(run.sourceBootstrap, run.topics, workload.partitions, latencyWarmupRecords(workload), workload, [
        '--rate',
        String(workload.rate),
        '--producer',
        'linger.ms=0',
      ]),
      LATENCY_WARMUP_SECONDS * 1000 + 5 * 60_000,
    ),
  );
  const primed = await env.sourceAdmin.endOffsets(run.topics);
  await pollUntil('the first records on the target', env.runTimeoutMs, child, async () => ((await arrived(primed)) ? true : undefined));
  return primed;
}

/** Records ÷ (last − first record on the target); undefined under 1 s, where 100 ms polls make it noise. */
export function steadyRate(records: number, elapsedMs: number, firstRecordMs: number): number | undefined {
  const ms = elapsedMs - firstRecordMs;
  return ms >= 1000 ? records / (ms / 1000) : undefined;
}

export function produceArgs(
  bootstrap: string,
  topics: readonly string[],
  partitions: number,
  records: number,
  workload: Workload,
  extra: readonly string[] = [],
): string[] {
  return [
    'produce',
    '--bootstrap',
    bootstrap,
    '--topics',
    topics.join(','),
    '--partitions',
    String(partitions),
    '--records',
    String(records),
    '--key-bytes',
    String(workload.shape.keyBytes),
    '--value-bytes',
    String(workload.shape.valueBytes),
    '--headers',
    String(workload.shape.headers),
    ...(workload.kind === 'throughput' && workload.values === 'json' ? ['--values', 'json'] : []),
    ...extra,
  ];
}

/**
 * Writes the workload's records into its source topics: one BenchTool run for all topics, or,
 * when the workload names codecs, one per topic with that topic's compression.type and the
 * workload's producer batching, as applications write compressed topics.
 */
export async function preloadTopics(
  env: BenchEnv,
  bootstrap: string,
  topics: readonly string[],
  workload: ThroughputWorkload | ManyWorkload,
): Promise<{ records: number; ms: number }> {
  const codecs = workload.kind === 'throughput' ? workload.codecs : undefined;
  const producer = workload.kind === 'throughput' ? (workload.producer ?? []).flatMap((p) => ['--producer', p]) : [];
  const groups =
    codecs === undefined
      ? [{ topics, extra: producer }]
      : topics.map((t, i) => ({ topics: [t], extra: [...producer, '--producer', `compression.type=${codecs[i % codecs.length]!}`] }));
  let records = 0;
  let ms = 0;
  for (const group of groups) {
    const result = await env.java.benchToolJson<{ records: number; ms: number }>(
      produceArgs(bootstrap, group.topics, workload.partitions, workload.recordsPerTopic, workload, group.extra),
      30 * 60_000,
    );
    records += result.records;
    ms += result.ms;
  }
  return { records, ms };
}

/**
 * Preloads the workload's source topics (the `preload` phase) and reads their end offsets, which
 * must hold every record of the workload: what a replication run then waits for on the target.
 */
export async function preloadChecked(
  env: BenchEnv,
  bootstrap: string,
  topics: readonly string[],
  workload: ThroughputWorkload | ManyWorkload,
  clock: PhaseClock,
): Promise<{ preload: { records: number; ms: number }; expected: Offsets; total: number }> {
  const preload = await setup('preloading', () => preloadTopics(env, bootstrap, topics, workload));
  clock.mark('preload');
  const expected: Offsets = await setup('reading the source end offsets', () => env.sourceAdmin.endOffsets(topics));
  const total = totalRecords(workload);
  if (sumOffsets(expected) !== total) throw new HarnessError(`the preload wrote ${sumOffsets(expected)} records, not ${total}`);
  return { preload, expected, total };
}

/** Per topic and partition: records, their hash, and with `--strip-last-header` how many had that header last. */
export type DigestResult = Record<string, Record<string, { count: number; hash: string; stripped?: number }>>;

/**
 * Compares every source topic with its remote topic, partition by partition. With `insertField`
 * (`name=value`) the source's values are hashed as Connect's InsertField SMT would write them.
 */
/** How a replicator's target is compared with the source. */
export interface VerifyOptions {
  /** The target's timestamps are its own (LogAppendTime): compare everything else. */
  readonly skipTimestamps?: boolean;
  /** Read the target as its consumers read it (`read_committed` for exactly-once). */
  readonly isolation?: string;
  /** Every value on the target has this field inserted (BenchTool digest --insert-field). */
  readonly insertField?: string;
  /** Every record on the target has this header added as its last; compared without it. */
  readonly addedHeader?: string;
}

/** What a replicator's target holds beside the source's records, as `verify` takes it. */
export function onTarget(replicator: ReplicatorName): VerifyOptions {
  const isolation = targetIsolation(replicator);
  return {
    ...(isolation === undefined ? {} : { isolation }),
    ...(replicator === 'mirrorflow-provenance' ? { addedHeader: PROVENANCE_HEADER } : {}),
  };
}

export async function verify(env: BenchEnv, run: ReplicationRun, options: VerifyOptions = {}): Promise<Verification> {
  const flag = options.skipTimestamps === true ? ['--skip-timestamps'] : [];
  const transform = options.insertField === undefined ? [] : ['--insert-field', options.insertField];
  const remote = run.topics.map((t) => `${run.sourceAlias}.${t}`);
  // An exactly-once target is read as its consumers read it: committed records only.
  const isolation = options.isolation === undefined ? [] : ['--isolation', options.isolation];
  const added = options.addedHeader === undefined ? [] : ['--strip-last-header', options.addedHeader];
  const [source, target] = await Promise.all([
    env.java.benchToolJson<DigestResult>(['digest', '--bootstrap', run.sourceBootstrap, '--topics', run.topics.join(','), ...flag, ...transform], 20 * 60_000),
    env.java.benchToolJson<DigestResult>(
      ['digest', '--bootstrap', run.targetBootstrap, '--topics', remote.join(','), ...flag, ...isolation, ...added],
      20 * 60_000,
    ),
  ]);
  const mismatches: string[] = [];
  let partitions = 0;
  let records = 0;
  for (const topic of run.topics) {
    const want = source[topic] ?? {};
    const have = target[`${run.sourceAlias}.${topic}`] ?? {};
    if (Object.keys(have).length !== Object.keys(want).length) {
      mismatches.push(`${topic}: ${Object.keys(want).length} partitions on the source, ${Object.keys(have).length} on the target`);
    }
    for (const [partition, digest] of Object.entries(want)) {
      partitions++;
      records += digest.count;
      const got = have[partition];
      if (got === undefined) mismatches.push(`${topic}-${partition}: missing on the target`);
      else if (got.count !== digest.count) mismatches.push(`${topic}-${partition}: ${digest.count} records on the source, ${got.count} on the target`);
      else if (got.hash !== digest.hash) mismatches.push(`${topic}-${partition}: same count (${got.count}), different content`);
      else if (options.addedHeader !== undefined && got.stripped !== got.count)
        mismatches.push(`${topic}-${partition}: ${got.count - (got.stripped ?? 0)} records without the ${options.addedHeader} header`);
    }
  }
  return { partitions, records, mismatches, logBytes: await logBytes(env, run, remote) };
}

/** The run's log bytes on both clusters; undefined when the brokers cannot say (the figure is only reported). */
async function logBytes(env: BenchEnv, run: ReplicationRun, remote: readonly string[]): Promise<Verification['logBytes']> {
  try {
    const [source, target] = await Promise.all([
      env.java.benchToolJson<Record<string, number>>(['log-bytes', '--bootstrap', run.sourceBootstrap, '--topics', run.topics.join(',')], 2 * 60_000),
      env.java.benchToolJson<Record<string, number>>(['log-bytes', '--bootstrap', run.targetBootstrap, '--topics', remote.join(',')], 2 * 60_000),
    ]);
    const sum = (sizes: Record<string, number>): number => Object.values(sizes).reduce((a, b) => a + b, 0);
    return { source: sum(source), target: sum(target) };
  } catch (error) {
    env.log(`  (log sizes not read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    return undefined;
  }
}

/** Target bytes ÷ source bytes of a verified run. */
export function targetBytesRatio(verification: Verification): number | undefined {
  const bytes = verification.logBytes;
  return bytes === undefined || bytes.source === 0 ? undefined : bytes.target / bytes.source;
}

export type Measured = Omit<RunResult, 'workload' | 'round' | 'replicator' | 'id' | 'dir' | 'records' | 'bytes'>;

export function replicationRun(env: BenchEnv, id: string, dir: string, topics: readonly string[]): ReplicationRun {
  return {
    dir,
    name: `bench-${id}`,
    sourceAlias: `src-${id}`,
    targetAlias: `dst-${id}`,
    sourceBootstrap: env.source.bootstrap,
    targetBootstrap: env.target.bootstrap,
    topics,
    isolateFrom: env.sharedClusters ? `bench-${id}` : undefined,
  };
}

/** How the target of a run is read back: committed records only for an exactly-once run. */
export function targetIsolation(replicator: ReplicatorName): string | undefined {
  return replicator === 'mirrorflow-eos' ? 'read_committed' : undefined;
}

/** The field the transforming mirrorflow inserts into every value (`static_field=static_value`). */
export const INSERTED_FIELD = 'mirrored_by=mirrorflow';

/** Who replicates: the ceiling and the limit write into the target themselves. */
export type ReplicatingName = Exclude<ReplicatorName, 'limit' | 'ceiling'>;

/**
 * Starts the replicator. In a distance workload it reaches the far cluster through that
 * cluster's proxy (its advertised `PROXIED` listener), delayed each way, and the near one
 * directly; the harness's own clients never cross the proxy.
 */
export function startReplicator(env: BenchEnv, direct: ReplicationRun, replicator: ReplicatingName, workload: Workload): Promise<ChildRun> {
  let run = direct;
  const distance = workload.kind === 'throughput' ? workload.distance : undefined;
  if (distance !== undefined) {
    if (env.proxies === undefined)
      throw new HarnessError(`${workload.name} needs clusters with a proxied listener: the benchmark's own, not --source/--target`);
    const far = env.proxies[distance.side];
    far.delay(distance.oneWayMs);
    env.proxies[distance.side === 'source' ? 'target' : 'source'].delay(0);
    run = distance.side === 'source' ? { ...direct, sourceBootstrap: far.address } : { ...direct, targetBootstrap: far.address };
  }
  switch (replicator) {
    case 'mirrorflow':
      return startMirrorflow(run, env.mirrorflow);
    case 'mirrorflow-baseline':
      if (env.mirrorflow.baselineDir === undefined) throw new HarnessError('mirrorflow-baseline needs --baseline DIR (a built checkout)');
      return startMirrorflow(run, { ...env.mirrorflow, main: join(env.mirrorflow.baselineDir, 'dist', 'src', 'cli', 'main.js') });
    case 'mirrorflow-transform':
      return startMirrorflow(run, { ...env.mirrorflow, insertField: INSERTED_FIELD });
    case 'mirrorflow-metrics':
      return startMirrorflow(run, { ...env.mirrorflow, scrapeMetricsMs: 1000 });
    case 'mirrorflow-eos':
      return startMirrorflow(run, { ...env.mirrorflow, http: true, set: [...env.mirrorflow.set, 'flows.0.delivery=exactly_once'] });
    case 'mirrorflow-provenance':
      return startMirrorflow(run, { ...env.mirrorflow, set: [...env.mirrorflow.set, 'flows.0.provenance.enabled=true'] });
    case 'mm2-default':
      return startMm2(run, env.distribution, 'default', env.tunedTasks, env.replicationFactor);
    case 'mm2-tuned':
      return startMm2(run, env.distribution, 'tuned', env.tunedTasks, env.replicationFactor);
  }
}
