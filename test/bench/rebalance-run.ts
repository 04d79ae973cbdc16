/**
 * What a scale event costs several `mirrorflow run` processes of one pipeline
 * (`npm run bench -- --rebalance`): on two local clusters of its own, `processes` processes share
 * a topic of `partitions` partitions that Kafka's Java producer writes at `rate` records/s; once
 * they copy steadily, each event in turn — a process added, one stopped with SIGTERM, one killed
 * with kill -9 — waits until the group settled (every partition assigned, the group stable) and
 * copies steadily again. The remote topic is created first with LogAppendTime, so every record's
 * timestamp on the target says when the target took it; after the run every target record is
 * read and rebalance-gaps.ts measures, per event: the longest time in which the target took no
 * record at all, in which each process copied nothing, and in which each partition got nothing,
 * split by whether its owner stayed the same. The group's assignment is read before each event
 * and once it settled (member ids survive rejoins).
 */
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from '#yaml';
import { AssignerProtocol, Kafka, logLevel } from '../../src/kafka/kafkajs';
import { ensureKafkaDistribution, mirrorflowCacheDir, startLocalClusters } from '../../src/local';
import { waitFor } from '../support/wait-for';
import { BenchAdmin, reached } from './bench-admin';
import { BENCH_BROKER_PROPERTIES, defaultBrokerDir, revision } from './bench-harness';
import { JavaTools } from './java-tools';
import { eventGaps, type EventGaps, type GroupAssignment } from './rebalance-gaps';
import { MIRRORFLOW_MAIN, mirrorflowPipeline, spawnLogged, type ChildRun, type MirrorflowLaunch, type ReplicationRun } from './replicators';

export type RebalanceEventKind = 'add' | 'remove' | 'kill';

export interface RebalanceOptions {
  readonly processes: number;
  readonly partitions: number;
  readonly rate: number;
  /** Nodes per cluster (topics at RF min(brokers, 3)). */
  readonly brokers: number;
  /** Steady copying before the first event and after each one, s. */
  readonly steadySeconds: number;
  readonly events: readonly RebalanceEventKind[];
  readonly kafkaVersion: string;
  readonly brokerDir?: string;
  readonly mirrorflow: Pick<MirrorflowLaunch, 'nodeArgs' | 'set'>;
  readonly log: (line: string) => void;
}

export interface RebalanceEvent {
  readonly kind: RebalanceEventKind;
  /** From the event until the group settled, ms. */
  readonly settleMs: number;
  /** Generations each process that stayed went through (its "Partitions assigned." lines). */
  readonly assignments: readonly number[];
  readonly gaps: EventGaps;
}

export interface RebalanceReport {
  readonly schema: 1;
  readonly date: string;
  readonly revision: { readonly commit: string; readonly srcChanged: boolean };
  readonly settings: Omit<RebalanceOptions, 'log'>;
  readonly ok: boolean;
  readonly failure?: string;
  readonly records?: { readonly source: number; readonly target: number };
  readonly events: readonly RebalanceEvent[];
  readonly markdown: string;
}

interface Running {
  readonly child: ChildRun;
  readonly address: string;
}

interface Timed {
  readonly kind: RebalanceEventKind;
  readonly at: number;
  readonly settledAt: number;
  readonly before: GroupAssignment;
  readonly after: GroupAssignment;
  readonly assignedBefore: readonly number[];
  readonly assignedAfter: readonly number[];
}

async function addressOf(child: ChildRun): Promise<string> {
  let address: string | undefined;
  await waitFor(
    async () => {
      if (child.exitStatus() !== undefined) throw new Error(`mirrorflow ended (${child.exitStatus()}):\n${await child.tail(20)}`);
      const line = (await readFile(child.logFile, 'utf8').catch(() => '')).split('\n').find((l) => l.includes('Serving metrics'));
      if (line !== undefined) address = `http://${(JSON.parse(line) as { address: string }).address}`;
      return address !== undefined;
    },
    { what: `mirrorflow (pid ${child.pid}) serving HTTP`, timeoutMs: 120_000, intervalMs: 200 },
  );
  return address!;
}

async function assignedCount(child: ChildRun): Promise<number> {
  return (await readFile(child.logFile, 'utf8').catch(() => '')).split('\n').filter((l) => l.includes('"Partitions assigned."')).length;
}

export async function runRebalance(options: RebalanceOptions): Promise<RebalanceReport> {
  const { log } = options;
  const date = new Date().toISOString();
  const underTest = revision();
  const distribution = await ensureKafkaDistribution(options.kafkaVersion);
  const java = await JavaTools.prepare(distribution, mirrorflowCacheDir());
  const workRoot = await mkdtemp(join(tmpdir(), 'mirrorflow-rebalance-'));
  const brokerDir = options.brokerDir ?? defaultBrokerDir();
  const replicationFactor = Math.min(options.brokers, 3);
  log(`Starting two local Kafka ${distribution.version} clusters of ${options.brokers} node(s) (data in ${brokerDir}).`);
  const local = await startLocalClusters({
    aliases: ['rebalance-source', 'rebalance-target'],
    version: distribution.version,
    workDir: brokerDir,
    brokers: options.brokers,
    heapMb: options.brokers === 1 ? 1024 : 512,
    brokerProperties: BENCH_BROKER_PROPERTIES,
  });
  const sourceBootstrap = local.clusters['rebalance-source']!.bootstrapServers;
  const targetBootstrap = local.clusters['rebalance-target']!.bootstrapServers;
  const sourceAdmin = new BenchAdmin(sourceBootstrap, 'mirrorflow-rebalance-source-admin');
  const targetAdmin = new BenchAdmin(targetBootstrap, 'mirrorflow-rebalance-target-admin');
  const id = randomBytes(3).toString('hex');
  const topic = `rebalance-${id}`;
  const run: ReplicationRun = {
    dir: workRoot,
    name: `rebalance-${id}`,
    sourceAlias: `src-${id}`,
    targetAlias: `dst-${id}`,
    sourceBootstrap,
    targetBootstrap,
    topics: [topic],
  };
  const remote = `${run.sourceAlias}.${topic}`;
  const groupId = `mirrorflow.${run.name}.${run.sourceAlias}-${run.targetAlias}`;
  const groupAdmin = new Kafka({ brokers: sourceBootstrap.split(','), clientId: 'mirrorflow-rebalance-group', logLevel: logLevel.NOTHING }).admin();
  const all: ChildRun[] = [];
  let running: Running[] = [];
  let producer: ChildProcess | undefined;
  const timed: Timed[] = [];
  let failure: string | undefined;
  let records: RebalanceReport['records'];
  let events: RebalanceEvent[] = [];
  try {
    await groupAdmin.connect();
    await sourceAdmin.createReadyTopics([{ name: topic, partitions: options.partitions, replicationFactor }]);
    await targetAdmin.createReadyTopics([
      { name: remote, partitions: options.partitions, replicationFactor, configs: { 'message.timestamp.type': 'LogAppendTime' } },
    ]);
    const file = join(workRoot, 'pipeline.yaml');
    const pipeline = mirrorflowPipeline(run);
    const flow = (pipeline['flows'] as Record<string, unknown>[])[0]!;
    const factor = { replication_factor: replicationFactor };
    Object.assign(flow, { topic_sync: factor, checkpoints: factor, heartbeats: factor });
    await writeFile(file, `# mirrorflow for a rebalance measurement, written by test/bench.\n${stringify(pipeline)}`);
    const start = async (): Promise<Running> => {
      const n = all.length + 1;
      const args = [...options.mirrorflow.nodeArgs, MIRRORFLOW_MAIN, 'run', file, '--status-interval', '0', '--http', '127.0.0.1:0'];
      const child = spawnLogged(
        process.execPath,
        [...args, ...options.mirrorflow.set.flatMap((s) => ['--set', s])],
        join(workRoot, `mirrorflow-${n}.log`),
        workRoot,
      );
      all.push(child);
      return { child, address: await addressOf(child) };
    };
    const assignment = async (): Promise<Map<string, number[]>> => {
      const { groups } = await groupAdmin.describeGroups([groupId]);
      const out = new Map<string, number[]>();
      for (const member of groups[0]?.members ?? []) {
        out.set(
          member.memberId,
          [...(AssignerProtocol.MemberAssignment.decode(member.memberAssignment)?.assignment[topic] ?? [])].sort((a, b) => a - b),
        );
      }
      return out;
    };
    const settled = async (): Promise<void> => {
      await waitFor(
        async () => {
          for (const r of running)
            if (r.child.exitStatus() !== undefined) throw new Error(`mirrorflow ended (${r.child.exitStatus()}):\n${await r.child.tail(20)}`);
          const flows = await Promise.all(
            running.map(async (r) => {
              const document = (await (await fetch(`${r.address}/status`)).json()) as { flows: { state: string; partitionsAssigned: number }[] };
              return document.flows[0]!;
            }),
          );
          if (flows.some((f) => f.state !== 'running' || f.partitionsAssigned === 0)) return false;
          if (flows.reduce((sum, f) => sum + f.partitionsAssigned, 0) !== options.partitions) return false;
          const { groups } = await groupAdmin.describeGroups([groupId]);
          return groups[0]?.state === 'Stable' && groups[0].members.length === running.length;
        },
        { what: `${running.length} processes sharing the ${options.partitions} partitions`, timeoutMs: 180_000, intervalMs: 100 },
      );
    };

    producer = java.spawnBenchTool(
      [
        'keep-producing',
        '--bootstrap',
        sourceBootstrap,
        '--topic',
        topic,
        '--partitions',
        String(options.partitions),
        '--rate',
        String(options.rate),
        '--max-minutes',
        '60',
      ],
      { heapMb: 256, stdin: 'pipe', profile: 'tool' },
    );
    let producerErr = '';
    producer.stderr!.on('data', (chunk: Buffer) => (producerErr = (producerErr + chunk.toString()).slice(-4000)));
    const producerExit = new Promise<number | null>((resolve) => producer!.on('close', (code) => resolve(code)));
    log(`${options.processes} processes, ${options.partitions} partitions, ${options.rate} records/s; logs in ${workRoot}.`);
    running = await Promise.all(Array.from({ length: options.processes }, () => start()));
    await settled();
    await sleep(options.steadySeconds * 1000);
    for (const kind of options.events) {
      const before = await assignment();
      const assignedBefore = await Promise.all(all.map(assignedCount));
      const at = Date.now();
      if (kind === 'add') running = [...running, await start()];
      else {
        const [leaving] = running;
        running = running.slice(1);
        if (kind === 'kill') process.kill(leaving!.child.pid, 'SIGKILL');
        await leaving!.child.stop();
      }
      await settled();
      const settledAt = Date.now();
      log(`  ${kind}: settled after ${((settledAt - at) / 1000).toFixed(1)} s`);
      await sleep(options.steadySeconds * 1000);
      timed.push({ kind, at, settledAt, before, after: await assignment(), assignedBefore, assignedAfter: await Promise.all(all.map(assignedCount)) });
    }
    producer.stdin!.end();
    const code = await producerExit;
    if (code !== 0) throw new Error(`the producer failed (exit code ${code}): ${producerErr}`);
    const expected = await sourceAdmin.endOffsets([topic]);
    await waitFor(async () => reached(await targetAdmin.endOffsets([remote]).catch(() => new Map<string, number[]>()), expected, () => remote), {
      what: 'every record on the target',
      timeoutMs: 300_000,
      intervalMs: 500,
    });
    await Promise.all(running.map((r) => r.child.stop()));
    log('Reading the target’s append times.');
    const appends = await appendTimes(targetBootstrap, remote, options.partitions, (await targetAdmin.endOffsets([remote])).get(remote)!);
    records = { source: (expected.get(topic) ?? []).reduce((a, b) => a + b, 0), target: [...appends.values()].reduce((sum, t) => sum + t.length, 0) };
    events = timed.map((e, i) => {
      const next = timed[i + 1]?.at ?? Infinity;
      const window = { from: e.at, to: Math.min(next, e.settledAt + 5_000) };
      const baseline = { from: e.at - 10_000, to: e.at - 1_000 };
      const stayed = e.assignedAfter.map((n, p) => n - (e.assignedBefore[p] ?? 0)).filter((n, p) => n > 0 && (e.assignedBefore[p] ?? 0) > 0);
      return { kind: e.kind, settleMs: e.settledAt - e.at, assignments: stayed, gaps: eventGaps(appends, e.before, e.after, window, baseline) };
    });
  } catch (error) {
    failure = error instanceof Error ? error.message.slice(0, 4000) : String(error);
    log(`FAILED: ${failure}`);
  } finally {
    producer?.kill('SIGKILL');
    await Promise.all(all.map((c) => c.stop(5_000)));
    await groupAdmin.disconnect().catch(() => undefined);
    await sourceAdmin.close();
    await targetAdmin.close();
    await local.stop();
  }
  const ok = failure === undefined && records !== undefined && records.target >= records.source;
  if (ok) await rm(workRoot, { recursive: true, force: true });
  else log(`The run folder (pipeline, logs) is in ${workRoot}.`);
  const { log: _log, ...settings } = options;
  const partial = { schema: 1 as const, date, revision: underTest, settings: { ...settings, brokerDir }, ok, failure, records, events };
  return { ...partial, markdown: renderRebalanceMarkdown(partial) };
}

/** Every record's timestamp (LogAppendTime: when the target took it), per partition, in offset order. */
async function appendTimes(bootstrap: string, topic: string, partitions: number, ends: readonly number[]): Promise<Map<number, number[]>> {
  const kafka = new Kafka({ brokers: bootstrap.split(','), clientId: 'mirrorflow-rebalance-reader', logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `mirrorflow-rebalance-reader-${randomBytes(3).toString('hex')}`, maxBytesPerPartition: 4 * 1024 * 1024 });
  const times = new Map<number, number[]>(Array.from({ length: partitions }, (_, p) => [p, []]));
  const done = new Set<number>(Array.from({ length: partitions }, (_, p) => p).filter((p) => (ends[p] ?? 0) === 0));
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: 8,
    eachBatch: async ({ batch }) => {
      const list = times.get(batch.partition)!;
      for (const message of batch.messages) list.push(Number(message.timestamp));
      if (Number(batch.lastOffset()) + 1 >= (ends[batch.partition] ?? 0)) done.add(batch.partition);
    },
  });
  await waitFor(() => done.size === partitions, { what: `every record of ${topic} read`, timeoutMs: 600_000, intervalMs: 200 });
  await consumer.disconnect();
  for (const list of times.values()) list.sort((a, b) => a - b);
  return times;
}

const s = (ms: number | undefined): string => (ms === undefined ? '–' : (ms / 1000).toFixed(1));

export function renderRebalanceMarkdown(report: Omit<RebalanceReport, 'markdown'>): string {
  const o = report.settings;
  const lines = [
    `Rebalance ${report.date.slice(0, 16).replace('T', ' ')} UTC, mirrorflow ${report.revision.commit}${report.revision.srcChanged ? ' (with uncommitted changes)' : ''}: ` +
      `${o.processes} processes, ${o.partitions} partitions, ${o.rate.toLocaleString('en-US')} records/s, clusters of ${o.brokers} node(s). **${report.ok ? 'OK' : 'FAILED'}**` +
      (report.failure ? `: ${report.failure.split('\n')[0]}` : ''),
    '',
    "Seconds without a record on the target (from LogAppendTime): anywhere; per process (its partitions before and after); per partition kept by its owner and per partition that moved (median / p90 / max); a partition's longest gap before the event (max).",
    '',
    '| event | settled | nowhere | staying processes | joining | kept partitions | moved partitions | before (max) | generations |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...report.events.map((e) => {
      const g = e.gaps;
      const staying = g.processes.filter((p) => p.role === 'stayed').map((p) => s(p.idleMs));
      const joined = g.processes.filter((p) => p.role === 'joined').map((p) => s(p.idleMs));
      const pct = (p: typeof g.keptPartitions): string => (p === undefined ? '–' : `${s(p.median)} / ${s(p.p90)} / ${s(p.max)} (${p.count})`);
      return (
        `| ${e.kind} | ${s(e.settleMs)} | ${s(g.globalIdleMs)} | ${staying.join(', ') || '–'} | ${joined.join(', ') || '–'} | ${pct(g.keptPartitions)} | ` +
        `${pct(g.movedPartitions)} | ${s(g.baselinePartitions?.max)} | ${e.assignments.join(', ')} |`
      );
    }),
  ];
  return lines.join('\n');
}

export async function writeRebalanceReport(report: RebalanceReport, out: string): Promise<void> {
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
}
