/**
 * Medians, ratios and the table of a benchmark: the text printed at the end, the Markdown put in
 * the README, and the JSON written next to them. Failed runs never count in a median; a
 * replicator whose every run failed shows FAILED instead of numbers.
 */
import type { RunResult } from './bench-run';
import type { ReplicatorName } from './replicators';
import { describeWorkload, type Workload, type WorkloadName } from './workloads';

export interface MachineInfo {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly node: string;
  readonly java: string;
  readonly kafka: string;
}

export interface ReplicatorSummary {
  readonly runs: number;
  readonly failed: number;
  /** Runs the harness could not set up; not the replicator's fault, not in any median. */
  readonly errors: number;
  readonly failures: readonly string[];
  readonly recordsPerSec?: number;
  readonly mibPerSec?: number;
  readonly steadyRecordsPerSec?: number;
  readonly firstRecordMs?: number;
  readonly cpuSecondsPerMillion?: number;
  /** MB (10^6 bytes) copied per CPU second of the replicator: its MB/s per core used (whole run, once running). */
  readonly mbPerCpuSecond?: number;
  readonly steadyMbPerCpuSecond?: number;
  readonly peakRssMiB?: number;
  readonly otherCpuSeconds?: number;
  readonly latencyMs?: { readonly p50?: number; readonly p99?: number; readonly max?: number };
  /** Many partitions: start-up (every partition served), caught up, idle CPU. */
  readonly allPartitionsMs?: number;
  readonly elapsedMs?: number;
  readonly idleCores?: number;
  /** Target log bytes ÷ source log bytes (≈ 1: the target kept the source's compression). */
  readonly targetBytesRatio?: number;
}

/** mirrorflow against one other, round by round. */
export interface Comparison {
  readonly against: ReplicatorName;
  /**
   * Throughput: mirrorflow ÷ other (> 1 = mirrorflow faster). Latency workload: p99 mirrorflow ÷
   * other (< 1 = mirrorflow lower). Many partitions: start-up time mirrorflow ÷ other (< 1 = sooner).
   */
  readonly perRound: readonly (number | undefined)[];
  readonly median?: number;
  /** Records/s once running (startup left out), mirrorflow ÷ other, per round; throughput workloads only. */
  readonly steadyPerRound?: readonly (number | undefined)[];
  readonly steadyMedian?: number;
  /** Median CPU s per million records, mirrorflow ÷ other (< 1 = mirrorflow cheaper). */
  readonly cpu?: number;
  /** Median peak RSS, mirrorflow ÷ other (< 1 = mirrorflow smaller). */
  readonly rss?: number;
  /** Median MB/s per core once running, mirrorflow ÷ other (> 1 = mirrorflow copies more per core). */
  readonly perCore?: number;
}

export interface WorkloadSummary {
  readonly workload: WorkloadName;
  readonly kind: Workload['kind'];
  readonly description: string;
  readonly replicators: Partial<Record<ReplicatorName, ReplicatorSummary>>;
  readonly comparisons: readonly Comparison[];
}

export interface BenchReport {
  readonly schema: 1;
  readonly date: string;
  readonly machine: MachineInfo;
  readonly settings: Record<string, unknown>;
  readonly rounds: number;
  readonly summaries: readonly WorkloadSummary[];
  readonly runs: readonly RunResult[];
  readonly ok: boolean;
  readonly text: string;
  readonly markdown: string;
}

export function median(values: readonly (number | undefined)[]): number | undefined {
  const sorted = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The first line of a failure, cut to a length a table note can carry; the JSON keeps it whole. */
function shortFailure(failure: string | undefined): string {
  const line = (failure ?? 'failed').split('\n')[0]!;
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}

function summarizeReplicator(runs: readonly RunResult[]): ReplicatorSummary {
  const ok = runs.filter((r) => r.status === 'ok');
  const pick = (f: (r: RunResult) => number | undefined): number | undefined => median(ok.map(f));
  return {
    runs: runs.length,
    failed: runs.filter((r) => r.status === 'failed').length,
    errors: runs.filter((r) => r.status === 'error').length,
    failures: runs
      .filter((r) => r.status !== 'ok')
      .map((r) => `${r.status === 'failed' ? 'FAILED' : 'ERROR (harness)'} round ${r.round}: ${shortFailure(r.failure)} (${r.dir})`),
    recordsPerSec: pick((r) => r.recordsPerSec),
    mibPerSec: pick((r) => r.mibPerSec),
    steadyRecordsPerSec: pick((r) => r.steadyRecordsPerSec),
    firstRecordMs: pick((r) => r.firstRecordMs),
    cpuSecondsPerMillion: pick((r) => r.cpuSecondsPerMillion),
    mbPerCpuSecond: pick((r) => r.mbPerCpuSecond),
    steadyMbPerCpuSecond: pick((r) => r.steadyMbPerCpuSecond),
    peakRssMiB: pick((r) => r.peakRssMiB),
    allPartitionsMs: pick((r) => r.allPartitionsMs),
    elapsedMs: pick((r) => r.elapsedMs),
    idleCores: pick((r) => r.idleCores),
    otherCpuSeconds: pick((r) => r.otherCpuSeconds),
    targetBytesRatio: pick((r) => r.targetBytesRatio),
    latencyMs: ok.some((r) => r.latencyMs)
      ? { p50: pick((r) => r.latencyMs?.p50), p99: pick((r) => r.latencyMs?.p99), max: pick((r) => r.latencyMs?.max) }
      : undefined,
  };
}

function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined || b === 0 ? undefined : a / b;
}

export function summarize(workload: Workload, runs: readonly RunResult[], rounds: number): WorkloadSummary {
  const mine = runs.filter((r) => r.workload === workload.name);
  const names = [...new Set(mine.map((r) => r.replicator))];
  const replicators: Partial<Record<ReplicatorName, ReplicatorSummary>> = {};
  for (const name of names) replicators[name] = summarizeReplicator(mine.filter((r) => r.replicator === name));
  const comparisons: Comparison[] = [];
  const mf = replicators.mirrorflow;
  const okRun = (name: ReplicatorName, round: number): RunResult | undefined =>
    mine.find((r) => r.replicator === name && r.round === round && r.status === 'ok');
  if (mf !== undefined) {
    for (const against of names.filter((n) => n !== 'mirrorflow')) {
      const other = replicators[against]!;
      const perRound = Array.from({ length: rounds }, (_, i) => {
        const a = okRun('mirrorflow', i + 1);
        const b = okRun(against, i + 1);
        if (workload.kind === 'many') return ratio(a?.allPartitionsMs, b?.allPartitionsMs);
        return workload.kind === 'latency' ? ratio(a?.latencyMs?.p99, b?.latencyMs?.p99) : ratio(a?.recordsPerSec, b?.recordsPerSec);
      });
      const steadyPerRound =
        workload.kind !== 'throughput'
          ? undefined
          : Array.from({ length: rounds }, (_, i) => ratio(okRun('mirrorflow', i + 1)?.steadyRecordsPerSec, okRun(against, i + 1)?.steadyRecordsPerSec));
      comparisons.push({
        against,
        perRound,
        median: median(perRound),
        steadyPerRound,
        steadyMedian: steadyPerRound === undefined ? undefined : median(steadyPerRound),
        cpu: ratio(mf.cpuSecondsPerMillion, other.cpuSecondsPerMillion),
        rss: ratio(mf.peakRssMiB, other.peakRssMiB),
        perCore: workload.kind === 'throughput' ? ratio(mf.steadyMbPerCpuSecond, other.steadyMbPerCpuSecond) : undefined,
      });
    }
  }
  return { workload: workload.name, kind: workload.kind, description: describeWorkload(workload), replicators, comparisons };
}

// ---------------------------------------------------------------------------------------------
// Rendering

const LABEL: Record<ReplicatorName, string> = {
  mirrorflow: 'mirrorflow',
  'mirrorflow-baseline': 'mirrorflow baseline (--baseline)',
  'mirrorflow-metrics': 'mirrorflow, /metrics scraped every 1 s',
  'mirrorflow-eos': 'mirrorflow, delivery exactly_once',
  'mirrorflow-transform': 'mirrorflow, JSON converter + insert_field',
  'mirrorflow-provenance': 'mirrorflow, provenance headers',
  'mm2-default': 'MM2 default',
  'mm2-tuned': 'MM2 tuned',
  limit: 'limit (ProducerPerformance)',
  ceiling: 'ceiling (target broker, 4 producers)',
};

const int = (v: number | undefined): string => (v === undefined ? '–' : Math.round(v).toLocaleString('en-US'));
const dec = (v: number | undefined, digits = 1): string => (v === undefined ? '–' : v.toFixed(digits));
const secs = (ms: number | undefined): string => (ms === undefined ? '–' : (ms / 1000).toFixed(1));
const times = (v: number | undefined): string => (v === undefined ? '–' : `${v.toFixed(2)}×`);

interface Table {
  readonly title: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly notes: readonly string[];
}

function workloadTable(summary: WorkloadSummary): Table {
  const latency = summary.kind === 'latency';
  const many = summary.kind === 'many';
  const header = latency
    ? ['', 'p50 ms', 'p99 ms', 'max ms', 'records/s', 'CPU s / M records', 'peak RSS MiB', 'ok runs']
    : many
      ? ['', 'every partition s', 'first record s', 'caught up s', 'idle CPU cores', 'peak RSS MiB', 'ok runs']
      : [
          '',
          'records/s',
          'MiB/s',
          'records/s once running',
          'first record s',
          'CPU s / M records',
          'MB/s per core once running',
          'peak RSS MiB',
          'target ÷ source bytes',
          'ok runs',
        ];
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const name of Object.keys(LABEL) as ReplicatorName[]) {
    const s = summary.replicators[name];
    if (s === undefined) continue;
    const ok = `${s.runs - s.failed - s.errors}/${s.runs}`;
    if (s.failed + s.errors === s.runs) {
      rows.push([LABEL[name], s.failed > 0 ? 'FAILED' : 'ERROR', ...header.slice(2, -1).map(() => ''), ok]);
    } else if (many) {
      rows.push([LABEL[name], secs(s.allPartitionsMs), secs(s.firstRecordMs), secs(s.elapsedMs), dec(s.idleCores, 3), int(s.peakRssMiB), ok]);
    } else if (latency) {
      rows.push([
        LABEL[name],
        int(s.latencyMs?.p50),
        int(s.latencyMs?.p99),
        int(s.latencyMs?.max),
        int(s.recordsPerSec),
        dec(s.cpuSecondsPerMillion),
        int(s.peakRssMiB),
        ok,
      ]);
    } else {
      rows.push([
        LABEL[name],
        int(s.recordsPerSec),
        dec(s.mibPerSec),
        int(s.steadyRecordsPerSec),
        secs(s.firstRecordMs),
        dec(s.cpuSecondsPerMillion),
        dec(s.steadyMbPerCpuSecond),
        int(s.peakRssMiB),
        dec(s.targetBytesRatio, 2),
        ok,
      ]);
    }
    for (const failure of s.failures) notes.push(`${LABEL[name]}: ${failure}`);
  }
  const perRound = (values: readonly (number | undefined)[]): string => values.map((v) => (v === undefined ? '–' : v.toFixed(2))).join(' ');
  for (const c of summary.comparisons) {
    const what = latency ? 'p99' : many ? 'time until every partition is served' : 'records/s';
    const steady = c.steadyPerRound === undefined ? '' : `; once running ${times(c.steadyMedian)} (${perRound(c.steadyPerRound)})`;
    const tail =
      c.against === 'limit' || c.against === 'ceiling' || many
        ? many
          ? `; RSS ${times(c.rss)}`
          : ''
        : `; CPU/M ${times(c.cpu)}${c.perCore === undefined ? '' : `; MB/s per core ${times(c.perCore)}`}; RSS ${times(c.rss)}`;
    notes.push(`mirrorflow ÷ ${LABEL[c.against]}: ${what} ${times(c.median)} (rounds ${perRound(c.perRound)})${steady}${tail}`);
  }
  return { title: `${summary.workload}: ${summary.description}`, header, rows, notes };
}

function textTable(table: Table): string {
  const widths = table.header.map((h, i) => Math.max(h.length, ...table.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [table.title, `  ${line(table.header)}`, ...table.rows.map((r) => `  ${line(r)}`), ...table.notes.map((n) => `  ${n}`)].join('\n');
}

function markdownTable(table: Table): string {
  const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [
    `**${table.title}**`,
    '',
    row(table.header),
    row(table.header.map((_, i) => (i === 0 ? '---' : '---:'))),
    ...table.rows.map(row),
    '',
    ...table.notes.map((n) => `- ${n}`),
  ].join('\n');
}

export function headline(
  date: string,
  machine: MachineInfo,
  rounds: number,
  runs: readonly RunResult[] = [],
  revision?: { commit: string; srcChanged: boolean },
): string {
  const commit = revision === undefined ? '' : `mirrorflow ${revision.commit}${revision.srcChanged ? ' (with uncommitted changes in src/)' : ''}, `;
  return (
    `${date.slice(0, 10)}, ${commit}${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB.toFixed(1)} GiB, ` +
    `Linux ${machine.kernel}, Node ${machine.node}, ${machine.java}, Kafka ${machine.kafka}; ` +
    `medians of ${rounds} round${rounds === 1 ? '' : 's'}${backgroundLoad(runs)}`
  );
}

/**
 * How busy the machine was with other work while runs were timed: others' CPU seconds per second
 * of run, median over runs. Near 0 on a quiet machine; a shared one shows it here.
 */
export function backgroundLoad(runs: readonly RunResult[]): string {
  const load = median(runs.map((r) => (r.otherCpuSeconds === undefined || !r.elapsedMs ? undefined : r.otherCpuSeconds / (r.elapsedMs / 1000))));
  return load === undefined ? '' : `; other processes used ${load.toFixed(2)} cores meanwhile (median over runs)`;
}

/**
 * The report again from its own runs, with this version's summaries and rendering: for a table
 * whose format changed after the runs were measured.
 */
export function rerender(report: BenchReport): BenchReport {
  const workloads = (report.settings['workloads'] ?? []) as Workload[];
  const summaries = workloads.map((w) => summarize(w, report.runs, report.rounds));
  const head = headline(
    report.date,
    report.machine,
    report.rounds,
    report.runs,
    report.settings['revision'] as { commit: string; srcChanged: boolean } | undefined,
  );
  return { ...report, summaries, text: renderText(summaries, head), markdown: renderMarkdown(summaries, head) };
}

export function renderText(summaries: readonly WorkloadSummary[], head: string): string {
  return [`mirrorflow benchmark — ${head}`, '', ...summaries.map((s) => `${textTable(workloadTable(s))}\n`)].join('\n');
}

export function renderMarkdown(summaries: readonly WorkloadSummary[], head: string): string {
  return [`Measured ${head}.`, '', ...summaries.map((s) => `${markdownTable(workloadTable(s))}\n`)].join('\n');
}
