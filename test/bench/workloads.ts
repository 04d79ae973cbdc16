/**
 * The workloads of issues 5 and 17 and their sizes. Every record has the same shape within a
 * workload: a `keyBytes` key, a `valueBytes` value (random and incompressible, or compressible
 * JSON of exactly that size) and `headers` headers of 8 + 8 bytes, so bytes per record are known
 * without reading the topics.
 */

export type ThroughputName =
  | 'bulk'
  | 'per-core'
  | 'large'
  | 'wide'
  | 'compressed'
  | 'compressed-tuned'
  | 'compressed-large-batches'
  | 'bulk-far-target'
  | 'bulk-far-source'
  | 'compressed-far-target'
  | 'compressed-far-source';
export type LatencyName = 'latency' | 'latency-committed';
export type WorkloadName = ThroughputName | LatencyName | 'many';
export const WORKLOAD_NAMES: readonly WorkloadName[] = [
  'bulk',
  'per-core',
  'large',
  'wide',
  'latency',
  'compressed',
  'compressed-tuned',
  'compressed-large-batches',
  'bulk-far-target',
  'bulk-far-source',
  'compressed-far-target',
  'compressed-far-source',
  'many',
  'latency-committed',
];

export interface RecordShape {
  readonly keyBytes: number;
  readonly valueBytes: number;
  readonly headers: number;
}

/** One way of the link between the replicator and one cluster, delayed by the bench's TCP proxy. */
export interface Distance {
  readonly side: 'source' | 'target';
  readonly oneWayMs: number;
}

export interface ThroughputWorkload {
  readonly name: ThroughputName;
  readonly kind: 'throughput';
  readonly topics: number;
  readonly partitions: number;
  /** Records per topic. */
  readonly recordsPerTopic: number;
  readonly shape: RecordShape;
  /** `json`: compressible JSON values (BenchTool's JsonValues); default random bytes. */
  readonly values?: 'random' | 'json';
  /** compression.type of the preloading Java producer, topic by topic in turn; default none. */
  readonly codecs?: readonly string[];
  /** Extra settings of the preloading Java producer (its batching). */
  readonly producer?: readonly string[];
  /** The replicator reaches one cluster through a delaying proxy. */
  readonly distance?: Distance;
}

/**
 * Many partitions with a trickle each: the records are few, what counts is how long the
 * replicator takes to serve every partition, its memory, and its CPU once there is nothing to do.
 */
export interface ManyWorkload {
  readonly name: 'many';
  readonly kind: 'many';
  readonly topics: number;
  readonly partitions: number;
  /** Records per topic (a few per partition). */
  readonly recordsPerTopic: number;
  readonly shape: RecordShape;
  /** Seconds after catch-up over which idle CPU is measured. */
  readonly idleSeconds: number;
}

export interface LatencyWorkload {
  readonly name: LatencyName;
  readonly kind: 'latency';
  /**
   * `append-time`: target append time − source append time, paired by offset (not for
   * exactly-once). `visible`: a live read_committed consumer of the target times each record
   * from its send (LiveLatency.java), paired by key.
   */
  readonly measure: 'append-time' | 'visible';
  readonly topics: 1;
  readonly partitions: number;
  /** Records per second written to the source while replicating. */
  readonly rate: number;
  readonly seconds: number;
  readonly shape: RecordShape;
}

export type Workload = ThroughputWorkload | LatencyWorkload | ManyWorkload;

/** Bytes of one header as BenchTool writes it: key `bench-hN` (8) + an 8-byte value. */
export const HEADER_BYTES = 16;

export function recordBytes(shape: RecordShape): number {
  return shape.keyBytes + shape.valueBytes + shape.headers * HEADER_BYTES;
}

/** Records the workload writes to the source in total (the latency workloads' unmeasured records not included). */
export function totalRecords(workload: Workload): number {
  return workload.kind === 'latency' ? workload.rate * workload.seconds : workload.topics * workload.recordsPerTopic;
}

/**
 * Seconds of the latency workload's rate written before the measured window, left out of it,
 * twice: first records that show the replicator up and delivering (from a producer of their
 * own), then the warm-up of the producer that writes the measured records right after it. The
 * measured records start with the replicator and the producer in their steady state: mirrorflow
 * warming up (JIT) at the onset of 5,000 records/s measured up to 100-160 ms, and a producer JVM
 * starting at the window's start slowed every replicator's first seconds at 50,000 records/s
 * (the brokers, the replicator and the producer share 2 cores). Every replicator gets the same.
 */
export const LATENCY_WARMUP_SECONDS = 5;

/** The records of one of a latency workload's two unmeasured parts, at its rate (none for the others). */
export function latencyWarmupRecords(workload: Workload): number {
  return workload.kind === 'latency' ? workload.rate * LATENCY_WARMUP_SECONDS : 0;
}

/** Every record a latency workload writes besides its measured ones: the first records and the warm-up. */
export function latencyUnmeasuredRecords(workload: Workload): number {
  return 2 * latencyWarmupRecords(workload);
}

const BULK_SHAPE: RecordShape = { keyBytes: 16, valueBytes: 256, headers: 2 };
/**
 * 1 KiB records with no headers, as in the published MM2 benchmark of didi/KnowStreaming that
 * states MM2's cost per core (issue 42 item 8): a 16-byte key and 1,008 random bytes.
 */
const KIB_SHAPE: RecordShape = { keyBytes: 16, valueBytes: 1_008, headers: 0 };
/** ~300-byte JSON events, no headers: what an application's topic of JSON typically holds. */
const JSON_SHAPE: RecordShape = { keyBytes: 16, valueBytes: 300, headers: 0 };

/** The Java producer's own defaults (Kafka 4): what most applications write with. */
export const JAVA_PRODUCER_DEFAULT_BATCHING: readonly string[] = ['batch.size=16384', 'linger.ms=5'];
/** A common tuning for throughput: 256 KiB batches, 50 ms linger (bigger batches compress better). */
export const JAVA_PRODUCER_TUNED_BATCHING: readonly string[] = ['batch.size=262144', 'linger.ms=50'];
/**
 * Issue 42's measurement: 256 KiB batches with the default 5 ms linger. At the preload's pace the
 * batches close on time, not size: 3-250 KiB, 26 KiB on average on a loaded 2-core machine (the
 * issue saw about 50 KiB), under `forward_compressed_min_bytes` on average.
 */
export const JAVA_PRODUCER_LARGE_BATCHING: readonly string[] = ['batch.size=262144', 'linger.ms=5'];
/** 25 ms each way: a 50 ms round trip, as between regions. */
export const DISTANCE_ONE_WAY_MS = 25;

const bulk: ThroughputWorkload = { name: 'bulk', kind: 'throughput', topics: 1, partitions: 8, recordsPerTopic: 2_000_000, shape: BULK_SHAPE };
/** One zstd topic and one lz4 topic of 8 partitions, 500,000 JSON records each. */
const compressed: ThroughputWorkload = {
  name: 'compressed',
  kind: 'throughput',
  topics: 2,
  partitions: 8,
  recordsPerTopic: 500_000,
  shape: JSON_SHAPE,
  values: 'json',
  codecs: ['zstd', 'lz4'],
  producer: JAVA_PRODUCER_DEFAULT_BATCHING,
};
const far = (base: ThroughputWorkload, side: Distance['side'], recordsPerTopic: number): ThroughputWorkload => ({
  ...base,
  name: `${base.name}-far-${side}` as ThroughputName,
  recordsPerTopic,
  distance: { side, oneWayMs: DISTANCE_ONE_WAY_MS },
});

/** Sizes from issues 5 and 17: each workload takes a few minutes on 2 cores at 3 rounds. */
export const DEFAULT_WORKLOADS: Readonly<Record<WorkloadName, Workload>> = {
  bulk,
  // What a core of the replicator copies: 10 partitions of 1 KiB records, about 1 GB.
  'per-core': { name: 'per-core', kind: 'throughput', topics: 1, partitions: 10, recordsPerTopic: 1_000_000, shape: KIB_SHAPE },
  large: { name: 'large', kind: 'throughput', topics: 1, partitions: 1, recordsPerTopic: 100_000, shape: { keyBytes: 16, valueBytes: 10 * 1024, headers: 2 } },
  wide: { name: 'wide', kind: 'throughput', topics: 20, partitions: 16, recordsPerTopic: 20_000, shape: BULK_SHAPE },
  latency: { name: 'latency', kind: 'latency', measure: 'append-time', topics: 1, partitions: 8, rate: 5_000, seconds: 60, shape: BULK_SHAPE },
  compressed,
  'compressed-tuned': { ...compressed, name: 'compressed-tuned', producer: JAVA_PRODUCER_TUNED_BATCHING },
  'compressed-large-batches': { ...compressed, name: 'compressed-large-batches', producer: JAVA_PRODUCER_LARGE_BATCHING },
  // A long link slows every replicator down: fewer records, so a run stays in minutes.
  'bulk-far-target': far(bulk, 'target', 500_000),
  'bulk-far-source': far(bulk, 'source', 500_000),
  'compressed-far-target': far(compressed, 'target', 250_000),
  'compressed-far-source': far(compressed, 'source', 250_000),
  // 100 topics × 20 partitions, 5 records per partition; `--many-topics 1000` for 20,000 partitions.
  many: { name: 'many', kind: 'many', topics: 100, partitions: 20, recordsPerTopic: 100, shape: BULK_SHAPE, idleSeconds: 30 },
  'latency-committed': {
    name: 'latency-committed',
    kind: 'latency',
    measure: 'visible',
    topics: 1,
    partitions: 8,
    rate: 5_000,
    seconds: 60,
    shape: BULK_SHAPE,
  },
};

/** Tiny sizes for CI: every code path, a few seconds of work each, correctness only. */
export const SMOKE_WORKLOADS: Readonly<Record<WorkloadName, Workload>> = {
  bulk: { ...bulk, partitions: 4, recordsPerTopic: 20_000 },
  'per-core': { ...(DEFAULT_WORKLOADS['per-core'] as ThroughputWorkload), partitions: 4, recordsPerTopic: 5_000 },
  large: { ...DEFAULT_WORKLOADS.large, recordsPerTopic: 200 } as ThroughputWorkload,
  wide: { ...DEFAULT_WORKLOADS.wide, topics: 3, partitions: 4, recordsPerTopic: 1_000 } as ThroughputWorkload,
  latency: { ...DEFAULT_WORKLOADS.latency, partitions: 2, rate: 500, seconds: 3 } as LatencyWorkload,
  compressed: { ...compressed, partitions: 4, recordsPerTopic: 5_000 },
  'compressed-tuned': { ...compressed, name: 'compressed-tuned', producer: JAVA_PRODUCER_TUNED_BATCHING, partitions: 4, recordsPerTopic: 5_000 },
  'compressed-large-batches': {
    ...compressed,
    name: 'compressed-large-batches',
    producer: JAVA_PRODUCER_LARGE_BATCHING,
    partitions: 4,
    recordsPerTopic: 5_000,
  },
  'bulk-far-target': { ...far(bulk, 'target', 5_000), partitions: 4 },
  'bulk-far-source': { ...far(bulk, 'source', 5_000), partitions: 4 },
  'compressed-far-target': { ...far(compressed, 'target', 2_000), partitions: 4 },
  'compressed-far-source': { ...far(compressed, 'source', 2_000), partitions: 4 },
  // 120 partitions: more than one CreateTopics takes (PARTITIONS_PER_CREATE), so the remote topics come in two.
  many: { ...(DEFAULT_WORKLOADS.many as ManyWorkload), topics: 12, partitions: 10, recordsPerTopic: 20, idleSeconds: 2 },
  'latency-committed': { ...DEFAULT_WORKLOADS['latency-committed'], partitions: 2, rate: 500, seconds: 3 } as LatencyWorkload,
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
    const how = workload.measure === 'visible' ? ', timed by a read_committed consumer of the target' : '';
    return `${partitions}, ${workload.rate.toLocaleString('en-US')} records/s for ${workload.seconds} s, ${bytes} B each${how}`;
  }
  const topics = workload.topics === 1 ? '' : `${workload.topics} topics × `;
  const records = `${topics}${partitions}, ${workload.recordsPerTopic.toLocaleString('en-US')} records${workload.topics === 1 ? '' : ' each'} × ${bytes} B`;
  if (workload.kind === 'many')
    return `${(workload.topics * workload.partitions).toLocaleString('en-US')} partitions: ${records}, then ${workload.idleSeconds} s idle`;
  const json = workload.values === 'json' ? ' JSON' : '';
  const codecs = workload.codecs === undefined ? '' : `, ${workload.codecs.join(' / ')} (${(workload.producer ?? []).join(' ')})`;
  const distance = workload.distance === undefined ? '' : `, ${workload.distance.oneWayMs} ms each way to the ${workload.distance.side}`;
  return `${records}${json}${codecs}${distance}`;
}
