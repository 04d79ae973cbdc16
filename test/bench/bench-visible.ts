/**
 * The latency-committed workload (issues 13 and 17): replication latency as a consumer of the
 * target sees it, for every replicator including exactly-once.
 *
 * The latency workload pairs records by offset and uses the target's LogAppendTime; neither
 * holds under exactly-once (commit markers shift offsets, and a record is appended before its
 * transaction commits, so its append time is earlier than when a read_committed consumer can
 * read it). Here BenchTool's `visible` (LiveLatency.java) writes the records at the workload's
 * rate, each carrying its send time in a header, while a read_committed consumer of the target
 * in the same JVM times each one when a poll returns it, matched by key. So the figure is
 * send → visible on the target: the source produce hop, replication and, for exactly-once, the
 * commit. First records at the same rate show the replicator up, and the same producer's warm-up
 * goes before the timed records, left out of the figures, as in the latency workload.
 *
 * A consumer of the source in the same JVM times each record too, which splits the figure in
 * two per record (`sourceLatencyMs`, `replicationLatencyMs`): send → visible on the source is
 * the bench's own part (on a loaded machine the paced producer falls behind and its records wait
 * in its buffer), visible on the source → visible on the target is the replicator's.
 */
import { reached } from './bench-admin';
import {
  cpuBetween,
  cpuMark,
  HarnessError,
  MIB,
  replicationRun,
  RunFailure,
  setup,
  startReplicator,
  onTarget,
  topicNames,
  verify,
  writeFirstRecords,
  type BenchEnv,
  type LatencyStats,
  type Measured,
  type PhaseClock,
  type ReplicatingName,
} from './bench-steps';
import { ProcessMeter } from './process-meter';
import { statusRecords } from './replicators';
import { LATENCY_WARMUP_SECONDS, latencyWarmupRecords, recordBytes, type LatencyWorkload } from './workloads';

interface VisibleResult extends LatencyStats {
  readonly sent: number;
  /** The paced producer's time from its first send to its last acknowledgement. */
  readonly ms: number;
  readonly seen: number;
  readonly duplicates: number;
  /** Send → visible on the source, for the records seen on both. */
  readonly source: LatencyStats;
  /** Visible on the source → visible on the target, per record. */
  readonly replication: LatencyStats;
}

const stats = (s: LatencyStats): LatencyStats => ({ pairs: s.pairs, p50: s.p50, p90: s.p90, p99: s.p99, p999: s.p999, max: s.max, mean: s.mean });

export async function runVisibleLatency(
  env: BenchEnv,
  workload: LatencyWorkload,
  replicator: ReplicatingName,
  id: string,
  dir: string,
  clock: PhaseClock,
): Promise<Measured> {
  const topics = topicNames(workload, id);
  const run = replicationRun(env, id, dir, topics);
  const topic = topics[0]!;
  const remoteTopic = `${run.sourceAlias}.${topic}`;
  // The remote topic exists before the consumer starts, so it can be assigned at once; both
  // replicators write into an existing remote topic.
  await setup('creating the topics', async () => {
    await env.sourceAdmin.createReadyTopics([{ name: topic, partitions: workload.partitions }]);
    await env.targetAdmin.createReadyTopics([{ name: remoteTopic, partitions: workload.partitions }]);
  });
  clock.mark('setup');
  const warmup = latencyWarmupRecords(workload);
  const total = workload.rate * workload.seconds;
  const known = new Set<string>();

  const child = await startReplicator(env, run, replicator, workload);
  const meter = new ProcessMeter(child.pid);
  try {
    // Exactly-once: the target's offsets count commit markers too; the flow's committed records tell.
    await writeFirstRecords(env, run, workload, child, async (primed) =>
      replicator === 'mirrorflow-eos'
        ? ((await statusRecords(child)) ?? 0) >= warmup
        : reached(await env.targetAdmin.endOffsets([remoteTopic], known), primed, () => remoteTopic),
    );
    clock.mark('warm-up');
    // The CPU figures span the visible tool's warm-up too (its own JVM's start included).
    const start = cpuMark(env, meter);
    const visible = await env.java
      .benchToolJson<VisibleResult>(
        [
          'visible',
          '--source-bootstrap',
          run.sourceBootstrap,
          '--topic',
          topic,
          '--target-bootstrap',
          run.targetBootstrap,
          '--target-topic',
          remoteTopic,
          '--partitions',
          String(workload.partitions),
          '--rate',
          String(workload.rate),
          '--records',
          String(total),
          // Its own warm-up first, from the same warm producer, untimed; keys go on from the first
          // records' (the record index in hex), so none repeats.
          '--warm-up',
          String(warmup),
          '--first-index',
          String(2 * warmup),
          '--isolation',
          'read_committed',
          '--timeout-s',
          String(Math.round(LATENCY_WARMUP_SECONDS + workload.seconds + env.runTimeoutMs / 1000)),
        ],
        (LATENCY_WARMUP_SECONDS + workload.seconds) * 1000 + env.runTimeoutMs + 60_000,
      )
      .catch((error: unknown) => {
        if (child.exitStatus() !== undefined)
          throw new RunFailure(`the replicator ended (${child.exitStatus()}) while the records were timed; log ${child.logFile}`);
        throw new HarnessError(`timing the records: ${error instanceof Error ? error.message.slice(0, 2000) : String(error)}`);
      });
    const end = cpuMark(env, meter);
    const reading = meter.read();
    const cpu = cpuBetween(start, end);
    clock.mark('replicate');
    await child.stop();
    clock.mark('stop');
    const verification = await verify(env, run, onTarget(replicator));
    clock.mark('verify');
    const mismatches = [...verification.mismatches];
    if (visible.seen !== total) mismatches.push(`${visible.seen} of ${total} timed records became visible on the target in time`);
    // The timed window (CPU, others' CPU) includes BenchTool's JVM start and its warm-up, so CPU
    // per record counts the warm-up's records too; the rate is the paced producer's own, from its
    // first send to its last acknowledgement.
    const elapsedMs = end.at - start.at;
    const pacedS = visible.ms / 1000;
    const window = warmup + total;
    return {
      status: mismatches.length === 0 ? 'ok' : 'failed',
      failure: mismatches.length === 0 ? undefined : mismatches.slice(0, 5).join('; '),
      elapsedMs,
      recordsPerSec: window / pacedS,
      mibPerSec: (window * recordBytes(workload.shape)) / MIB / pacedS,
      cpuSeconds: cpu.replicator,
      cpuSecondsPerMillion: (cpu.replicator / window) * 1e6,
      peakRssMiB: reading.peakRssMiB,
      brokerCpuSeconds: cpu.brokerCpuSeconds,
      otherCpuSeconds: cpu.otherCpuSeconds,
      latencyMs: stats(visible),
      sourceLatencyMs: stats(visible.source),
      replicationLatencyMs: stats(visible.replication),
      preload: { records: window, ms: visible.ms },
      verification: { ...verification, mismatches },
    };
  } finally {
    meter.stop();
    await child.stop();
  }
}
