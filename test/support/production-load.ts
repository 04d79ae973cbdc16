/**
 * What the fault tests on three-broker clusters (`test/production/`) share: Kafka's own Java
 * producer writing numbered records to the source throughout (BenchTool `keep-producing`,
 * `test/bench/java/NumberedLoad.java`), the verdict of Kafka's own Java consumer on source and
 * target (`replica-verify`), the pipeline file with every topic mirrorflow creates at RF 3, and a
 * rolling restart that waits, as an operator does, for each broker to be back in every ISR.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after } from 'node:test';
import { defaultKafkaVersion, ensureKafkaDistribution, mirrorflowCacheDir, type RestartableBroker } from '../../src/local';
import { JavaTools } from '../bench/java-tools';
import type { KafkaKit } from './kafka-kit';
import { waitFor } from './wait-for';
import { writePipeline, type TestFlow, type TestPipelineFile } from './pipeline-harness';
import type { ReplicaState } from './replica-state';

/** Nodes per cluster in the production suite, and the replication factor of every topic. */
export const PRODUCTION_BROKERS = 3;

/**
 * ownClusters' options for the production suite: three nodes per cluster, whose JVMs run lean
 * (the quick compiler only: the suite writes hundreds of records a second, and twelve broker
 * starts per file cost half the CPU they would).
 */
export const PRODUCTION_CLUSTERS = { brokers: PRODUCTION_BROKERS, jvmProfile: 'lean' } as const;

let tools: Promise<JavaTools> | undefined;

/** Java producers still running; a test that failed midway leaves its producer to this. */
const producers = new Set<ChildProcess>();
after(() => {
  for (const child of producers) child.kill('SIGKILL');
});

/** BenchTool compiled against the launcher's Kafka jars, once per process. */
export function javaTools(): Promise<JavaTools> {
  tools ??= ensureKafkaDistribution(defaultKafkaVersion()).then((distribution) => JavaTools.prepare(distribution, mirrorflowCacheDir()));
  return tools;
}

export interface ProducerResult {
  readonly sent: number;
  readonly acked: number;
  readonly failed: number;
  readonly ms: number;
  /** Send and callback errors by exception class; retried sends and failed records both appear. */
  readonly errors: Readonly<Record<string, number>>;
  /** Per partition: records 0 … sent-1 were sent; all but `failed` were acknowledged. */
  readonly partitions: Readonly<Record<string, { sent: number; acked: number; failed: readonly number[] }>>;
}

export interface NumberedProducer {
  /** Records acknowledged so far (its last progress line, once a second). */
  acked(): number;
  /** Its last progress line and what it said on stderr lately, for failure messages. */
  describe(): string;
  /** Waits until `more` records beyond those acknowledged now are acknowledged. */
  writes(more: number, timeoutMs?: number): Promise<void>;
  /** Closes its stdin (its signal to stop), waits for its report of what was acknowledged. */
  stop(): Promise<ProducerResult>;
}

/**
 * Starts Kafka's Java producer writing numbered records to `topic` at `rate` records/s over
 * `partitions` partitions: idempotent, acks=all, retrying as a Java application does (see
 * NumberedLoad.java).
 */
export async function startNumberedProducer(options: {
  bootstrap: string;
  topic: string;
  partitions: number;
  rate: number;
  label?: string;
}): Promise<NumberedProducer> {
  const java = await javaTools();
  const child: ChildProcess = java.spawnBenchTool(
    [
      'keep-producing',
      '--bootstrap',
      options.bootstrap,
      '--topic',
      options.topic,
      '--partitions',
      String(options.partitions),
      '--rate',
      String(options.rate),
      '--label',
      options.label ?? 'r',
    ],
    { heapMb: 256, stdin: 'pipe', profile: 'tool' },
  );
  let acked = 0;
  let lastProgress = '(none yet)';
  let result: ProducerResult | undefined;
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-8000)));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const parsed = JSON.parse(line) as { progress?: { acked: number }; result?: ProducerResult };
    if (parsed.progress !== undefined) {
      acked = parsed.progress.acked;
      lastProgress = line;
    }
    if (parsed.result !== undefined) result = parsed.result;
  });
  producers.add(child);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  void exited.then(() => producers.delete(child));
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    acked: () => acked,
    describe: () => `Java producer: last progress ${lastProgress}${stderr.trim() === '' ? '' : `; stderr:\n${stderr.slice(-3000)}`}`,
    writes: async (more, timeoutMs = 120_000) => {
      const target = acked + more;
      await waitFor(
        () => {
          if (ended) throw new Error(`the Java producer exited; stderr:\n${stderr}`);
          return acked >= target;
        },
        { what: `the Java producer to have ${target} records acknowledged (now ${acked})`, timeoutMs, intervalMs: 250 },
      );
    },
    stop: async () => {
      child.stdin!.end();
      // It flushes what is in flight (up to delivery.timeout.ms, 120 s) before it reports.
      const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
      const code = await exited;
      clearTimeout(timer);
      if (code !== 0 || result === undefined) throw new Error(`the Java producer ended with code ${code} and no report; stderr:\n${stderr}`);
      return result;
    },
  };
}

export interface PartitionVerdict {
  readonly source: number;
  readonly target: number;
  readonly missing: number;
  readonly duplicates: number;
  readonly outOfOrder: number;
  readonly foreign: number;
  readonly changed: number;
  readonly sourceDuplicates: number;
  readonly absentFromSource: number;
  readonly firstMissing: readonly number[];
  readonly firstAbsent: readonly number[];
}

export interface ReplicaVerdict {
  readonly partitions: Readonly<Record<string, PartitionVerdict>>;
  readonly totals: Omit<PartitionVerdict, 'firstMissing' | 'firstAbsent'>;
}

export interface VerifyOptions {
  readonly sourceBootstrap: string;
  readonly sourceTopic: string;
  readonly targetBootstrap: string;
  readonly targetTopic: string;
  readonly partitions: number;
  /** read_committed where exactly-once is tested. */
  readonly targetIsolation?: 'read_committed' | 'read_uncommitted';
  /** The producer's report: records it sent are checked to be on the source. */
  readonly produced?: ProducerResult;
}

/** Kafka's Java consumer reads source and target and pairs their records (BenchTool `replica-verify`). */
export async function verifyReplica(options: VerifyOptions): Promise<ReplicaVerdict> {
  const java = await javaTools();
  const sent =
    options.produced === undefined
      ? []
      : [
          '--sent',
          Object.entries(options.produced.partitions)
            .map(([p, v]) => `${p}=${v.sent}`)
            .join(','),
        ];
  return java.benchToolJson<ReplicaVerdict>(
    [
      'replica-verify',
      '--source-bootstrap',
      options.sourceBootstrap,
      '--source-topic',
      options.sourceTopic,
      '--target-bootstrap',
      options.targetBootstrap,
      '--target-topic',
      options.targetTopic,
      '--partitions',
      String(options.partitions),
      '--target-isolation',
      options.targetIsolation ?? 'read_uncommitted',
      ...sent,
    ],
    180_000,
    384,
    'tool',
  );
}

/**
 * Verifies until every source record is on the target (replication catching up after the
 * producer stopped), or the deadline passes; resolves with the last verdict either way, for the
 * test to assert on.
 */
export async function verifyWhenCaughtUp(options: VerifyOptions & { timeoutMs?: number }): Promise<ReplicaVerdict> {
  let verdict: ReplicaVerdict | undefined;
  await waitFor(
    async () => {
      verdict = await verifyReplica(options);
      return verdict.totals.missing === 0;
    },
    { what: `every record of ${options.sourceTopic} on the target`, timeoutMs: options.timeoutMs ?? 180_000, intervalMs: 2000 },
  ).catch(() => undefined);
  return verdict ?? verifyReplica(options);
}

/** One line per partition with a problem, for assertion messages. */
export function describeVerdict(verdict: ReplicaVerdict): string {
  const lines = Object.entries(verdict.partitions).map(
    ([p, v]) =>
      `partition ${p}: source ${v.source}, target ${v.target}, missing ${v.missing}${v.missing > 0 ? ` (first ${v.firstMissing.join(' ')})` : ''}, ` +
      `duplicates ${v.duplicates}, out of order ${v.outOfOrder}, foreign ${v.foreign}, changed ${v.changed}, ` +
      `not on the source ${v.absentFromSource}${v.absentFromSource > 0 ? ` (first ${v.firstAbsent.join(' ')})` : ''}`,
  );
  return lines.join('\n');
}

/**
 * What every production test asserts at the end: the source holds every record the producer
 * had acknowledged, once; the target holds every source record, unchanged, in the source's order,
 * nothing else; and no extra copies unless `duplicatesAllowed` (at-least-once after a kill -9).
 */
export function assertWholeReplica(verdict: ReplicaVerdict, produced: ProducerResult, options: { duplicatesAllowed?: boolean } = {}): void {
  const detail = `\n${describeVerdict(verdict)}`;
  const failedSends = new Set(Object.entries(produced.partitions).flatMap(([p, v]) => v.failed.map((n) => `${p}:${n}`)));
  for (const [p, v] of Object.entries(verdict.partitions)) {
    // An acknowledged record must be on the source (acks=all, min.insync.replicas 2); only a send
    // reported failed may be absent.
    assert.ok(
      v.firstAbsent.every((n) => failedSends.has(`${p}:${n}`)) && v.absentFromSource <= (produced.partitions[p]?.failed.length ?? 0),
      `partition ${p}: acknowledged records are missing from the source${detail}`,
    );
  }
  assert.equal(verdict.totals.sourceDuplicates, 0, `the idempotent producer wrote no record twice to the source${detail}`);
  assert.equal(verdict.totals.missing, 0, `every source record is on the target${detail}`);
  assert.equal(verdict.totals.outOfOrder, 0, `the target keeps each partition's order${detail}`);
  assert.equal(verdict.totals.foreign, 0, `the target holds nothing the source does not${detail}`);
  assert.equal(verdict.totals.changed, 0, `copies keep value, headers and timestamp${detail}`);
  if (options.duplicatesAllowed !== true) assert.equal(verdict.totals.duplicates, 0, `no record is on the target twice${detail}`);
}

/**
 * A pipeline replicating `topic` from `src` to `dst` whose every topic (remote, progress, offset
 * syncs, checkpoints, heartbeats) is created with RF 3; `flow` adds or replaces keys.
 */
export function productionPipeline(
  bootstrap: Readonly<Record<'src' | 'dst', string>>,
  topic: string,
  flow: Partial<TestFlow> = {},
  logLevel: 'info' | 'debug' = 'info',
): Promise<TestPipelineFile> {
  return writePipeline({
    clusters: { src: bootstrap.src, dst: bootstrap.dst },
    sharedClusters: false,
    logLevel,
    flows: [
      {
        source: 'src',
        target: 'dst',
        topics: [topic],
        topic_sync: { replication_factor: PRODUCTION_BROKERS },
        checkpoints: { replication_factor: PRODUCTION_BROKERS },
        heartbeats: { replication_factor: PRODUCTION_BROKERS },
        batching: { max_records: 500 },
        ...flow,
      },
    ],
  });
}

export interface RestartStep {
  readonly node: number;
  /** From SIGTERM until the JVM was gone (its controlled shutdown). */
  readonly haltMs: number;
  /** From the start until the node served clients. */
  readonly startMs: number;
  /** From serving clients until it was back in the ISR of every partition it holds. */
  readonly inSyncMs: number;
}

/**
 * A rolling restart as operators run one: each node in turn stopped with SIGTERM (controlled
 * shutdown), started again, and awaited back in the ISR of every partition of the cluster
 * (internal topics too) before the next; `between` runs after each node (the test awaits
 * replication going on).
 */
export async function rollingRestart(nodes: readonly RestartableBroker[], replicas: ReplicaState, between?: () => Promise<void>): Promise<RestartStep[]> {
  const steps: RestartStep[] = [];
  for (const node of nodes) {
    const halting = Date.now();
    await node.halt();
    const starting = Date.now();
    await node.start();
    const syncing = Date.now();
    await replicas.waitInSync(node.node.id, { timeoutMs: 180_000 });
    steps.push({ node: node.node.id, haltMs: starting - halting, startMs: syncing - starting, inSyncMs: Date.now() - syncing });
    await between?.();
  }
  return steps;
}

/**
 * Waits until the target's `topic` holds `more` records beyond what it holds now: replication
 * goes on. `alive` throws when a process that must keep running has ended; `describe` says, when
 * it does not go on, where things stand (source, producer, mirrorflow).
 */
export async function replicationGoesOn(
  target: KafkaKit,
  topic: string,
  options: { more: number; alive?: () => void; describe?: () => Promise<string>; timeoutMs?: number },
): Promise<void> {
  const before = await waitFor(async () => ({ count: await target.count(topic) }), { what: `the end offsets of ${topic}`, timeoutMs: 60_000 });
  // A process that must keep running and ended fails the wait at once (waitFor takes a throw for "not yet").
  let ended: unknown;
  try {
    await waitFor(
      async () => {
        try {
          options.alive?.();
        } catch (error) {
          ended = error;
          return true;
        }
        return (await target.count(topic)) >= before.count + options.more;
      },
      { what: `${options.more} more records on the target's ${topic} (had ${before.count})`, timeoutMs: options.timeoutMs ?? 180_000, intervalMs: 500 },
    );
    if (ended !== undefined) throw ended;
  } catch (error) {
    const state = await options.describe?.().catch((e: unknown) => `(could not describe: ${String(e)})`);
    throw new Error(`${(error as Error).message}${state === undefined ? '' : `\n${state}`}`, { cause: error });
  }
}

export interface FlowState {
  readonly state: string;
  readonly records: number;
  /** Errors since start (each retried, or the flow would have failed) by kind and cluster. */
  readonly errors: readonly { readonly kind: string; readonly cluster: string; readonly count: number }[];
}

/** The first flow's state on a `mirrorflow run`'s `/status`. */
export async function flowState(address: string): Promise<FlowState> {
  const document = (await (await fetch(`${address}/status`)).json()) as { flows: FlowState[] };
  const flow = document.flows[0]!;
  return { state: flow.state, records: flow.records, errors: flow.errors };
}

/** Seconds, one decimal, for diagnostics. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
