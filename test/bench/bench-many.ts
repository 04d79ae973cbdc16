/**
 * The many-partitions workload (issue 17): thousands of partitions with a trickle each.
 *
 *   create the topics → preload a few records per partition → start the replicator (clock starts)
 *   → poll the target: the first record anywhere, then every partition's first record (start-up),
 *   then every record (caught up) → idle window: the replicator's CPU while there is nothing to
 *   copy → stop → verify every partition → delete the topics.
 *
 * What a user with many small topics notices is how long the replicator takes to serve all of
 * them, what it holds in memory, and what it burns when nothing happens; throughput is beside the
 * point here.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { reached, sumOffsets } from './bench-admin';
import {
  checkedStatus,
  copyFigures,
  cpuBetween,
  cpuMark,
  pollUntil,
  preloadChecked,
  replicationRun,
  setup,
  startReplicator,
  onTarget,
  topicNames,
  verify,
  type BenchEnv,
  type FirstSeen,
  type Measured,
  type Offsets,
  type PhaseClock,
  type ReplicatingName,
} from './bench-steps';
import { ProcessMeter } from './process-meter';
import { statusRecords } from './replicators';
import type { ManyWorkload } from './workloads';

/** Topics are created this many at a time: one CreateTopics of 1,000 topics times out on a busy broker. */
const CREATE_BATCH = 50;

/** True when every partition of every topic of `expected` has at least one record in `actual`. */
function everyPartitionStarted(actual: ReadonlyMap<string, readonly number[]>, expected: Offsets, rename: (topic: string) => string): boolean {
  for (const [topic, wanted] of expected) {
    const have = actual.get(rename(topic));
    if (have === undefined || have.length < wanted.length) return false;
    for (let p = 0; p < wanted.length; p++) if ((wanted[p] ?? 0) > 0 && (have[p] ?? 0) === 0) return false;
  }
  return true;
}

export async function runMany(
  env: BenchEnv,
  workload: ManyWorkload,
  replicator: ReplicatingName,
  id: string,
  dir: string,
  clock: PhaseClock,
): Promise<Measured> {
  const topics = topicNames(workload, id);
  const run = replicationRun(env, id, dir, topics);
  await setup('creating the source topics', async () => {
    for (let i = 0; i < topics.length; i += CREATE_BATCH) {
      await env.sourceAdmin.createReadyTopics(
        topics.slice(i, i + CREATE_BATCH).map((name) => ({ name, partitions: workload.partitions })),
        5 * 60_000,
      );
    }
  });
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
    let allPartitionsAt: number | undefined;
    const end = await pollUntil(`${total.toLocaleString('en-US')} records on the target`, env.runTimeoutMs, child, async () => {
      const offsets = await env.targetAdmin.endOffsets(topics.map(remote), known);
      const now = performance.now();
      if (first === undefined && sumOffsets(offsets) > 0) first = { mark: cpuMark(env, meter, now), records: sumOffsets(offsets) };
      if (allPartitionsAt === undefined && everyPartitionStarted(offsets, expected, remote)) allPartitionsAt = now;
      if (allPartitionsAt === undefined) return undefined;
      if (replicator === 'mirrorflow-eos') return ((await statusRecords(child)) ?? 0) >= total ? cpuMark(env, meter) : undefined;
      return reached(offsets, expected, remote) ? cpuMark(env, meter) : undefined;
    });
    clock.mark('replicate');
    // Idle: nothing is written; what the replicator spends now is its fixed cost per partition
    // (fetch rounds, timers, progress, heartbeats). A fixed window by design, not a wait.
    const idleFrom = cpuMark(env, meter);
    await sleep(workload.idleSeconds * 1000);
    const idleTo = cpuMark(env, meter);
    const reading = meter.read();
    clock.mark('idle');
    const figures = copyFigures(total, workload.shape, start, end, first, reading.peakRssMiB);
    const idle = cpuBetween(idleFrom, idleTo);
    await child.stop();
    clock.mark('stop');
    const verification = await verify(env, run, onTarget(replicator));
    clock.mark('verify');
    return {
      ...checkedStatus(verification.mismatches, 'failed', 'content differs: '),
      ...figures,
      // A trickle: no steady rate to speak of.
      steadyRecordsPerSec: undefined,
      allPartitionsMs: (allPartitionsAt ?? end.at) - start.at,
      idleCores: idle.replicator / ((idleTo.at - idleFrom.at) / 1000),
      preload,
      verification,
    };
  } finally {
    meter.stop();
    await child.stop();
  }
}
