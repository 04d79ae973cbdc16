/**
 * The benchmark harness at smoke sizes, so it never rots: every workload through mirrorflow, and
 * one MirrorMaker 2 run and one limit run, each checked record for record (count and content hash
 * per partition). Correctness only: timings on a shared CI machine mean nothing, and are never
 * asserted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultKafkaVersion } from '../../src/local';
import { testClusters } from '../support/clusters';
import { runBench } from './bench-harness';
import type { BenchReport } from './bench-report';
import type { ReplicatorName } from './replicators';
import { SMOKE_WORKLOADS, latencyWarmupRecords, totalRecords, type WorkloadName } from './workloads';

/** MM2's startup alone (plugin scanning, Connect) takes 10–30 s on a busy 2-core machine. */
const TIMEOUT_MS = 10 * 60_000;

async function smoke(workloads: readonly WorkloadName[], replicators: readonly ReplicatorName[]): Promise<BenchReport> {
  const clusters = await testClusters();
  return runBench({
    workloads: workloads.map((name) => SMOKE_WORKLOADS[name]),
    replicators,
    rounds: 1,
    clusters: { source: clusters.primary, target: clusters.backup },
    kafkaVersion: defaultKafkaVersion(),
    mirrorflow: { nodeArgs: [], set: [] },
    tunedTasks: 2,
    runTimeoutMs: 4 * 60_000,
    keepRunDirs: false,
    log: (line) => process.stderr.write(`[bench-smoke] ${line}\n`),
  });
}

function assertCorrect(report: BenchReport, expectedRuns: number): void {
  assert.equal(report.runs.length, expectedRuns, report.text);
  for (const run of report.runs) {
    const what = `${run.workload} ${run.replicator}`;
    assert.equal(run.status, 'ok', `${what} failed: ${run.failure ?? ''}\n${report.text}`);
    assert.deepEqual(run.verification?.mismatches, [], `${what}: source and target differ`);
    // The limit writes into the target only; a replication run compares every source record.
    assert.equal(
      run.verification?.records,
      totalRecords(SMOKE_WORKLOADS[run.workload]) +
        (run.workload === 'latency' && run.replicator !== 'limit' ? latencyWarmupRecords(SMOKE_WORKLOADS.latency) : 0),
      what,
    );
  }
  assert.ok(report.ok);
  assert.match(report.text, /mirrorflow/);
}

test('every workload replicates correctly through mirrorflow at smoke sizes', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['bulk', 'large', 'wide', 'latency'], ['mirrorflow']);
  assertCorrect(report, 4);
  const latency = report.runs.find((r) => r.workload === 'latency')!;
  assert.equal(latency.latencyMs?.pairs, totalRecords(SMOKE_WORKLOADS.latency), 'every paced record is paired with its source record');
});

test('MirrorMaker 2 and the limit run and verify at smoke size', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['bulk'], ['mm2-default', 'limit']);
  assertCorrect(report, 2);
});
