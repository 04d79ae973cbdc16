/**
 * The benchmark harness at smoke sizes, so it never rots: every workload through mirrorflow, and
 * one MirrorMaker 2 run and one limit run, the yardsticks and variants of issue 17 (the ceiling,
 * exactly-once timed by a read_committed consumer, the field transform, the distance workloads
 * through delaying proxies, MM2 too), each checked record for record (count and content hash per
 * partition). Correctness only: timings on a shared CI machine mean nothing, and are never
 * asserted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultKafkaVersion } from '../../src/local';
import { testClusters } from '../support/clusters';
import { startProxiedCluster } from '../support/proxied-cluster';
import { runBench } from './bench-harness';
import type { BenchReport } from './bench-report';
import type { ReplicatorName } from './replicators';
import { SMOKE_WORKLOADS, latencyWarmupRecords, totalRecords, type WorkloadName } from './workloads';
import type { BenchOptions } from './bench-harness';

/** MM2's startup alone (plugin scanning, Connect) takes 10–30 s on a busy 2-core machine. */
const TIMEOUT_MS = 10 * 60_000;

async function smoke(workloads: readonly WorkloadName[], replicators: readonly ReplicatorName[], clusters?: BenchOptions['clusters']): Promise<BenchReport> {
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

function assertCorrect(report: BenchReport, expectedRuns: number): void {
  assert.equal(report.runs.length, expectedRuns, report.text);
  for (const run of report.runs) {
    const what = `${run.workload} ${run.replicator}`;
    assert.equal(run.status, 'ok', `${what} failed: ${run.failure ?? ''}\n${report.text}`);
    assert.deepEqual(run.verification?.mismatches, [], `${what}: source and target differ`);
    // The limit and the ceiling write into the target only; a replication run compares every source record.
    const workload = SMOKE_WORKLOADS[run.workload];
    const writesOnly = run.replicator === 'limit' || run.replicator === 'ceiling';
    assert.equal(run.verification?.records, totalRecords(workload) + (writesOnly ? 0 : latencyWarmupRecords(workload)), what);
  }
  assert.ok(report.ok);
  assert.match(report.text, /mirrorflow/);
}

test('every workload of issue 5 replicates correctly through mirrorflow at smoke sizes', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['bulk', 'large', 'wide', 'latency'], ['mirrorflow']);
  assertCorrect(report, 4);
  const latency = report.runs.find((r) => r.workload === 'latency')!;
  assert.equal(latency.latencyMs?.pairs, totalRecords(SMOKE_WORKLOADS.latency), 'every paced record is paired with its source record');
});

test('the compressed, many-partitions and latency-committed workloads replicate correctly through mirrorflow', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['compressed', 'compressed-tuned', 'many', 'latency-committed'], ['mirrorflow']);
  assertCorrect(report, 4);
  const committed = report.runs.find((r) => r.workload === 'latency-committed')!;
  assert.equal(committed.latencyMs?.pairs, totalRecords(SMOKE_WORKLOADS['latency-committed']), 'every timed record became visible on the target');
  const many = report.runs.find((r) => r.workload === 'many')!;
  assert.ok(many.allPartitionsMs !== undefined && many.idleCores !== undefined, 'start-up and idle CPU are reported');
});

test('exactly-once is timed by a read_committed consumer, the transform verified against Connect, the ceiling counted', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['compressed', 'latency-committed'], ['mirrorflow-eos', 'mirrorflow-transform', 'ceiling']);
  // The transform runs on JSON workloads only, the ceiling on throughput workloads only.
  assert.deepEqual(
    report.runs.map((r) => `${r.workload} ${r.replicator}`),
    ['compressed mirrorflow-eos', 'compressed mirrorflow-transform', 'compressed ceiling', 'latency-committed mirrorflow-eos'],
  );
  assertCorrect(report, 4);
  const eos = report.runs.find((r) => r.workload === 'latency-committed')!;
  assert.equal(eos.latencyMs?.pairs, totalRecords(SMOKE_WORKLOADS['latency-committed']), 'every committed record was timed');
});

test('the distance workloads run through delaying proxies, for mirrorflow and MM2', { timeout: TIMEOUT_MS }, async () => {
  const [source, target] = await Promise.all([startProxiedCluster('bench-far-source'), startProxiedCluster('bench-far-target')]);
  try {
    const report = await smoke(['bulk-far-target', 'compressed-far-source'], ['mirrorflow', 'mm2-default'], {
      source: source.direct,
      target: target.direct,
      proxies: { source: source.proxy, target: target.proxy },
    });
    assertCorrect(report, 4);
    // The replicators' connections went through the proxies; the harness's never do.
    assert.ok(source.proxy.acceptedConnections > 0 && target.proxy.acceptedConnections > 0, 'both proxies carried connections');
  } finally {
    await Promise.all([source.stop(), target.stop()]);
  }
});

test('MirrorMaker 2 and the limit run and verify at smoke size', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['bulk'], ['mm2-default', 'limit']);
  assertCorrect(report, 2);
});
