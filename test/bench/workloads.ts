/**
 * The four workloads of issue 5 and their sizes. Every record has the same shape within a
 * workload: a `keyBytes` key, a random (incompressible) `valueBytes` value and `headers` headers
 * of 8 + 8 bytes, so bytes per record are known without reading the topics.
 */

export type WorkloadName = 'bulk' | 'large' | 'wide' | 'latency';
export const WORKLOAD_NAMES: readonly WorkloadName[] = ['bulk', 'large', 'wide', 'latency'];

export interface RecordShape {
  readonly keyBytes: number;
  readonly valueBytes: number;
  readonly headers: number;
}

export interface ThroughputWorkload {
  readonly name: 'bulk' | 'large' | 'wide';
  readonly kind: 'throughput';
  readonly topics: number;
  readonly partitions: number;
  /** Records per topic. */
  readonly recordsPerTopic: number;
  readonly shape: RecordShape;
}

export interface LatencyWorkload {
  readonly name: 'latency';
  readonly kind: 'latency';
  readonly topics: 1;
  readonly partitions: number;
  /** Records per second written to the source while replicating. */
  readonly rate: number;
  readonly seconds: number;
  readonly shape: RecordShape;
}

export type Workload = ThroughputWorkload | LatencyWorkload;

/** Bytes of one header as BenchTool writes it: key `bench-hN` (8) + an 8-byte value. */
export const HEADER_BYTES = 16;

export function recordBytes(shape: RecordShape): number {
  return shape.keyBytes + shape.valueBytes + shape.headers * HEADER_BYTES;
}

/** Records the workload writes to the source in total (the latency warm-up not included). */
export function totalRecords(workload: Workload): number {
  return workload.kind === 'latency' ? workload.rate * workload.seconds : workload.topics * workload.recordsPerTopic;
}

/**
 * Seconds of the latency workload's rate written before the measured window, and left out of it.
 * Without them the first second of load counted: mirrorflow warming up (JIT) at the onset of
 * 5,000 records/s measured up to 100-160 ms there and under 50 ms after, and that second weighed
 * on the p99 of a 30 s window. Every replicator gets the same warm-up.
 */
export const LATENCY_WARMUP_SECONDS = 5;

/** The warm-up records of a latency workload, at its rate (none for the others). */
export function latencyWarmupRecords(workload: Workload): number {
  return workload.kind === 'latency' ? workload.rate * LATENCY_WARMUP_SECONDS : 0;
}

const BULK_SHAPE: RecordShape = { keyBytes: 16, valueBytes: 256, headers: 2 };

/** Sizes from issue 5: each workload takes a few minutes on 2 cores at 3 rounds. */
export const DEFAULT_WORKLOADS: Readonly<Record<WorkloadName, Workload>> = {
  bulk: { name: 'bulk', kind: 'throughput', topics: 1, partitions: 8, recordsPerTopic: 2_000_000, shape: BULK_SHAPE },
  large: { name: 'large', kind: 'throughput', topics: 1, partitions: 1, recordsPerTopic: 100_000, shape: { keyBytes: 16, valueBytes: 10 * 1024, headers: 2 } },
  wide: { name: 'wide', kind: 'throughput', topics: 20, partitions: 16, recordsPerTopic: 20_000, shape: BULK_SHAPE },
  latency: { name: 'latency', kind: 'latency', topics: 1, partitions: 8, rate: 5_000, seconds: 60, shape: BULK_SHAPE },
};

/** Tiny sizes for CI: every code path, a few seconds of work each, correctness only. */
export const SMOKE_WORKLOADS: Readonly<Record<WorkloadName, Workload>> = {
  bulk: { ...DEFAULT_WORKLOADS.bulk, partitions: 4, recordsPerTopic: 20_000 } as ThroughputWorkload,
  large: { ...DEFAULT_WORKLOADS.large, recordsPerTopic: 200 } as ThroughputWorkload,
  wide: { ...DEFAULT_WORKLOADS.wide, topics: 3, partitions: 4, recordsPerTopic: 1_000 } as ThroughputWorkload,
  latency: { ...DEFAULT_WORKLOADS.latency, partitions: 2, rate: 500, seconds: 3 } as LatencyWorkload,
};

/** Record counts times `scale` (at least one record per partition); shapes and rates stay. */
export function scaleWorkload(workload: Workload, scale: number): Workload {
  if (scale === 1) return workload;
  if (workload.kind === 'latency') return { ...workload, seconds: Math.max(1, Math.round(workload.seconds * scale)) };
  return { ...workload, recordsPerTopic: Math.max(workload.partitions, Math.round(workload.recordsPerTopic * scale)) };
}

/** One line for logs and the report: "8 partitions, 2,000,000 records × 304 B". */
export function describeWorkload(workload: Workload): string {
  const bytes = recordBytes(workload.shape);
  const partitions = `${workload.partitions} partition${workload.partitions === 1 ? '' : 's'}`;
  if (workload.kind === 'latency') {
    return `${partitions}, ${workload.rate.toLocaleString('en-US')} records/s for ${workload.seconds} s, ${bytes} B each`;
  }
  const topics = workload.topics === 1 ? '' : `${workload.topics} topics × `;
  return `${topics}${partitions}, ${workload.recordsPerTopic.toLocaleString('en-US')} records${workload.topics === 1 ? '' : ' each'} × ${bytes} B`;
}
