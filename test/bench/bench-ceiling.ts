/**
 * The ceiling (issue 17): the target broker's best ingest rate for a workload's records, beside
 * the single-client limit (ProducerPerformance), so that "% of the ceiling" means the broker.
 *
 * BenchTool `produce` writes the workload's topics (same partitions, same record shape and
 * values, same codecs: one process per codec, all at once) straight into the target through
 * CEILING_PRODUCERS producers on as many threads each, with large batches and acks=all. Timed as
 * a replicator is: spawn → every record on the target (so the whole-run figure includes a JVM
 * start; "once running" is the ceiling proper). Checked by count, as the limit is: it writes,
 * it does not copy.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sumOffsets } from './bench-admin';
import {
  checkedStatus,
  copyFigures,
  cpuMark,
  HarnessError,
  pollUntil,
  produceArgs,
  setup,
  topicNames,
  type BenchEnv,
  type FirstSeen,
  type Measured,
  type PhaseClock,
} from './bench-steps';
import { ProcessMeter } from './process-meter';
import { spawnLogged, type ChildRun } from './replicators';
import { totalRecords, type Workload } from './workloads';

/** Producers in parallel per process: more than the 2 cores, so no single client is the bound. */
export const CEILING_PRODUCERS = 4;
/** Large batches, as a bulk loader would use; acks=all like every replicator. */
export const CEILING_PRODUCER_PROPS: readonly string[] = ['acks=all', 'batch.size=1048576', 'linger.ms=20', 'max.in.flight.requests.per.connection=5'];

export async function runCeiling(env: BenchEnv, workload: Workload, id: string, dir: string, clock: PhaseClock): Promise<Measured> {
  if (workload.kind !== 'throughput') throw new HarnessError(`the ceiling is measured for throughput workloads, not ${workload.name}`);
  const topics = topicNames(workload, id);
  const total = totalRecords(workload);
  await setup('creating the target topics', () => env.targetAdmin.createReadyTopics(topics.map((name) => ({ name, partitions: workload.partitions }))));
  clock.mark('setup');
  const props = CEILING_PRODUCER_PROPS.flatMap((p) => ['--producer', p]);
  const codecs = workload.codecs;
  const groups = codecs === undefined ? [{ topics, codec: undefined }] : topics.map((t, i) => ({ topics: [t], codec: codecs[i % codecs.length] }));
  const spawnedAt = performance.now();
  const children: ChildRun[] = groups.map((group, i) => {
    const java = env.java.benchToolCommand(
      produceArgs(env.target.bootstrap, group.topics, workload.partitions, workload.recordsPerTopic, workload, [
        ...props,
        ...(group.codec === undefined ? [] : ['--producer', `compression.type=${group.codec}`]),
        '--producers',
        String(CEILING_PRODUCERS),
      ]),
    );
    return spawnLogged(java.command, java.args, join(dir, `ceiling-${i}.out`), dir);
  });
  const meters = children.map((c) => new ProcessMeter(c.pid));
  const all = { cpuSeconds: (): number => meters.reduce((sum, m) => sum + m.cpuSeconds(), 0) };
  const start = cpuMark(env, all, spawnedAt);
  try {
    const known = new Set<string>();
    let first: FirstSeen | undefined;
    const end = await pollUntil(`${total.toLocaleString('en-US')} records on the target`, env.runTimeoutMs, undefined, async () => {
      const failed = children.find((c) => c.exitStatus() !== undefined && c.exitStatus() !== 'exit code 0');
      if (failed !== undefined) throw new HarnessError(`the ceiling's producer ended with ${failed.exitStatus()}:\n${await failed.tail(10)}`);
      const offsets = await env.targetAdmin.endOffsets(topics, known);
      if (first === undefined && sumOffsets(offsets) > 0) first = { mark: cpuMark(env, all), records: sumOffsets(offsets) };
      if (sumOffsets(offsets) < total) return undefined;
      const exited = Math.max(...children.map((c) => c.exitedAt() ?? Infinity));
      return cpuMark(env, all, Math.min(performance.now(), exited));
    }).catch((error: unknown) => {
      throw error instanceof HarnessError ? error : new HarnessError(error instanceof Error ? error.message : String(error));
    });
    const figures = copyFigures(
      total,
      workload.shape,
      start,
      end,
      first,
      meters.reduce((sum, m) => sum + m.read().peakRssMiB, 0),
    );
    clock.mark('replicate');
    await pollUntil('the ceiling producers to exit', 60_000, undefined, async () => (children.every((c) => c.exitStatus() !== undefined) ? true : undefined));
    const count = sumOffsets(await env.targetAdmin.endOffsets(topics));
    clock.mark('verify');
    const mismatches: string[] = [];
    for (const c of children) if (c.exitStatus() !== 'exit code 0') mismatches.push(`a ceiling producer ended with ${c.exitStatus()}`);
    if (count !== total) mismatches.push(`${count} records on the target, ${total} sent`);
    return {
      // The ceiling measures the broker; a shortfall is the harness's trouble, not a replicator's.
      ...checkedStatus(mismatches, 'error'),
      ...figures,
      verification: { partitions: workload.partitions * topics.length, records: count, mismatches },
    };
  } finally {
    for (const m of meters) m.stop();
    await Promise.all(children.map((c) => c.stop()));
  }
}
