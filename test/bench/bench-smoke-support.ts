/**
 * What the benchmark's smoke tests share: a run at smoke sizes on the test clusters (or given
 * ones), and the check that every run delivered every record, count and content hash per
 * partition. The smoke tests are split over three files (issue 5's workloads and the yardsticks;
 * issue 17's variants; the distance workloads on proxied clusters of their own) so that each file
 * stays within the test runner's time per file.
 */
import assert from 'node:assert/strict';
import { defaultKafkaVersion } from '../../src/local';
import { testClusters } from '../support/clusters';
import { runBench } from './bench-harness';
import type { BenchReport } from './bench-report';
import type { ReplicatorName } from './replicators';
import { SMOKE_WORKLOADS, latencyUnmeasuredRecords, totalRecords, type WorkloadName } from './workloads';
import type { BenchOptions } from './bench-harness';

/** MM2's startup alone (plugin scanning, Connect) takes 10–30 s on a busy 2-core machine. */
export const TIMEOUT_MS = 10 * 60_000;

export async function smoke(
  workloads: readonly WorkloadName[],
  replicators: readonly ReplicatorName[],
  clusters?: BenchOptions['clusters'],
): Promise<BenchReport> {
  const shared = await testClusters();
  return runBench({
    workloads: workloads.map((name) => SMOKE_WORKLOADS[name]),
    replicators,
    rounds: 1,
    clusters: clusters ?? { source: shared.primary, target: shared.backup },
    kafkaVersion: defaultKafkaVersion(),
    mirrorflow: { nodeArgs: [], set: [] },
    tunedTasks: 2,
    runTimeoutMs: 4 * 60_000,
    keepRunDirs: false,
    log: (line) => process.stderr.write(`[bench-smoke] ${line}\n`),
  });
}

export function assertCorrect(report: BenchReport, expectedRuns: number): void {
  assert.equal(report.runs.length, expectedRuns, report.text);
  for (const run of report.runs) {
    const what = `${run.workload} ${run.replicator}`;
    assert.equal(run.status, 'ok', `${what} failed: ${run.failure ?? ''}\n${report.text}`);
    assert.deepEqual(run.verification?.mismatches, [], `${what}: source and target differ`);
    // The limit and the ceiling write into the target only; a replication run compares every source
    // record, a latency workload's first records and warm-up included.
    const workload = SMOKE_WORKLOADS[run.workload];
    const writesOnly = run.replicator === 'limit' || run.replicator === 'ceiling';
    assert.equal(run.verification?.records, totalRecords(workload) + (writesOnly ? 0 : latencyUnmeasuredRecords(workload)), what);
  }
  assert.ok(report.ok);
  assert.match(report.text, /mirrorflow/);
}
