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
import { evenSpread, reached, sumOffsets } from './bench-admin';
import { runCeiling } from './bench-ceiling';
import { runMany } from './bench-many';
import {
  checkedStatus,
  copyFigures,
  cpuBetween,
  cpuMark,
  HarnessError,
  INSERTED_FIELD,
  MIB,
  PhaseClock,
  pollUntil,
  preloadChecked,
  produceArgs,
  replicationRun,
  RunFailure,
  setup,
  startReplicator,
  onTarget,
  targetBytesRatio,
  topicNames,
  verify,
  writeFirstRecords,
  type BenchEnv,
  type FirstSeen,
  type Measured,
  type Offsets,
  type ReplicatingName,
  type RunResult,
  type LatencyStats,
} from './bench-steps';
import { runVisibleLatency } from './bench-visible';
import { parseProducerPerformance } from './java-tools';
import { ProcessMeter } from './process-meter';
import { spawnLogged, statusRecords, type ReplicatorName } from './replicators';
import {
  LATENCY_WARMUP_SECONDS,
  latencyWarmupRecords,
  recordBytes,
  totalRecords,
  type LatencyWorkload,
  type ThroughputWorkload,
  type Workload,
} from './workloads';

/** Producer settings of the limit: acks=all like every replicator, batching like MM2-tuned. */
export const LIMIT_PRODUCER_PROPS: readonly string[] = ['acks=all', 'batch.size=262144', 'linger.ms=10'];
/** For the latency workload the limit is one produce hop at the same rate, no linger. */
export const LIMIT_LATENCY_PRODUCER_PROPS: readonly string[] = ['acks=all', 'linger.ms=0'];

export type { BenchEnv, RunResult } from './bench-steps';

/**
 * Whether a replicator runs a workload at all (the harness skips the rest): exactly-once has no
 * offset-paired latency (commit markers shift offsets), the field transform needs JSON values,
 * the ceiling is a throughput yardstick of the target alone, and the limit has no meaning for an
 * idle replicator.
 */
export function applies(workload: Workload, replicator: ReplicatorName): boolean {
  switch (replicator) {
    case 'mirrorflow-eos':
      return !(workload.kind === 'latency' && workload.measure === 'append-time');
    case 'mirrorflow-transform':
      return workload.kind === 'throughput' && workload.values === 'json';
    case 'ceiling':
      // It writes into the target directly: on a distance workload it would repeat the near one.
      return workload.kind === 'throughput' && workload.distance === undefined;
    case 'limit':
      return workload.kind !== 'many';
    default:
      return true;
  }
}

function newRunId(workload: Workload, round: number, replicator: ReplicatorName): string {
  const who = {
    mirrorflow: 'mf',
    'mirrorflow-baseline': 'mfb',
    'mirrorflow-metrics': 'mfm',
    'mirrorflow-eos': 'mfe',
    'mirrorflow-transform': 'mft',
    'mirrorflow-provenance': 'mfp',
    'mm2-default': 'md',
    'mm2-tuned': 'mt',
    limit: 'lim',
    ceiling: 'ceil',
  }[replicator];
  return `${workload.name}-r${round}-${who}-${randomBytes(3).toString('hex')}`;
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
        : replicator === 'ceiling'
          ? await runCeiling(env, workload, id, dir, clock)
          : workload.kind === 'many'
            ? await runMany(env, workload, replicator, id, dir, clock)
            : workload.kind === 'latency'
              ? workload.measure === 'visible'
                ? await runVisibleLatency(env, workload, replicator, id, dir, clock)
                : await runLatency(env, workload, replicator, id, dir, clock)
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

async function runThroughput(
  env: BenchEnv,
  workload: ThroughputWorkload,
  replicator: ReplicatingName,
  id: string,
  dir: string,
  clock: PhaseClock,
): Promise<Measured> {
  const topics = topicNames(workload, id);
  const run = replicationRun(env, id, dir, topics);
  await setup('creating the source topics', () => env.sourceAdmin.createReadyTopics(topics.map((name) => ({ name, partitions: workload.partitions }))));
  clock.mark('setup');
  const { preload, expected, total } = await preloadChecked(env, run.sourceBootstrap, topics, workload, clock);

  const remote = (topic: string): string => `${run.sourceAlias}.${topic}`;
  const known = new Set<string>();
  const spawnedAt = performance.now();
  const child = await startReplicator(env, run, replicator, workload);
  const meter = new ProcessMeter(child.pid);
  const start = cpuMark(env, meter, spawnedAt);
  try {
    let first: FirstSeen | undefined;
    const end = await pollUntil(`${total.toLocaleString('en-US')} records on the target`, env.runTimeoutMs, child, async () => {
      const offsets = await env.targetAdmin.endOffsets(topics.map(remote), known);
      const records = sumOffsets(offsets);
      if (first === undefined && records > 0) first = { mark: cpuMark(env, meter), records };
      // Exactly-once: the target's offsets count commit markers too; the flow's committed records tell.
      if (replicator === 'mirrorflow-eos') return ((await statusRecords(child)) ?? 0) >= total ? cpuMark(env, meter) : undefined;
      return reached(offsets, expected, remote) ? cpuMark(env, meter) : undefined;
    });
    const figures = copyFigures(total, workload.shape, start, end, first, meter.read().peakRssMiB);
    clock.mark('replicate');
    await child.stop();
    clock.mark('stop');
    const verification = await verify(env, run, { ...onTarget(replicator), ...(replicator === 'mirrorflow-transform' ? { insertField: INSERTED_FIELD } : {}) });
    clock.mark('verify');
    return {
      ...checkedStatus(verification.mismatches, 'failed', 'content differs: '),
      ...figures,
      preload,
      verification,
      targetBytesRatio: targetBytesRatio(verification),
    };
  } finally {
    meter.stop();
    await child.stop();
  }
}

async function runLatency(
  env: BenchEnv,
  workload: LatencyWorkload,
  replicator: ReplicatingName,
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

  const child = await startReplicator(env, run, replicator, workload);
  const meter = new ProcessMeter(child.pid);
  try {
    const primed = await writeFirstRecords(env, run, workload, child, delivered);
    // Then one producer writes a warm-up and the measured records in one go, at the measured
    // rate: the replicator and the producer are both in their steady state when the measured
    // records start. (A producer process of their own started a JVM there, on the 2 cores the
    // brokers and the replicator share: at 50,000 records/s its first seconds were the slow part
    // of every replicator's window.) Record i goes to partition i % P, so the warm-up ends at a
    // known offset of each partition.
    const paced = setup('writing the paced records', () =>
      env.java.benchToolJson<{ records: number; ms: number }>(
        produceArgs(run.sourceBootstrap, topics, workload.partitions, warmup + total, workload, ['--rate', String(workload.rate), '--producer', 'linger.ms=0']),
        (LATENCY_WARMUP_SECONDS + workload.seconds) * 1000 + 5 * 60_000,
      ),
    );
    const spread = evenSpread(warmup, workload.partitions);
    const fromOffsets: Offsets = new Map([[topic, (primed.get(topic) ?? []).map((offset, p) => offset + spread[p]!)]]);
    const warmedUp = pollUntil('the warm-up records on the target', env.runTimeoutMs, child, async () => ((await delivered(fromOffsets)) ? true : undefined));
    // The producer failing ends the wait; it ending well does not (the poll decides).
    await Promise.race([warmedUp, paced.then(() => warmedUp)]);
    clock.mark('warm-up');
    const start = cpuMark(env, meter);
    const written = await paced;
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
      env.java.benchToolJson<LatencyStats & { unmatched: number; sourceRecords: number; p99BySecond: number[] }>(
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
      verify(env, run, { ...onTarget(replicator), skipTimestamps: true }),
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
      latencyP99BySecond: latency.p99BySecond,
      preload: { records: written.records, ms: written.ms },
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
    let first: FirstSeen | undefined;
    const end = await pollUntil(`${total.toLocaleString('en-US')} records on the target`, env.runTimeoutMs, undefined, async () => {
      const offsets = await env.targetAdmin.endOffsets([topic], known);
      const sum = sumOffsets(offsets);
      if (first === undefined && sum > 0) first = { mark: cpuMark(env, meter), records: sum };
      if (!reached(new Map([[topic, [sum]]]), expected, (t) => t)) return undefined;
      // ProducerPerformance exits once everything is acknowledged, often before this poll sees
      // the last records: its exit is then the end.
      return cpuMark(env, meter, Math.min(performance.now(), child.exitedAt() ?? Infinity));
    });
    const figures = copyFigures(total, workload.shape, start, end, first, meter.read().peakRssMiB);
    clock.mark('replicate');
    await pollUntil('ProducerPerformance to exit', 60_000, undefined, async () => child.exitStatus());
    const summary = parseProducerPerformance(await child.tail(5));
    const count = sumOffsets(await env.targetAdmin.endOffsets([topic]));
    clock.mark('verify');
    const mismatches: string[] = [];
    if (child.exitStatus() !== 'exit code 0') mismatches.push(`ProducerPerformance ended with ${child.exitStatus()}`);
    if (count !== total) mismatches.push(`${count} records on the target, ${total} sent`);
    return {
      ...checkedStatus(mismatches),
      ...figures,
      ...(latency ? { steadyRecordsPerSec: undefined } : {}),
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
