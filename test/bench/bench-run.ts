/**
 * One benchmark run: one workload, one replicator (or the limit), fresh topics.
 *
 *   create source topics → preload (BenchTool) → start the replicator (clock starts) → poll the
 *   target's end offsets every 100 ms → all records there (clock stops; CPU and RSS read) → stop
 *   the replicator → verify count and content hash per partition → delete the run's topics.
 *
 * Every run gets its own cluster aliases (`src-<id>`, `dst-<id>`), so remote topics, MM2's
 * Connect topics and group, and mirrorflow's progress are all new: each run is a first start,
 * and no run can resume from another's progress (mirrorflow and MM2 share the progress format).
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KafkaDistribution } from '../../src/local';
import { BenchAdmin, reached, sumOffsets } from './bench-admin';
import { parseProducerPerformance, type JavaTools, type ProducerPerformanceSummary } from './java-tools';
import { machineBusySeconds, processCpuSeconds, ProcessMeter } from './process-meter';
import {
  spawnLogged,
  startMirrorflow,
  startMm2,
  statusRecords,
  type ChildRun,
  type MirrorflowLaunch,
  type ReplicationRun,
  type ReplicatorName,
} from './replicators';
import {
  LATENCY_WARMUP_SECONDS,
  latencyWarmupRecords,
  recordBytes,
  totalRecords,
  type LatencyWorkload,
  type ThroughputWorkload,
  type Workload,
} from './workloads';

export interface BenchCluster {
  readonly bootstrap: string;
  /** Broker pid when the benchmark started the cluster (its CPU is then reported). */
  readonly pid?: number;
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
  readonly peakRssMiB?: number;
  readonly brokerCpuSeconds?: { readonly source?: number; readonly target?: number };
  /** Busy CPU of the machine in the timed window not used by the replicator, the brokers or the harness. */
  readonly otherCpuSeconds?: number;
  readonly latencyMs?: LatencyStats;
  readonly preload?: { readonly records: number; readonly ms: number };
  readonly producerPerformance?: ProducerPerformanceSummary;
  readonly verification?: Verification;
  /** Wall time per step of the run, ms: where a benchmark's own time goes. */
  readonly phasesMs?: Readonly<Record<string, number>>;
  readonly dir: string;
}

/** Wall time of each step of a run (setup, preload, replicate, stop, verify, cleanup), for the JSON. */
class PhaseClock {
  private last = performance.now();
  readonly phases: Record<string, number> = {};

  mark(phase: string): void {
    const now = performance.now();
    this.phases[phase] = Math.round((this.phases[phase] ?? 0) + now - this.last);
    this.last = now;
  }
}

/** The replicator's fault: wrong data, a timeout, a crash. */
class RunFailure extends Error {
  override readonly name = 'RunFailure';
}

/** The harness's own trouble before the replicator started (preload, topic setup). */
class HarnessError extends Error {
  override readonly name = 'HarnessError';
}

/** Runs a set-up step; whatever it throws is the harness's trouble, not the replicator's. */
async function setup<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new HarnessError(`${what}: ${error instanceof Error ? error.message.slice(0, 2000) : String(error)}`, { cause: error });
  }
}

const POLL_MS = 100;
const MIB = 1024 * 1024;

/** Producer settings of the limit: acks=all like every replicator, batching like MM2-tuned. */
export const LIMIT_PRODUCER_PROPS: readonly string[] = ['acks=all', 'batch.size=262144', 'linger.ms=10'];
/** For the latency workload the limit is one produce hop at the same rate, no linger. */
export const LIMIT_LATENCY_PRODUCER_PROPS: readonly string[] = ['acks=all', 'linger.ms=0'];

function newRunId(workload: Workload, round: number, replicator: ReplicatorName): string {
  const who = { mirrorflow: 'mf', 'mirrorflow-metrics': 'mfm', 'mirrorflow-eos': 'mfe', 'mm2-default': 'md', 'mm2-tuned': 'mt', limit: 'lim' }[replicator];
  return `${workload.name}-r${round}-${who}-${randomBytes(3).toString('hex')}`;
}

function topicNames(workload: Workload, id: string): string[] {
  if (workload.topics === 1) return [`bench-${id}`];
  return Array.from({ length: workload.topics }, (_, i) => `bench-${id}-${String(i).padStart(2, '0')}`);
}

/** Snapshot of everything a run's CPU accounting needs, at one moment. */
interface CpuMark {
  readonly at: number;
  readonly replicator: number;
  readonly source?: number;
  readonly target?: number;
  readonly machine: number;
  readonly harness: number;
}

function cpuMark(env: BenchEnv, meter: ProcessMeter, at = performance.now()): CpuMark {
  const self = process.cpuUsage();
  return {
    at,
    replicator: meter.cpuSeconds(),
    source: env.source.pid === undefined ? undefined : processCpuSeconds(env.source.pid),
    target: env.target.pid === undefined ? undefined : processCpuSeconds(env.target.pid),
    machine: machineBusySeconds(),
    harness: (self.user + self.system) / 1e6,
  };
}

function cpuBetween(start: CpuMark, end: CpuMark): Pick<RunResult, 'brokerCpuSeconds' | 'otherCpuSeconds'> & { replicator: number } {
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

/** Polls `check` every 100 ms until it returns a value, the child exits, or the deadline passes. */
async function pollUntil<T>(what: string, deadlineMs: number, child: ChildRun | undefined, check: () => Promise<T | undefined>): Promise<T> {
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

type Offsets = Map<string, number[]>;

/** Records ÷ (last − first record on the target); undefined under 1 s, where 100 ms polls make it noise. */
function steadyRate(records: number, elapsedMs: number, firstRecordMs: number): number | undefined {
  const ms = elapsedMs - firstRecordMs;
  return ms >= 1000 ? records / (ms / 1000) : undefined;
}

function produceArgs(
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
    ...extra,
  ];
}

type DigestResult = Record<string, Record<string, { count: number; hash: string }>>;

/** Compares every source topic with its remote topic, partition by partition. */
async function verify(env: BenchEnv, run: ReplicationRun, skipTimestamps: boolean, targetIsolation?: string): Promise<Verification> {
  const flag = skipTimestamps ? ['--skip-timestamps'] : [];
  const remote = run.topics.map((t) => `${run.sourceAlias}.${t}`);
  // An exactly-once target is read as its consumers read it: committed records only.
  const isolation = targetIsolation === undefined ? [] : ['--isolation', targetIsolation];
  const [source, target] = await Promise.all([
    env.java.benchToolJson<DigestResult>(['digest', '--bootstrap', run.sourceBootstrap, '--topics', run.topics.join(','), ...flag], 20 * 60_000),
    env.java.benchToolJson<DigestResult>(['digest', '--bootstrap', run.targetBootstrap, '--topics', remote.join(','), ...flag, ...isolation], 20 * 60_000),
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
    }
  }
  return { partitions, records, mismatches };
}

export async function runOnce(env: BenchEnv, workload: Workload, round: number, replicator: ReplicatorName): Promise<RunResult> {
  const id = newRunId(workload, round, replicator);
  const dir = join(env.runsDir, id);
  await mkdir(dir, { recursive: true });
  const clock = new PhaseClock();
  const base = {
    workload: workload.name,
    round,
    replicator,
    id,
    dir,
    records: totalRecords(workload),
    bytes: totalRecords(workload) * recordBytes(workload.shape),
    phasesMs: clock.phases,
  };
  try {
    const measured =
      replicator === 'limit'
        ? await runLimit(env, workload, id, dir, clock)
        : workload.kind === 'latency'
          ? await runLatency(env, workload, replicator, id, dir, clock)
          : await runThroughput(env, workload, replicator, id, dir, clock);
    return { ...base, ...measured };
  } catch (error) {
    if (error instanceof RunFailure) return { ...base, status: 'failed', failure: error.message };
    const failure = error instanceof HarnessError ? error.message : `harness error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    return { ...base, status: 'error', failure: failure.slice(0, 4000) };
  } finally {
    await Promise.all([env.sourceAdmin.deleteTopicsContaining(id), env.targetAdmin.deleteTopicsContaining(id)]).catch((error: unknown) =>
      env.log(`Could not delete the topics of run ${id}: ${error instanceof Error ? error.message : String(error)}`),
    );
    clock.mark('cleanup');
  }
}

type Measured = Omit<RunResult, 'workload' | 'round' | 'replicator' | 'id' | 'dir' | 'records' | 'bytes'>;

function replicationRun(env: BenchEnv, id: string, dir: string, topics: readonly string[]): ReplicationRun {
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

function startReplicator(env: BenchEnv, run: ReplicationRun, replicator: Exclude<ReplicatorName, 'limit'>): Promise<ChildRun> {
  switch (replicator) {
    case 'mirrorflow':
      return startMirrorflow(run, env.mirrorflow);
    case 'mirrorflow-metrics':
      return startMirrorflow(run, { ...env.mirrorflow, scrapeMetricsMs: 1000 });
    case 'mirrorflow-eos':
      return startMirrorflow(run, { ...env.mirrorflow, http: true, set: [...env.mirrorflow.set, 'flows.0.delivery=exactly_once'] });
    case 'mm2-default':
      return startMm2(run, env.distribution, 'default', env.tunedTasks);
    case 'mm2-tuned':
      return startMm2(run, env.distribution, 'tuned', env.tunedTasks);
  }
}

async function runThroughput(
  env: BenchEnv,
  workload: ThroughputWorkload,
  replicator: Exclude<ReplicatorName, 'limit'>,
  id: string,
  dir: string,
  clock: PhaseClock,
): Promise<Measured> {
  const topics = topicNames(workload, id);
  const run = replicationRun(env, id, dir, topics);
  await setup('creating the source topics', () => env.sourceAdmin.createReadyTopics(topics.map((name) => ({ name, partitions: workload.partitions }))));
  clock.mark('setup');
  const preload = await setup('preloading', () =>
    env.java.benchToolJson<{ records: number; ms: number }>(
      produceArgs(run.sourceBootstrap, topics, workload.partitions, workload.recordsPerTopic, workload),
      30 * 60_000,
    ),
  );
  clock.mark('preload');
  const expected: Offsets = await setup('reading the source end offsets', () => env.sourceAdmin.endOffsets(topics));
  const total = totalRecords(workload);
  if (sumOffsets(expected) !== total) throw new HarnessError(`the preload wrote ${sumOffsets(expected)} records, not ${total}`);

  const remote = (topic: string): string => `${run.sourceAlias}.${topic}`;
  const known = new Set<string>();
  const spawnedAt = performance.now();
  const child = await startReplicator(env, run, replicator);
  const meter = new ProcessMeter(child.pid);
  const start = cpuMark(env, meter, spawnedAt);
  try {
    let firstAt: number | undefined;
    const end = await pollUntil(`${total.toLocaleString('en-US')} records on the target`, env.runTimeoutMs, child, async () => {
      const offsets = await env.targetAdmin.endOffsets(topics.map(remote), known);
      if (firstAt === undefined && sumOffsets(offsets) > 0) firstAt = performance.now();
      // Exactly-once: the target's offsets count commit markers too; the flow's committed records tell.
      if (replicator === 'mirrorflow-eos') return ((await statusRecords(child)) ?? 0) >= total ? cpuMark(env, meter) : undefined;
      return reached(offsets, expected, remote) ? cpuMark(env, meter) : undefined;
    });
    const reading = meter.read();
    const cpu = cpuBetween(start, end);
    clock.mark('replicate');
    await child.stop();
    clock.mark('stop');
    const verification = await verify(env, run, false, replicator === 'mirrorflow-eos' ? 'read_committed' : undefined);
    clock.mark('verify');
    const elapsedMs = end.at - start.at;
    const firstRecordMs = (firstAt ?? end.at) - start.at;
    return {
      status: verification.mismatches.length === 0 ? 'ok' : 'failed',
      failure: verification.mismatches.length === 0 ? undefined : `content differs: ${verification.mismatches.slice(0, 5).join('; ')}`,
      elapsedMs,
      firstRecordMs,
      recordsPerSec: total / (elapsedMs / 1000),
      mibPerSec: (total * recordBytes(workload.shape)) / MIB / (elapsedMs / 1000),
      steadyRecordsPerSec: steadyRate(total, elapsedMs, firstRecordMs),
      cpuSeconds: cpu.replicator,
      cpuSecondsPerMillion: (cpu.replicator / total) * 1e6,
      peakRssMiB: reading.peakRssMiB,
      brokerCpuSeconds: cpu.brokerCpuSeconds,
      otherCpuSeconds: cpu.otherCpuSeconds,
      preload,
      verification,
    };
  } finally {
    meter.stop();
    await child.stop();
  }
}

async function runLatency(
  env: BenchEnv,
  workload: LatencyWorkload,
  replicator: Exclude<ReplicatorName, 'limit'>,
  id: string,
  dir: string,
  clock: PhaseClock,
): Promise<Measured> {
  if (replicator === 'mirrorflow-eos') {
    throw new HarnessError('mirrorflow-eos is not measured in the latency workload: its commit markers shift the target offsets by which records are paired');
  }
  const topics = topicNames(workload, id);
  const run = replicationRun(env, id, dir, topics);
  const topic = topics[0]!;
  const remoteTopic = `${run.sourceAlias}.${topic}`;
  // LogAppendTime on both sides: a record's timestamp is when it landed on that cluster, so the
  // difference is the replication latency alone. Neither replicator copies
  // message.timestamp.type (MM2's config.properties.exclude), so the pre-created remote topic keeps it.
  const appendTime = { 'message.timestamp.type': 'LogAppendTime' };
  await setup('creating the topics', async () => {
    await env.sourceAdmin.createReadyTopics([{ name: topic, partitions: workload.partitions, configs: appendTime }]);
    await env.targetAdmin.createReadyTopics([{ name: remoteTopic, partitions: workload.partitions, configs: appendTime }]);
  });
  clock.mark('setup');

  const warmup = latencyWarmupRecords(workload);
  const total = workload.rate * workload.seconds;
  const known = new Set<string>();
  const delivered = async (wanted: Offsets): Promise<boolean> => reached(await env.targetAdmin.endOffsets([remoteTopic], known), wanted, () => remoteTopic);

  const child = await startReplicator(env, run, replicator);
  const meter = new ProcessMeter(child.pid);
  try {
    // Warm-up at the measured rate, left out of the figures: the replicator is running, and in its
    // steady state, before the measured records start.
    await setup('writing the warm-up records', () =>
      env.java.benchToolJson(
        produceArgs(run.sourceBootstrap, topics, workload.partitions, warmup, workload, ['--rate', String(workload.rate), '--producer', 'linger.ms=0']),
        LATENCY_WARMUP_SECONDS * 1000 + 5 * 60_000,
      ),
    );
    const fromOffsets = await env.sourceAdmin.endOffsets(topics);
    await pollUntil('the warm-up records on the target', env.runTimeoutMs, child, async () => ((await delivered(fromOffsets)) ? true : undefined));
    clock.mark('warm-up');
    const start = cpuMark(env, meter);

    const paced = await setup('writing the paced records', () =>
      env.java.benchToolJson<{ records: number; ms: number }>(
        produceArgs(run.sourceBootstrap, topics, workload.partitions, total, workload, ['--rate', String(workload.rate), '--producer', 'linger.ms=0']),
        workload.seconds * 1000 + 5 * 60_000,
      ),
    );
    const expected = await env.sourceAdmin.endOffsets(topics);
    const end = await pollUntil('every paced record on the target', env.runTimeoutMs, child, async () =>
      (await delivered(expected)) ? cpuMark(env, meter) : undefined,
    );
    const reading = meter.read();
    const cpu = cpuBetween(start, end);
    clock.mark('replicate');
    await child.stop();
    clock.mark('stop');

    const from = fromOffsets.get(topic) ?? [];
    const [latency, verification] = await Promise.all([
      env.java.benchToolJson<LatencyStats & { unmatched: number; sourceRecords: number }>(
        [
          'latency',
          '--source-bootstrap',
          run.sourceBootstrap,
          '--source-topic',
          topic,
          '--target-bootstrap',
          run.targetBootstrap,
          '--target-topic',
          remoteTopic,
          '--from-offsets',
          from.join(','),
        ],
        10 * 60_000,
      ),
      // The target's timestamps are its own append times by design: compare everything else.
      verify(env, run, true),
    ]);
    clock.mark('verify');
    const mismatches = [...verification.mismatches];
    if (latency.unmatched > 0) mismatches.push(`${latency.unmatched} target records did not pair with a source record of the same offset and key`);
    if (latency.pairs !== total) mismatches.push(`${latency.pairs} of ${total} paced records were paired`);
    const elapsedMs = end.at - start.at;
    return {
      status: mismatches.length === 0 ? 'ok' : 'failed',
      failure: mismatches.length === 0 ? undefined : `content differs: ${mismatches.slice(0, 5).join('; ')}`,
      elapsedMs,
      recordsPerSec: total / (elapsedMs / 1000),
      mibPerSec: (total * recordBytes(workload.shape)) / MIB / (elapsedMs / 1000),
      cpuSeconds: cpu.replicator,
      cpuSecondsPerMillion: (cpu.replicator / total) * 1e6,
      peakRssMiB: reading.peakRssMiB,
      brokerCpuSeconds: cpu.brokerCpuSeconds,
      otherCpuSeconds: cpu.otherCpuSeconds,
      latencyMs: { pairs: latency.pairs, p50: latency.p50, p90: latency.p90, p99: latency.p99, p999: latency.p999, max: latency.max, mean: latency.mean },
      preload: { records: paced.records, ms: paced.ms },
      verification: { ...verification, mismatches },
    };
  } finally {
    meter.stop();
    await child.stop();
  }
}

/**
 * The limit: Kafka's ProducerPerformance writing as many records of the same size into the
 * target with acks=all, timed like a replicator (process start → all records on the target).
 * It cannot write keys or headers, so its records carry the same bytes as value only.
 */
async function runLimit(env: BenchEnv, workload: Workload, id: string, dir: string, clock: PhaseClock): Promise<Measured> {
  const topic = `bench-${id}`;
  const total = totalRecords(workload);
  await setup('creating the target topic', () => env.targetAdmin.createReadyTopics([{ name: topic, partitions: workload.partitions }]));
  clock.mark('setup');
  const latency = workload.kind === 'latency';
  const java = env.java.producerPerformance(
    [
      '--topic',
      topic,
      '--num-records',
      String(total),
      '--record-size',
      String(recordBytes(workload.shape)),
      '--throughput',
      latency ? String(workload.rate) : '-1',
      '--producer-props',
      `bootstrap.servers=${env.target.bootstrap}`,
      ...(latency ? LIMIT_LATENCY_PRODUCER_PROPS : LIMIT_PRODUCER_PROPS),
    ],
    dir,
  );
  const spawnedAt = performance.now();
  const child = spawnLogged(java.command, java.args, join(dir, 'producer-performance.out'), dir);
  const meter = new ProcessMeter(child.pid);
  const start = cpuMark(env, meter, spawnedAt);
  try {
    const known = new Set<string>();
    const expected: Offsets = new Map([[topic, [total]]]);
    let firstAt: number | undefined;
    const end = await pollUntil(`${total.toLocaleString('en-US')} records on the target`, env.runTimeoutMs, undefined, async () => {
      const offsets = await env.targetAdmin.endOffsets([topic], known);
      const sum = sumOffsets(offsets);
      if (firstAt === undefined && sum > 0) firstAt = performance.now();
      if (!reached(new Map([[topic, [sum]]]), expected, (t) => t)) return undefined;
      // ProducerPerformance exits once everything is acknowledged, often before this poll sees
      // the last records: its exit is then the end.
      return cpuMark(env, meter, Math.min(performance.now(), child.exitedAt() ?? Infinity));
    });
    const reading = meter.read();
    const cpu = cpuBetween(start, end);
    clock.mark('replicate');
    await pollUntil('ProducerPerformance to exit', 60_000, undefined, async () => child.exitStatus());
    const summary = parseProducerPerformance(await child.tail(5));
    const count = sumOffsets(await env.targetAdmin.endOffsets([topic]));
    clock.mark('verify');
    const mismatches: string[] = [];
    if (child.exitStatus() !== 'exit code 0') mismatches.push(`ProducerPerformance ended with ${child.exitStatus()}`);
    if (count !== total) mismatches.push(`${count} records on the target, ${total} sent`);
    const elapsedMs = end.at - start.at;
    const firstRecordMs = (firstAt ?? end.at) - start.at;
    return {
      status: mismatches.length === 0 ? 'ok' : 'failed',
      failure: mismatches.length === 0 ? undefined : mismatches.join('; '),
      elapsedMs,
      firstRecordMs,
      recordsPerSec: total / (elapsedMs / 1000),
      mibPerSec: (total * recordBytes(workload.shape)) / MIB / (elapsedMs / 1000),
      steadyRecordsPerSec: latency ? undefined : steadyRate(total, elapsedMs, firstRecordMs),
      cpuSeconds: cpu.replicator,
      cpuSecondsPerMillion: (cpu.replicator / total) * 1e6,
      peakRssMiB: reading.peakRssMiB,
      brokerCpuSeconds: cpu.brokerCpuSeconds,
      otherCpuSeconds: cpu.otherCpuSeconds,
      latencyMs:
        latency && summary
          ? { pairs: summary.records, p50: summary.p50Ms, p99: summary.p99Ms, max: summary.maxLatencyMs, mean: summary.avgLatencyMs }
          : undefined,
      producerPerformance: summary,
      verification: { partitions: workload.partitions, records: count, mismatches },
    };
  } finally {
    meter.stop();
    await child.stop();
  }
}
