import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evenSpread } from './bench-admin';
import { copyFigures, type CpuMark } from './bench-steps';
import { applies } from './bench-run';
import { parseCli } from './run-bench';
import { DEFAULT_WORKLOADS, SMOKE_WORKLOADS, WORKLOAD_NAMES, describeWorkload, scaleWorkload, totalRecords, type ManyWorkload } from './workloads';

test('every workload has a default and a smoke size, and says what it is', () => {
  for (const name of WORKLOAD_NAMES) {
    assert.equal(DEFAULT_WORKLOADS[name].name, name);
    assert.equal(SMOKE_WORKLOADS[name].name, name);
    assert.ok(totalRecords(SMOKE_WORKLOADS[name]) < totalRecords(DEFAULT_WORKLOADS[name]), name);
  }
  assert.equal(
    describeWorkload(DEFAULT_WORKLOADS['compressed-far-target']),
    '2 topics × 8 partitions, 250,000 records each × 316 B JSON, zstd / lz4 (batch.size=16384 linger.ms=5), 25 ms each way to the target',
  );
  assert.equal(describeWorkload(DEFAULT_WORKLOADS.many), '2,000 partitions: 100 topics × 20 partitions, 100 records each × 304 B, then 30 s idle');
});

test('the many-partitions flags keep the trickle per partition; --scale keeps at least one record per partition', () => {
  const many = parseCli(['--workloads', 'many', '--many-topics', '1000']).bench.workloads[0] as ManyWorkload;
  assert.equal(many.topics * many.partitions, 20_000);
  assert.equal(many.recordsPerTopic / many.partitions, 5);
  const scaled = scaleWorkload(DEFAULT_WORKLOADS.many, 0.01) as ManyWorkload;
  assert.equal(scaled.recordsPerTopic, scaled.partitions);
});

test('a replicator runs only the workloads it can be measured on', () => {
  assert.equal(applies(DEFAULT_WORKLOADS.latency, 'mirrorflow-eos'), false);
  assert.equal(applies(DEFAULT_WORKLOADS['latency-committed'], 'mirrorflow-eos'), true);
  assert.equal(applies(DEFAULT_WORKLOADS.bulk, 'mirrorflow-transform'), false);
  assert.equal(applies(DEFAULT_WORKLOADS.compressed, 'mirrorflow-transform'), true);
  assert.equal(applies(DEFAULT_WORKLOADS.latency, 'ceiling'), false);
  assert.equal(applies(DEFAULT_WORKLOADS['bulk-far-target'], 'ceiling'), false);
  assert.equal(applies(DEFAULT_WORKLOADS.compressed, 'ceiling'), true);
  assert.equal(applies(DEFAULT_WORKLOADS.many, 'limit'), false);
  assert.equal(applies(DEFAULT_WORKLOADS.many, 'mm2-default'), true);
});

test("a latency workload's warm-up ends at the offsets its producer's even spread gives each partition", () => {
  // Record i goes to partition i % P: the first partitions take the remainder.
  assert.deepEqual(evenSpread(10, 4), [3, 3, 2, 2]);
  assert.deepEqual(evenSpread(25_000, 8), Array(8).fill(3_125));
  assert.deepEqual(evenSpread(2, 4), [1, 1, 0, 0]);
});

test('cost per core is the bytes copied per CPU second of the replicator, whole run and once running', () => {
  const shape = DEFAULT_WORKLOADS['per-core'].shape;
  assert.equal(describeWorkload(DEFAULT_WORKLOADS['per-core']), '10 partitions, 1,000,000 records × 1024 B');
  const mark = (at: number, replicator: number): CpuMark => ({ at, replicator, machine: 0, harness: 0 });
  // 1,000,000 records of 1,024 B; 2 CPU s at start, then 8 CPU s for the 900,000 records after the first poll.
  const figures = copyFigures(1_000_000, shape, mark(0, 0), mark(20_000, 10), { mark: mark(2_000, 2), records: 100_000 }, 100);
  assert.equal(figures.mbPerCpuSecond, 102.4);
  assert.equal(figures.steadyMbPerCpuSecond, (900_000 * 1024) / 1e6 / 8);
  // Under a second between the first record and the last: no figure once running.
  assert.equal(copyFigures(10, shape, mark(0, 0), mark(1_500, 1), { mark: mark(1_000, 0.5), records: 1 }, 100).steadyMbPerCpuSecond, undefined);
});
