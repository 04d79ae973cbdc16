/**
 * The benchmark of issue 5: local clusters, then for each workload and round every replicator in
 * turn (mirrorflow, MM2 default, MM2 tuned, the limit — A B C L A B C L …), each on fresh topics;
 * medians, ratios per round, and one report.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ensureKafkaDistribution, mirrorflowCacheDir, startLocalClusters, type LocalClusters } from '../../src/local';
import { startProxiedCluster, type StartedProxiedCluster } from '../support/proxied-cluster';
import { BenchAdmin } from './bench-admin';
import { headline, renderMarkdown, renderText, summarize, type BenchReport, type MachineInfo } from './bench-report';
import { CEILING_PRODUCER_PROPS, CEILING_PRODUCERS } from './bench-ceiling';
import { applies, LIMIT_LATENCY_PRODUCER_PROPS, LIMIT_PRODUCER_PROPS, runOnce, type BenchEnv, type RunResult } from './bench-run';
import { JavaTools } from './java-tools';
import { tunedSettings } from './mm2-properties';
import { MM2_HEAP_MB, type MirrorflowLaunch, type ReplicatorName } from './replicators';
import { describeWorkload, type LatencyWorkload, type Workload } from './workloads';

export interface BenchOptions {
  readonly workloads: readonly Workload[];
  readonly replicators: readonly ReplicatorName[];
  readonly rounds: number;
  /**
   * Existing clusters to use instead of starting two (the CI smoke uses the test clusters); with
   * `proxies` (clusters from test/support/proxied-cluster.ts) the distance workloads run too.
   */
  readonly clusters?: { readonly source: string; readonly target: string; readonly proxies?: BenchEnv['proxies'] };
  readonly kafkaVersion: string;
  /**
   * Brokers per cluster the benchmark starts (default 1). From 2 on, plain clusters of that many
   * nodes (src/local), every topic replicated to min(N, 3) brokers with min.insync.replicas 2 from
   * three nodes on, as production clusters run; no proxied listener, so no distance workloads.
   */
  readonly brokers?: number;
  /** Parent folder of the brokers' data; default: /dev/shm when it has room, else the OS temp dir. */
  readonly brokerDir?: string;
  readonly mirrorflow: MirrorflowLaunch;
  /** tasks.max of MM2 tuned. */
  readonly tunedTasks: number;
  readonly runTimeoutMs: number;
  /** Keep the per-run folders (configs, logs) even when every run passed. */
  readonly keepRunDirs: boolean;
  readonly log: (line: string) => void;
}

/** Broker settings for the benchmark, on top of the launcher's (which already suit 2 cores). */
export const BENCH_BROKER_HEAP_MB = 1024;
export const BENCH_BROKER_PROPERTIES: Readonly<Record<string, string>> = {
  // A deleted topic's files go after 1 s instead of 60 s, so finished runs do not pile up in tmpfs.
  'log.segment.delete.delay.ms': '1000',
};

/** Brokers on tmpfs when it has room: no disk writeback competing for the 2 cores mid-run. */
export function defaultBrokerDir(): string {
  const shm = '/dev/shm';
  try {
    if (existsSync(shm)) {
      const stats = statfsSync(shm);
      if (stats.bavail * stats.bsize >= 8 * 1024 ** 3) return shm;
    }
  } catch {
    // fall through to the temp dir
  }
  return tmpdir();
}

/**
 * The commit under test, and whether `src/` differed from it: the benchmark runs the working
 * tree as built in `dist/`, which is not always what is committed.
 */
export function revision(): { commit: string; srcChanged: boolean } {
  const git = (args: string[]): string => execFileSync('git', args, { cwd: __dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    return { commit: git(['rev-parse', '--short', 'HEAD']), srcChanged: git(['status', '--porcelain', '--', ':/src']).length > 0 };
  } catch {
    return { commit: 'unknown', srcChanged: false };
  }
}

async function machineInfo(java: JavaTools, kafka: string): Promise<MachineInfo> {
  let cpuModel = cpus()[0]?.model ?? 'unknown CPU';
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) cpuModel = line.split(':')[1]!.trim();
  } catch {
    // keep os.cpus()'s model
  }
  return {
    cpus: availableParallelism(),
    cpuModel,
    memoryGiB: totalmem() / 1024 ** 3,
    kernel: release(),
    node: process.version,
    java: await java.javaVersion(),
    kafka,
  };
}

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const log = options.log;
  const date = new Date().toISOString();
  const underTest = revision();
  const distribution = await ensureKafkaDistribution(options.kafkaVersion);
  const java = await JavaTools.prepare(distribution, mirrorflowCacheDir());
  const machine = await machineInfo(java, distribution.version);
  const workRoot = await mkdtemp(join(tmpdir(), 'mirrorflow-bench-'));
  const runsDir = join(workRoot, 'runs');
  await mkdir(runsDir, { recursive: true });

  let local: { readonly source: StartedProxiedCluster; readonly target: StartedProxiedCluster } | undefined;
  let multi: LocalClusters | undefined;
  const brokers = options.clusters === undefined ? (options.brokers ?? 1) : 1;
  const replicationFactor = Math.min(brokers, 3);
  const brokerDir = options.brokerDir ?? defaultBrokerDir();
  let source: BenchEnv['source'];
  let target: BenchEnv['target'];
  if (options.clusters !== undefined) {
    source = { bootstrap: options.clusters.source };
    target = { bootstrap: options.clusters.target };
    log(`Using the clusters at ${source.bootstrap} (source) and ${target.bootstrap} (target).`);
  } else if (brokers > 1) {
    log(
      `Starting two local Kafka ${distribution.version} clusters of ${brokers} brokers each (data in ${brokerDir}; replication factor ${replicationFactor}).`,
    );
    multi = await startLocalClusters({
      aliases: ['bench-source', 'bench-target'],
      brokers,
      version: distribution.version,
      workDir: brokerDir,
      heapMb: BENCH_BROKER_HEAP_MB,
      brokerProperties: BENCH_BROKER_PROPERTIES,
    });
    const cluster = (alias: string): BenchEnv['source'] => ({
      bootstrap: multi!.clusters[alias]!.bootstrapServers,
      pids: multi!.nodes(alias).map((n) => n.node.pid),
    });
    source = cluster('bench-source');
    target = cluster('bench-target');
  } else {
    log(`Starting two local Kafka ${distribution.version} clusters (data in ${brokerDir}).`);
    // Each with a second listener behind a TCP proxy of this process, for the distance
    // workloads; every other run, and the harness's own clients, use the direct listener.
    const start = (alias: string): Promise<StartedProxiedCluster> =>
      startProxiedCluster(alias, {
        version: distribution.version,
        workDir: brokerDir,
        heapMb: BENCH_BROKER_HEAP_MB,
        brokerProperties: BENCH_BROKER_PROPERTIES,
      });
    const [s, t] = await Promise.allSettled([start('bench-source'), start('bench-target')]);
    if (s.status === 'rejected' || t.status === 'rejected') {
      await Promise.all([s, t].map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
      throw s.status === 'rejected' ? s.reason : (t as PromiseRejectedResult).reason;
    }
    local = { source: s.value, target: t.value };
    const pid = (c: StartedProxiedCluster): number => Object.values(c.local.clusters)[0]!.pid;
    source = { bootstrap: s.value.direct, pids: [pid(s.value)] };
    target = { bootstrap: t.value.direct, pids: [pid(t.value)] };
  }
  const sourceAdmin = new BenchAdmin(source.bootstrap, 'mirrorflow-bench-source-admin', replicationFactor);
  const targetAdmin = new BenchAdmin(target.bootstrap, 'mirrorflow-bench-target-admin', replicationFactor);
  const env: BenchEnv = {
    source,
    target,
    sourceAdmin,
    targetAdmin,
    java,
    distribution,
    runsDir,
    mirrorflow: options.mirrorflow,
    tunedTasks: options.tunedTasks,
    runTimeoutMs: options.runTimeoutMs,
    sharedClusters: options.clusters !== undefined,
    replicationFactor,
    proxies: local !== undefined ? { source: local.source.proxy, target: local.target.proxy } : options.clusters?.proxies,
    log,
  };

  const runs: RunResult[] = [];
  try {
    if (local !== undefined || multi !== undefined) {
      // The first run of round 1 would otherwise meet brokers whose JIT has not compiled the
      // produce and fetch paths yet; that run is always mirrorflow's.
      log('Warming up the brokers (group coordinators, then produce and read 300,000 records on each).');
      await warmUpBrokers(env);
      const paced = options.workloads.find((w): w is LatencyWorkload => w.kind === 'latency');
      if (paced !== undefined) {
        log(
          `Warming up the brokers for the latency workloads (${PACED_WARM_UP_SECONDS} s of ${paced.rate.toLocaleString('en-US')} records/s, each read as it lands, on each).`,
        );
        await warmUpPacedPaths(env, paced);
      }
    }
    for (const workload of options.workloads) {
      log(`Workload ${workload.name}: ${describeWorkload(workload)}.`);
      const first = options.replicators.find((r) => applies(workload, r));
      if ((local !== undefined || multi !== undefined) && workload.kind === 'latency' && first !== undefined) {
        await latencyWarmUpRun(env, workload, first);
      }
      for (let round = 1; round <= options.rounds; round++) {
        for (const replicator of options.replicators) {
          if (!applies(workload, replicator)) continue;
          const result = await runOnce(env, workload, round, replicator);
          runs.push(result);
          log(describeRun(result));
        }
      }
    }
  } finally {
    await sourceAdmin.close();
    await targetAdmin.close();
    if (local !== undefined) await Promise.all([local.source.stop(), local.target.stop()]);
    await multi?.stop();
  }

  const summaries = options.workloads.map((w) => summarize(w, runs, options.rounds));
  const head = headline(date, machine, options.rounds, runs, underTest);
  const ok = runs.every((r) => r.status === 'ok');
  if (ok && !options.keepRunDirs) await rm(workRoot, { recursive: true, force: true });
  else log(`Run folders (configs and logs) are in ${runsDir}.`);
  return {
    schema: 1,
    date,
    machine,
    rounds: options.rounds,
    settings: {
      revision: underTest,
      workloads: options.workloads,
      replicators: options.replicators,
      brokers:
        options.clusters !== undefined
          ? 'given'
          : { perCluster: brokers, replicationFactor, heapMb: BENCH_BROKER_HEAP_MB, dataDir: brokerDir, properties: BENCH_BROKER_PROPERTIES },
      mirrorflow: { nodeArgs: options.mirrorflow.nodeArgs, set: options.mirrorflow.set, settings: "pipeline defaults; topics = the run's topics" },
      mm2: { heapMb: MM2_HEAP_MB, default: 'MM2 defaults (see test/bench/mm2-properties.ts)', tuned: tunedSettings(options.tunedTasks) },
      limit: { producerProps: LIMIT_PRODUCER_PROPS, latencyProducerProps: LIMIT_LATENCY_PRODUCER_PROPS },
      ceiling: { producers: CEILING_PRODUCERS, producerProps: CEILING_PRODUCER_PROPS },
    },
    summaries,
    runs,
    ok,
    text: renderText(summaries, head),
    markdown: renderMarkdown(summaries, head),
  };
}

async function warmUpBrokers(env: BenchEnv): Promise<void> {
  await Promise.all(
    [env.sourceAdmin, env.targetAdmin].map(async (admin) => {
      const topic = `bench-warm-up-${process.pid}`;
      await admin.groupCoordinatorsReady();
      await admin.createReadyTopics([{ name: topic, partitions: 8 }]);
      try {
        await env.java.benchToolJson(
          [
            'produce',
            '--bootstrap',
            admin.bootstrap,
            '--topics',
            topic,
            '--partitions',
            '8',
            '--records',
            '300000',
            '--key-bytes',
            '16',
            '--value-bytes',
            '256',
            '--headers',
            '2',
          ],
          10 * 60_000,
        );
        await env.java.benchToolJson(['digest', '--bootstrap', admin.bootstrap, '--topics', topic], 10 * 60_000);
      } finally {
        await admin.deleteTopicsContaining(topic);
      }
    }),
  );
}

/**
 * Seconds of paced traffic through each cluster before the first latency run. Records written one
 * by one and read as they land take broker paths the bulk warm-up does not (small produce
 * requests, fetches parked until a record arrives): on fresh brokers, round 1's first replicator
 * (always mirrorflow) measured a p99 of 104-246 ms where round 2 measured 10-13 ms, its first
 * 10-15 s of load the slow part, even after the bulk warm-up or a bulk workload; after 20 s of
 * this warm-up 45-63 ms, after 60 s 22 ms.
 */
const PACED_WARM_UP_SECONDS = 60;

/**
 * Before the rounds of a latency workload on clusters the bench started, its first replicator
 * runs it once, unmeasured (round 0 in the run ids). After the paced warm-up above, mirrorflow's
 * round-1 p99 was still 45 ms where its round 2 measured 8 ms: a run of the replicator warms
 * broker paths the Java clients' paced records do not (kafkajs sends other request versions:
 * Produce v7 and Fetch v11, where Kafka's Java clients send v11+ and v17), and the first
 * replicator of round 1 would be the first to make the brokers serve its requests at this pace.
 */
async function latencyWarmUpRun(env: BenchEnv, workload: LatencyWorkload, replicator: ReplicatorName): Promise<void> {
  env.log(`${describeRun(await runOnce(env, workload, 0, replicator))} (warm-up run, not counted)`);
}

/** Paced records through each cluster, a producer and two consumers of its own (BenchTool `visible` with both ends on it). */
async function warmUpPacedPaths(env: BenchEnv, workload: LatencyWorkload): Promise<void> {
  await Promise.all(
    [env.sourceAdmin, env.targetAdmin].map(async (admin) => {
      const topic = `bench-paced-warm-up-${process.pid}`;
      await admin.createReadyTopics([{ name: topic, partitions: workload.partitions, configs: { 'message.timestamp.type': 'LogAppendTime' } }]);
      try {
        await env.java.benchToolJson(
          [
            'visible',
            '--source-bootstrap',
            admin.bootstrap,
            '--topic',
            topic,
            '--target-bootstrap',
            admin.bootstrap,
            '--target-topic',
            topic,
            '--partitions',
            String(workload.partitions),
            '--rate',
            String(workload.rate),
            '--records',
            String(workload.rate * PACED_WARM_UP_SECONDS),
            '--first-index',
            '0',
            '--timeout-s',
            String(PACED_WARM_UP_SECONDS + 120),
          ],
          (PACED_WARM_UP_SECONDS + 180) * 1000,
        );
      } finally {
        await admin.deleteTopicsContaining(topic);
      }
    }),
  );
}

function describeRun(r: RunResult): string {
  const head = `  ${r.workload} round ${r.round} ${r.replicator.padEnd(11)}`;
  if (r.status === 'failed') return `${head} FAILED: ${r.failure ?? ''}`;
  if (r.status === 'error') return `${head} ERROR (harness, not counted): ${r.failure ?? ''}`;
  const rate = `${Math.round(r.recordsPerSec ?? 0).toLocaleString('en-US')} records/s in ${((r.elapsedMs ?? 0) / 1000).toFixed(1)} s`;
  const parts = r.replicationLatencyMs
    ? ` (source hop p50 ${r.sourceLatencyMs?.p50} ms p99 ${r.sourceLatencyMs?.p99} ms; replication p50 ${r.replicationLatencyMs.p50} ms p99 ${r.replicationLatencyMs.p99} ms)`
    : '';
  const lat = r.latencyMs ? `, p50 ${r.latencyMs.p50} ms p99 ${r.latencyMs.p99} ms max ${r.latencyMs.max} ms${parts}` : '';
  const many =
    r.allPartitionsMs === undefined
      ? ''
      : `, every partition at ${(r.allPartitionsMs / 1000).toFixed(1)} s, first record at ${((r.firstRecordMs ?? 0) / 1000).toFixed(1)} s, idle ${(r.idleCores ?? 0).toFixed(3)} cores`;
  const cpu = `, CPU ${(r.cpuSeconds ?? 0).toFixed(1)} s, RSS ${Math.round(r.peakRssMiB ?? 0)} MiB, others' CPU ${(r.otherCpuSeconds ?? 0).toFixed(1)} s`;
  return `${head} ${rate}${lat}${many}${cpu}`;
}
