/**
 * The soak: mirrorflow replicating a steady stream for a long time while the target
 * broker restarts now and then, on two local clusters of its own. Not a CI test: it runs for
 * minutes to hours (`npm run bench -- --soak`).
 *
 *   create the source topic and the remote topic (LogAppendTime) → start mirrorflow → BenchTool
 *   writes `rate` records/s for `minutes` → every `restartEveryMinutes` the target broker is
 *   halted and started again (same port, same data) → every `sampleSeconds` mirrorflow's RSS,
 *   heap (its progress line) and CPU are read → the producer done, wait until mirrorflow has
 *   nothing left (target end offsets ≥ source's, lag 0) → stop it → BenchTool soak-verify.
 *
 * Per minute: RSS and heap (max of the samples), CPU, records/s arrived on the target (distinct
 * records by their target append time) and their latency (target append time − the producer's
 * create time, so it includes the producer's linger and the source append). At the end: records
 * lost (source count and content hash per partition against the target's distinct records; must
 * be 0) and duplicates (target records whose key came before).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureKafkaDistribution, mirrorflowCacheDir, startLocalClusters } from '../../src/local';
import { BenchAdmin, reached } from './bench-admin';
import { BENCH_BROKER_HEAP_MB, BENCH_BROKER_PROPERTIES, defaultBrokerDir, revision } from './bench-harness';
import { JavaTools } from './java-tools';
import { processCpuSeconds } from './process-meter';
import { waitFor } from '../support/wait-for';
import { startMirrorflow, type MirrorflowLaunch, type ReplicationRun } from './replicators';

/** How often the sampler looks at the clock while the stream runs; samples are taken every `sampleSeconds`. */
const SAMPLER_TICK_MS = 200;

export interface SoakOptions {
  readonly minutes: number;
  /** 0: never. */
  readonly restartEveryMinutes: number;
  /** How the target broker is halted: SIGTERM (a clean shutdown) or SIGKILL (a crash). */
  readonly restartSignal: 'SIGTERM' | 'SIGKILL';
  readonly rate: number;
  readonly partitions: number;
  readonly keyBytes: number;
  readonly valueBytes: number;
  readonly headers: number;
  readonly sampleSeconds: number;
  readonly kafkaVersion: string;
  readonly brokerDir?: string;
  readonly mirrorflow: MirrorflowLaunch;
  readonly log: (line: string) => void;
}

export interface SoakMinute {
  readonly minute: number;
  readonly rssMiB?: number;
  readonly heapUsedMiB?: number;
  readonly cpuSeconds?: number;
  /** Distinct records that reached the target in this minute, per second. */
  readonly recordsPerSec: number;
  readonly latencyMs?: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Target restarts that began in this minute. */
  readonly restarts: number;
}

export interface SoakRestart {
  readonly atSeconds: number;
  /** Halt (SIGTERM and shutdown, or SIGKILL) until the broker answered again. */
  readonly downMs: number;
}

export interface SoakReport {
  readonly schema: 1;
  readonly date: string;
  readonly revision: { readonly commit: string; readonly srcChanged: boolean };
  readonly settings: Omit<SoakOptions, 'log'>;
  readonly ok: boolean;
  readonly failure?: string;
  readonly records: { readonly source: number; readonly target: number; readonly lost: number; readonly duplicates: number; readonly unpaired: number };
  readonly mismatches: readonly string[];
  readonly restarts: readonly SoakRestart[];
  /** Producer end → mirrorflow had delivered everything. */
  readonly drainMs?: number;
  readonly minutes: readonly SoakMinute[];
  readonly peakRssMiB: number;
  readonly markdown: string;
}

interface Sample {
  readonly at: number;
  readonly rssMiB: number;
  readonly heapMiB?: number;
  readonly cpuSeconds: number;
}

interface VerifyResult {
  readonly partitions: Record<string, { source: number; sourceHash: string; target: number; distinct: number; targetHash: string; duplicates: number }>;
  readonly unpaired: number;
  readonly minutes: readonly { minute: number; records: number; p50: number; p99: number; max: number }[];
}

/** VmRSS of a process, MiB; undefined once it is gone. */
async function rssMiB(pid: number): Promise<number | undefined> {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

interface ProgressLine {
  readonly lag: number;
  readonly bufferedBytes: number;
  readonly heapMb: number;
}

/** mirrorflow's newest progress line (JSON log). */
async function lastProgress(logFile: string): Promise<ProgressLine | undefined> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  const lines = text.slice(-64 * 1024).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.includes('"Progress."')) continue;
    try {
      return JSON.parse(lines[i]!) as ProgressLine;
    } catch {
      // an incomplete last line
    }
  }
  return undefined;
}

const max = (values: readonly (number | undefined)[]): number | undefined => {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : Math.max(...defined);
};

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log;
  const date = new Date().toISOString();
  const underTest = revision();
  const distribution = await ensureKafkaDistribution(options.kafkaVersion);
  const java = await JavaTools.prepare(distribution, mirrorflowCacheDir());
  const workRoot = await mkdtemp(join(tmpdir(), 'mirrorflow-soak-'));
  const brokerDir = options.brokerDir ?? defaultBrokerDir();
  log(`Starting two local Kafka ${distribution.version} clusters (data in ${brokerDir}).`);
  const local = await startLocalClusters({
    aliases: ['soak-source', 'soak-target'],
    version: distribution.version,
    workDir: brokerDir,
    heapMb: BENCH_BROKER_HEAP_MB,
    brokerProperties: BENCH_BROKER_PROPERTIES,
  });
  const sourceBootstrap = local.clusters['soak-source']!.bootstrapServers;
  const targetBroker = local.broker('soak-target');
  const sourceAdmin = new BenchAdmin(sourceBootstrap, 'mirrorflow-soak-source-admin');
  const targetAdmin = new BenchAdmin(targetBroker.cluster.bootstrapServers, 'mirrorflow-soak-target-admin');
  const id = randomBytes(3).toString('hex');
  const topic = `soak-${id}`;
  const run: ReplicationRun = {
    dir: join(workRoot, 'run'),
    name: `soak-${id}`,
    sourceAlias: `src-${id}`,
    targetAlias: `dst-${id}`,
    sourceBootstrap,
    targetBootstrap: targetBroker.cluster.bootstrapServers,
    topics: [topic],
  };
  const remote = `${run.sourceAlias}.${topic}`;
  await mkdir(run.dir, { recursive: true });

  const samples: Sample[] = [];
  const restarts: SoakRestart[] = [];
  let failure: string | undefined;
  let drainMs: number | undefined;
  let verified: VerifyResult | undefined;
  try {
    await sourceAdmin.createReadyTopics([{ name: topic, partitions: options.partitions }]);
    // LogAppendTime on the remote topic only: its timestamps are arrival times on the target,
    // while the source keeps the producer's create times (and its batches are forwarded whole).
    await targetAdmin.createReadyTopics([{ name: remote, partitions: options.partitions, configs: { 'message.timestamp.type': 'LogAppendTime' } }]);
    const child = await startMirrorflow(run, { ...options.mirrorflow, statusIntervalMs: options.sampleSeconds * 1000 });
    const records = Math.round(options.rate * options.minutes * 60);
    const startMs = Date.now();
    const started = performance.now();
    log(
      `Soak ${id}: ${options.rate.toLocaleString('en-US')} records/s for ${options.minutes} min, target restarts every ${options.restartEveryMinutes} min (${options.restartSignal}); mirrorflow pid ${child.pid}, log ${child.logFile}.`,
    );
    const producer = java.spawnBenchTool([
      'produce',
      '--bootstrap',
      sourceBootstrap,
      '--topics',
      topic,
      '--partitions',
      String(options.partitions),
      '--records',
      String(records),
      '--key-bytes',
      String(options.keyBytes),
      '--value-bytes',
      String(options.valueBytes),
      '--headers',
      String(options.headers),
      '--rate',
      String(options.rate),
      '--max-minutes',
      String(Math.ceil(options.minutes) + 10),
    ]);
    let producerOut = '';
    producer.stdout?.on('data', (chunk: Buffer) => (producerOut += chunk.toString()));
    producer.stderr?.on('data', (chunk: Buffer) => (producerOut += chunk.toString()));
    const producerExit = new Promise<number | null>((resolve) => producer.on('close', (code) => resolve(code)));
    let producerDone = false;
    void producerExit.then(() => (producerDone = true));

    try {
      let nextRestart = options.restartEveryMinutes > 0 ? options.restartEveryMinutes * 60_000 : Infinity;
      let nextSample = 0;
      let lastMinuteLogged = -1;
      let restarting: Promise<void> | undefined;
      while (!producerDone) {
        const elapsed = performance.now() - started;
        if (child.exitStatus() !== undefined)
          throw new Error(`mirrorflow ended (${child.exitStatus()}) during the soak; log ${child.logFile}:\n${await child.tail(20)}`);
        if (elapsed >= nextSample) {
          nextSample += options.sampleSeconds * 1000;
          const [rss, progress] = await Promise.all([rssMiB(child.pid), lastProgress(child.logFile)]);
          if (rss !== undefined) samples.push({ at: elapsed, rssMiB: rss, heapMiB: progress?.heapMb, cpuSeconds: processCpuSeconds(child.pid) });
          const minute = Math.floor(elapsed / 60_000);
          if (minute > lastMinuteLogged) {
            lastMinuteLogged = minute;
            log(`  minute ${minute}: RSS ${rss?.toFixed(0)} MiB, heap ${progress?.heapMb} MiB, lag ${progress?.lag}, buffered ${progress?.bufferedBytes} B`);
          }
        }
        // No restart in the last minute of the stream: the end must not wait on a broker start.
        // The restart runs beside the sampling, which goes on through the outage.
        if (restarting === undefined && elapsed >= nextRestart && elapsed < options.minutes * 60_000 - 60_000) {
          nextRestart += options.restartEveryMinutes * 60_000;
          const at = performance.now();
          log(`  restarting the target broker (${options.restartSignal}) at ${(elapsed / 1000).toFixed(0)} s`);
          restarting = targetBroker.restart({ signal: options.restartSignal }).then(() => {
            restarts.push({ atSeconds: Math.round(elapsed / 1000), downMs: Math.round(performance.now() - at) });
            log(`  the target broker is back after ${restarts.at(-1)!.downMs} ms`);
            restarting = undefined;
          });
          // Observed here; awaited before the drain, where a failed restart ends the soak.
          restarting.catch(() => undefined);
        }
        // The sampler's tick; the stream's end cuts it short.
        await Promise.race([producerExit, sleep(SAMPLER_TICK_MS)]);
      }
      await restarting;
      const code = await producerExit;
      if (code !== 0) throw new Error(`the producer failed (exit code ${code}): ${producerOut.slice(-2000)}`);
      const producedAt = performance.now();
      const expected = await sourceAdmin.endOffsets([topic]);
      // Everything delivered: every partition on the target at least as far as the source, and
      // mirrorflow with nothing fetched but unacknowledged and no lag left.
      await waitFor(
        async () => {
          if (child.exitStatus() !== undefined)
            throw new Error(`mirrorflow ended (${child.exitStatus()}) while draining; log ${child.logFile}:\n${await child.tail(20)}`);
          const offsets = await targetAdmin.endOffsets([remote]).catch(() => new Map<string, number[]>());
          const progress = await lastProgress(child.logFile);
          return reached(offsets, expected, () => remote) && progress?.lag === 0 && progress.bufferedBytes === 0;
        },
        { what: 'mirrorflow to deliver everything after the producer ended (no lag, nothing buffered)', timeoutMs: 10 * 60_000, intervalMs: 500 },
      );
      drainMs = Math.round(performance.now() - producedAt);
      await child.stop();
      log(`Delivered ${drainMs} ms after the producer ended; verifying.`);
      verified = await java.benchToolJson<VerifyResult>(
        [
          'soak-verify',
          '--source-bootstrap',
          sourceBootstrap,
          '--source-topic',
          topic,
          '--target-bootstrap',
          run.targetBootstrap,
          '--target-topic',
          remote,
          '--partitions',
          String(options.partitions),
          '--start-ms',
          String(startMs),
        ],
        30 * 60_000,
      );
    } finally {
      if (!producerDone) producer.kill('SIGKILL');
      await child.stop();
    }
  } catch (error) {
    failure = error instanceof Error ? error.message.slice(0, 4000) : String(error);
    log(`FAILED: ${failure}`);
  } finally {
    await sourceAdmin.close();
    await targetAdmin.close();
    await local.stop();
  }

  const mismatches: string[] = [];
  let source = 0;
  let target = 0;
  let lost = 0;
  let duplicates = 0;
  for (const [partition, p] of Object.entries(verified?.partitions ?? {})) {
    source += p.source;
    target += p.target;
    duplicates += p.duplicates;
    lost += Math.max(0, p.source - p.distinct);
    if (p.distinct !== p.source) mismatches.push(`partition ${partition}: ${p.source} records on the source, ${p.distinct} distinct on the target`);
    else if (p.targetHash !== p.sourceHash) mismatches.push(`partition ${partition}: same count (${p.source}), different content`);
  }
  if ((verified?.unpaired ?? 0) > 0) mismatches.push(`${verified!.unpaired} target records match no source record`);
  const minutes = perMinute(samples, verified, restarts);
  const ok = failure === undefined && verified !== undefined && mismatches.length === 0 && lost === 0;
  if (ok) await rm(workRoot, { recursive: true, force: true });
  else log(`The run folder (pipeline, mirrorflow.log) is in ${workRoot}.`);
  const { log: _log, ...settings } = options;
  const partial = {
    schema: 1 as const,
    date,
    revision: underTest,
    settings: { ...settings, brokerDir },
    ok,
    failure,
    records: { source, target, lost, duplicates, unpaired: verified?.unpaired ?? 0 },
    mismatches,
    restarts,
    drainMs,
    minutes,
    peakRssMiB: Math.round(max(samples.map((s) => s.rssMiB)) ?? 0),
  };
  return { ...partial, markdown: renderSoakMarkdown(partial) };
}

function perMinute(samples: readonly Sample[], verified: VerifyResult | undefined, restarts: readonly SoakRestart[]): SoakMinute[] {
  const count = Math.max(0, ...samples.map((s) => Math.floor(s.at / 60_000) + 1), ...(verified?.minutes ?? []).map((m) => m.minute + 1));
  const out: SoakMinute[] = [];
  let cpuBefore = 0;
  for (let minute = 0; minute < count; minute++) {
    const inMinute = samples.filter((s) => Math.floor(s.at / 60_000) === minute);
    const arrived = verified?.minutes.find((m) => m.minute === minute);
    const cpuEnd = inMinute.at(-1)?.cpuSeconds;
    out.push({
      minute,
      rssMiB: round(max(inMinute.map((s) => s.rssMiB))),
      heapUsedMiB: round(max(inMinute.map((s) => s.heapMiB))),
      cpuSeconds: cpuEnd === undefined ? undefined : Math.round((cpuEnd - cpuBefore) * 10) / 10,
      recordsPerSec: Math.round((arrived?.records ?? 0) / 60),
      latencyMs: arrived === undefined ? undefined : { p50: arrived.p50, p99: arrived.p99, max: arrived.max },
      restarts: restarts.filter((r) => Math.floor(r.atSeconds / 60) === minute).length,
    });
    if (cpuEnd !== undefined) cpuBefore = cpuEnd;
  }
  return out;
}

const round = (value: number | undefined): number | undefined => (value === undefined ? undefined : Math.round(value));

export function renderSoakMarkdown(report: Omit<SoakReport, 'markdown'>): string {
  const s = report.settings;
  const lines = [
    `Soak ${report.date.slice(0, 16).replace('T', ' ')} UTC, mirrorflow ${report.revision.commit}${report.revision.srcChanged ? ' (with uncommitted changes)' : ''}: ` +
      `${s.rate.toLocaleString('en-US')} records/s of ${s.keyBytes + s.valueBytes + s.headers * 16} B for ${s.minutes} min over ${s.partitions} partitions, ` +
      `target broker restarted (${s.restartSignal}) every ${s.restartEveryMinutes} min. **${report.ok ? 'OK' : 'FAILED'}**` +
      (report.failure ? `: ${report.failure.split('\n')[0]}` : ''),
    '',
    `Records: ${report.records.source.toLocaleString('en-US')} on the source, ${report.records.target.toLocaleString('en-US')} on the target; ` +
      `**lost ${report.records.lost}**, duplicates ${report.records.duplicates.toLocaleString('en-US')}; ` +
      `restarts ${report.restarts.map((r) => `at ${r.atSeconds} s (down ${(r.downMs / 1000).toFixed(1)} s)`).join(', ') || 'none'}; ` +
      `everything delivered ${report.drainMs === undefined ? '–' : `${(report.drainMs / 1000).toFixed(1)} s`} after the producer ended; peak RSS ${report.peakRssMiB} MiB.`,
    ...(report.mismatches.length > 0 ? ['', `Mismatches: ${report.mismatches.slice(0, 5).join('; ')}`] : []),
    '',
    '| minute | records/s | p50 ms | p99 ms | max ms | RSS MiB | heap used MiB | CPU s | target restarts |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...report.minutes.map(
      (m) =>
        `| ${m.minute} | ${m.recordsPerSec.toLocaleString('en-US')} | ${m.latencyMs?.p50 ?? '–'} | ${m.latencyMs?.p99 ?? '–'} | ${m.latencyMs?.max ?? '–'} | ` +
        `${m.rssMiB ?? '–'} | ${m.heapUsedMiB ?? '–'} | ${m.cpuSeconds ?? '–'} | ${m.restarts || ''} |`,
    ),
  ];
  return lines.join('\n');
}
