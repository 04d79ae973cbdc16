import { drill, type DrillReport } from '../../pipeline/tools/drill';
import { renderSteps } from '../../pipeline/tools/change-steps';
import { textTable } from './text-table';
import { withPipelineTools, type ToolCommonOptions } from './tool-session';

export interface DrillOptions extends ToolCommonOptions {
  readonly group: string;
  readonly from?: string;
  readonly to?: string;
  readonly dryRun: boolean;
  readonly maxConsumeMs: number;
}

/**
 * `mirrorflow drill FILE --group G`: runs the drill and prints its report (a table, or one JSON
 * document with --json). SIGINT and SIGTERM end the drill early: its group is deleted, and the
 * command fails (exit 1) saying so.
 */
export async function drillAction(options: DrillOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const report = await withPipelineTools(options, (tools) =>
      drill(tools, {
        from: options.from,
        to: options.to,
        group: options.group,
        dryRun: options.dryRun,
        timeoutMs: options.timeoutMs,
        maxConsumeMs: options.maxConsumeMs,
        signal: controller.signal,
        progress: process.stderr.isTTY ? (read, remaining) => process.stderr.write(`\rdrill consumer: ${read} record(s) read, ${remaining} to go `) : undefined,
      }),
    );
    if (process.stderr.isTTY && !options.dryRun) process.stderr.write('\n');
    out.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderDrill(report));
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function seconds(s: number): string {
  return s < 10 ? `${s.toFixed(2)} s` : `${s.toFixed(1)} s`;
}

export function renderDrill(report: DrillReport): string {
  const lines = [
    `${report.dryRun ? 'Dry run: DR drill' : 'DR drill'} of group "${report.group}": failover from ${report.source} to ${report.target}, rehearsed by the drill group "${report.drillGroup}"`,
    `  drill point: ${report.startedAt}${report.finishedAt === undefined ? '' : `; finished ${report.finishedAt}`}`,
    `  group "${report.group}": on ${report.target} ${report.groupState.target}, on ${report.source} ${report.groupState.source ?? 'unknown (not reachable)'}; read only, never written`,
    '',
  ];
  if (report.rpo === null) lines.push('RPO: unknown (the source could not be read; see the warnings)');
  else {
    lines.push(
      report.rpo.records === 0
        ? `RPO: 0 records, 0 s: at the drill point ${report.target} held everything of ${report.source} on the group's topics`
        : `RPO: ${report.rpo.records} record(s) of ${report.source} not on ${report.target} at the drill point; the oldest written ${seconds(report.rpo.seconds)} before it`,
    );
    const rows = [['  TOPIC', 'PARTITION', 'SOURCE END', 'ON TARGET UP TO', 'MISSING', 'OLDEST MISSING']];
    for (const p of report.rpo.partitions)
      rows.push([
        `  ${p.topic}`,
        String(p.partition),
        String(p.sourceEnd),
        String(p.replicatedTo),
        String(p.missing),
        p.seconds === undefined ? '-' : `${seconds(p.seconds)} old`,
      ]);
    lines.push(textTable(rows).trimEnd());
  }
  if (report.rto !== undefined) {
    const ph = report.rto.phases;
    lines.push(
      '',
      `RTO: ${seconds(report.rto.seconds)} from the drill point until the drill consumer had read ${report.target} to its end (reading the clusters ${seconds(ph.prepareMs / 1000)}, ` +
        `committing the drill group ${seconds(ph.commitMs / 1000)}, consuming ${report.rto.recordsRead} record(s) ${seconds(ph.consumeMs / 1000)})`,
    );
  }
  lines.push(
    '',
    report.readAgain === undefined
      ? `Where the drill group would start (group "${report.group}"'s offsets as a failover would commit them):`
      : `Records group "${report.group}" would read again after a failover: ${report.readAgain}`,
  );
  const rows = [['  TOPIC', 'PARTITION', 'START', 'FROM', 'END', 'GROUP AT (SOURCE)', ...(report.readAgain === undefined ? [] : ['READ', 'READ AGAIN'])]];
  for (const p of report.partitions) {
    rows.push([
      `  ${p.topic}`,
      String(p.partition),
      String(p.start),
      p.startFrom,
      String(p.end),
      p.sourceOffset === undefined ? '-' : String(p.sourceOffset),
      ...(report.readAgain === undefined ? [] : [String(p.read), `${p.readAgain} (${p.readAgainBy})`]),
    ]);
  }
  lines.push(textTable(rows).trimEnd(), '');
  let text = `${lines.join('\n')}\n${renderSteps(report.steps, report.dryRun)}`;
  if (report.cleanup !== undefined) text += `Drill group "${report.drillGroup}" ${report.cleanup}; group "${report.group}" was not touched.\n`;
  if (report.warnings.length > 0) text += `\nWarnings:\n${report.warnings.map((w) => `  - ${w}`).join('\n')}\n`;
  return text;
}
