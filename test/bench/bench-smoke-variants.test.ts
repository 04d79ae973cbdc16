/**
 * Issue 17's benchmark variants at smoke sizes: the compressed, many-partitions and
 * latency-committed workloads through mirrorflow, and the yardsticks (the ceiling, exactly-once
 * timed by a read_committed consumer, the field transform verified against Connect, provenance
 * headers verified without them), each checked record for record. Correctness only; timings are never asserted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SMOKE_WORKLOADS, totalRecords } from './workloads';
import { TIMEOUT_MS, assertCorrect, smoke } from './bench-smoke-support';

// The compressed workload itself runs in the second test, through exactly-once and the transform.
test('the compressed-tuned, many-partitions and latency-committed workloads replicate correctly through mirrorflow', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['compressed-tuned', 'many', 'latency-committed'], ['mirrorflow']);
  assertCorrect(report, 3);
  const committed = report.runs.find((r) => r.workload === 'latency-committed')!;
  assert.equal(committed.latencyMs?.pairs, totalRecords(SMOKE_WORKLOADS['latency-committed']), 'every timed record became visible on the target');
  const many = report.runs.find((r) => r.workload === 'many')!;
  assert.ok(many.allPartitionsMs !== undefined && many.idleCores !== undefined, 'start-up and idle CPU are reported');
});

test('exactly-once is timed by a read_committed consumer, the transform verified against Connect, the ceiling counted', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['compressed', 'latency-committed'], ['mirrorflow-eos', 'mirrorflow-transform', 'mirrorflow-provenance', 'ceiling']);
  // The transform runs on JSON workloads only, the ceiling on throughput workloads only.
  assert.deepEqual(
    report.runs.map((r) => `${r.workload} ${r.replicator}`),
    [
      'compressed mirrorflow-eos',
      'compressed mirrorflow-transform',
      'compressed mirrorflow-provenance',
      'compressed ceiling',
      'latency-committed mirrorflow-eos',
      'latency-committed mirrorflow-provenance',
    ],
  );
  assertCorrect(report, 6);
  const eos = report.runs.find((r) => r.workload === 'latency-committed')!;
  assert.equal(eos.latencyMs?.pairs, totalRecords(SMOKE_WORKLOADS['latency-committed']), 'every committed record was timed');
});
