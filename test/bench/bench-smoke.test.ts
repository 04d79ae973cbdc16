/**
 * The benchmark harness at smoke sizes, so it never rots: issue 5's workloads through mirrorflow,
 * and one limit run, each checked record for record. Correctness only: timings on a shared CI
 * machine mean nothing, and are never asserted. Issue 17's workloads are in bench-smoke-variants
 * and bench-smoke-distance, and so is MirrorMaker 2's run (bulk, through a delaying proxy).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SMOKE_WORKLOADS, totalRecords } from './workloads';
import { TIMEOUT_MS, assertCorrect, smoke } from './bench-smoke-support';

test('every workload of issue 5 replicates correctly through mirrorflow at smoke sizes', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['bulk', 'large', 'wide', 'latency'], ['mirrorflow']);
  assertCorrect(report, 4);
  const latency = report.runs.find((r) => r.workload === 'latency')!;
  assert.equal(latency.latencyMs?.pairs, totalRecords(SMOKE_WORKLOADS.latency), 'every paced record is paired with its source record');
  // One p99 per second of the measured window (by source append time), none above the run's maximum.
  // The window spans the seconds the records were appended in: a paced producer that falls behind on
  // a loaded machine appends its records in fewer seconds than it was given, never in more.
  const bySecond = latency.latencyP99BySecond ?? [];
  const seconds = SMOKE_WORKLOADS.latency.kind === 'latency' ? SMOKE_WORKLOADS.latency.seconds : 0;
  assert.ok(bySecond.length >= 1 && bySecond.length <= seconds + 1, `p99 by second: ${JSON.stringify(bySecond)}`);
  assert.ok(
    bySecond.every((p99) => p99 >= -1 && p99 <= latency.latencyMs!.max),
    `p99 by second: ${JSON.stringify(bySecond)}`,
  );
});

test('the limit runs and verifies at smoke size', { timeout: TIMEOUT_MS }, async () => {
  const report = await smoke(['bulk'], ['limit']);
  assertCorrect(report, 1);
});
