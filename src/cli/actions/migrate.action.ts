import { cutover, finish, migrationReport, type CutoverResult, type FinishResult, type MigrationReport } from '../../pipeline/tools';
import { textTable, timeWithAge } from './text-table';
import { withPipelineTools, type ToolCommonOptions } from './tool-session';
import { renderSteps } from '../../pipeline/tools/change-steps';

export interface MigrateOptions extends ToolCommonOptions {
  readonly from?: string;
  readonly to?: string;
}

export interface MigrateCutoverOptions extends MigrateOptions {
  readonly groups: readonly string[];
  readonly dryRun: boolean;
  readonly waitMs: number;
}

export interface MigrateFinishOptions extends MigrateOptions {
  readonly dryRun: boolean;
  readonly waitMs: number;
  readonly force: boolean;
  readonly quietMs: number;
}

/** `mirrorflow migrate FILE status`: reads both clusters, changes nothing. */
export async function migrateStatusAction(options: MigrateOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  await withPipelineTools(options, async (tools) => {
    const report = await migrationReport(tools, { from: options.from, to: options.to });
    out.write(options.json ? `${JSON.stringify(reportJson(report), null, 2)}\n` : renderReport(report));
  });
}

/** `mirrorflow migrate FILE cutover --group G…`; a refusal or a wait that ran out throws MigrationRefusedError (exit 1) naming the group or partition. */
export async function migrateCutoverAction(options: MigrateCutoverOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  await withPipelineTools(options, async (tools) => {
    const result = await cutover(tools, {
      from: options.from,
      to: options.to,
      groups: options.groups,
      dryRun: options.dryRun,
      waitMs: options.waitMs,
      timeoutMs: options.timeoutMs,
      progress: (waiting) => process.stderr.write(`Waiting for:\n${waiting.map((w) => `  - ${w}`).join('\n')}\n`),
    });
    out.write(
      options.json
        ? `${JSON.stringify({ dryRun: options.dryRun, ...result, report: reportJson(result.report) }, null, 2)}\n`
        : renderCutover(result, options.dryRun),
    );
  });
}

/** `mirrorflow migrate FILE finish`. */
export async function migrateFinishAction(options: MigrateFinishOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  await withPipelineTools(options, async (tools) => {
    const result = await finish(tools, {
      from: options.from,
      to: options.to,
      dryRun: options.dryRun,
      waitMs: options.waitMs,
      timeoutMs: options.timeoutMs,
      force: options.force,
      quietMs: options.quietMs,
      progress: (waiting) => process.stderr.write(`Waiting for:\n${waiting.map((w) => `  - ${w}`).join('\n')}\n`),
    });
    out.write(options.json ? `${JSON.stringify({ dryRun: options.dryRun, ...result, report: reportJson(result.report) }, null, 2)}\n` : renderFinish(result));
  });
}

export function reportJson(report: MigrationReport): object {
  return { ...report, state: { groups: Object.fromEntries(report.state.groups), ...(report.state.finish ? { finish: report.state.finish } : {}) } };
}

export function renderReport(report: MigrationReport, now: number = Date.now()): string {
  const lines = [`Migration of ${report.source} -> ${report.target} (state in ${report.stateTopic} on ${report.target})`];
  const finish = report.state.finish;
  lines.push(
    finish === undefined
      ? '  flow: replicating'
      : finish.state === 'stopping'
        ? `  flow: stopping for good (finish asked ${timeWithAge(finish.at, now)})`
        : `  flow: finished ${timeWithAge(finish.at, now)}`,
    '',
  );
  const rows = [['TOPIC', 'PARTITION', 'TARGET TOPIC', 'OFFSETS', 'SOURCE END', 'REPLICATED TO', 'LAG']];
  for (const p of report.partitions) {
    const offsets = p.preserved ? 'preserved' : `translated: ${p.reason}${p.fallbackOffset === undefined ? '' : ` (from source offset ${p.fallbackOffset})`}`;
    rows.push([p.topic, String(p.partition), p.remoteTopic, offsets, String(p.sourceEnd), String(p.replicatedTo), String(p.lag)]);
  }
  let text = `${lines.join('\n')}\n${textTable(rows)}`;
  const groups = [['GROUP', 'ON TARGET', 'ON SOURCE', 'CUTOVER', 'READY']];
  for (const g of report.groups) {
    const cut =
      g.cutover === undefined ? '-' : g.cutover === 'cut-over' ? `cut over ${timeWithAge(report.state.groups.get(g.group)!.at, now)}` : 'begun (sync stopped)';
    groups.push([g.group, g.targetState, g.sourceState, cut, g.ready ? 'ready' : `not ready: ${g.reasons.join('; ')}`]);
  }
  text += report.groups.length === 0 ? '\nNo consumer groups with offsets on the replicated topics.\n' : `\n${textTable(groups)}`;
  return text;
}

function repoint(result: CutoverResult): string {
  const { report } = result;
  return (
    `\nRepoint the consumers of ${result.groups.map((g) => `"${g.group}"`).join(', ')} to ${report.target}:\n` +
    `  bootstrap servers: ${report.targetBootstrap.join(',')}\n` +
    `  topics:\n${result.topics.map((t) => `    ${t.source} -> ${t.target}`).join('\n')}\n`
  );
}

export function renderCutover(result: CutoverResult, dryRun: boolean): string {
  const lines: string[] = [`${dryRun ? 'Dry run: cutover' : 'Cutover'} to ${result.report.target}`];
  for (const g of result.groups) {
    if (g.outcome === 'already') {
      lines.push(`  group "${g.group}": already cut over (${g.committed.length} offset(s) committed then); nothing changed`);
      continue;
    }
    const planned = g.plan?.partitions ?? [];
    const rows = [['TOPIC', 'PARTITION', 'SOURCE', 'TARGET OFFSET', 'HOW']];
    for (const p of planned)
      rows.push([
        p.topic,
        String(p.partition),
        String(p.sourceOffset ?? '-'),
        String(p.translatedOffset ?? '-'),
        p.preserved ? 'as on the source (preserved)' : `translated (${p.action})`,
      ]);
    if (g.outcome === 'would') {
      const group = result.report.groups.find((r) => r.group === g.group);
      lines.push(
        `  group "${g.group}": would stop its offset sync, wait until it is ready (${group?.ready === true ? 'it is now' : `now: ${group?.reasons.join('; ')}`}), then commit:`,
        ...(g.refusal === undefined ? [] : [`    (no plan yet: ${g.refusal})`]),
        textTable(rows).trimEnd().replace(/^/gm, '    '),
      );
    } else {
      lines.push(
        `  group "${g.group}": cut over; ${g.committed.length} offset(s) committed on ${result.report.target}`,
        textTable(rows).trimEnd().replace(/^/gm, '    '),
      );
    }
  }
  return `${lines.join('\n')}\n${repoint(result)}\n${renderSteps(result.steps, dryRun)}`;
}

export function renderFinish(result: FinishResult): string {
  const { report } = result;
  if (result.outcome === 'would') {
    const written = result.written.map((p) => `${p.topic}-${p.partition}`);
    return (
      `Dry run: finish of ${report.source} -> ${report.target}\n` +
      (written.length > 0
        ? `  the source still gets records on ${written.join(', ')}: finish would refuse (or --force)\n`
        : '  the source topics got no records while watched\n') +
      `  would wait until nothing is left to replicate (lag now: ${report.partitions.reduce((s, p) => s + p.lag, 0)} record(s)), stop the flow in every process for good, and wait for them to stop.\n` +
      renderSteps(result.steps, true)
    );
  }
  const topics = new Map<string, { remote: string; partitions: number; preserved: number; records: number }>();
  // records: the sum of the source partitions' end offsets (transaction markers count too).
  for (const p of report.partitions) {
    const t = topics.get(p.topic) ?? { remote: p.remoteTopic, partitions: 0, preserved: 0, records: 0 };
    t.partitions++;
    if (p.preserved) t.preserved++;
    t.records += p.sourceEnd;
    topics.set(p.topic, t);
  }
  const rows = [['SOURCE TOPIC', 'TARGET TOPIC', 'PARTITIONS', 'OFFSETS PRESERVED', 'SOURCE END (SUM)']];
  for (const [topic, t] of topics) rows.push([topic, t.remote, String(t.partitions), `${t.preserved}/${t.partitions}`, String(t.records)]);
  return (
    `${result.outcome === 'already' ? 'Already finished' : 'Finished'}: the flow ${report.source} -> ${report.target} is stopped for good; no process of the pipeline runs it, or starts it again.\n` +
    `The target topics are ordinary topics, written by your producers only from now on. Remove the flow from the pipeline file.\n\n${textTable(rows)}` +
    (result.steps.length > 0 ? `\n${renderSteps(result.steps, false)}` : '')
  );
}
