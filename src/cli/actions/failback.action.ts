import { failback, type FailbackReport } from '../../pipeline/tools/failback';
import { renderSteps } from '../../pipeline/tools/change-steps';
import { textTable } from './text-table';
import { withPipelineTools, type ToolCommonOptions } from './tool-session';

export interface FailbackOptions extends ToolCommonOptions {
  readonly groups: readonly string[];
  readonly from?: string;
  readonly to?: string;
  readonly dryRun: boolean;
  readonly force: boolean;
  readonly quietMs: number;
}

/** `mirrorflow failback FILE`: prints what was (or would be) done per partition and group; a refusal throws FailoverRefusedError (exit 1). */
export async function failbackAction(options: FailbackOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const report = await withPipelineTools(options, (tools) =>
    failback(tools, {
      from: options.from,
      to: options.to,
      groups: options.groups,
      dryRun: options.dryRun,
      force: options.force,
      quietMs: options.quietMs,
      timeoutMs: options.timeoutMs,
    }),
  );
  out.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderFailback(report));
}

export function renderFailback(report: FailbackReport): string {
  const lines = [`${report.dryRun ? 'Dry run: failback' : 'Failback'} from ${report.target} to ${report.source}`, ''];
  const rows = [
    ['TOPIC', 'PARTITION', 'OFFSETS', `${report.source} LOG`, `${report.target} LOG`, 'FAILOVER POINT', 'NEVER REACHED TARGET', 'COPIED BACK', 'ACTION'],
  ];
  for (const p of report.partitions) {
    rows.push([
      p.topic,
      String(p.partition),
      p.preserved ? 'preserved' : 'translated',
      `${p.sourceStart}-${p.sourceEnd}`,
      `${p.targetStart}-${p.targetEnd}`,
      String(p.failoverPoint),
      String(p.unmirrored),
      p.copied === undefined ? String(p.copyBack) : `${p.copied.records}${p.copied.fillers > 0 ? ` (+${p.copied.fillers} fillers)` : ''}`,
      p.action,
    ]);
  }
  lines.push(textTable(rows).trimEnd());
  for (const r of report.restored)
    lines.push(
      `Truncated and restored: ${r.topic}; its ${r.saved} record(s) not kept are saved in ${r.savedTo} (offsets in the header mirrorflow.failback.offset).`,
    );
  for (const g of report.groups) {
    lines.push('', `Group "${g.group}" (on ${report.target}: ${g.stateOnTarget}; on ${report.source}: ${g.stateOnSource}):`);
    const groupRows = [['  TOPIC', 'PARTITION', `ON ${report.target.toUpperCase()}`, `ON ${report.source.toUpperCase()}`, 'HOW']];
    for (const o of g.offsets) groupRows.push([`  ${o.topic}`, String(o.partition), String(o.from), String(o.offset), o.how]);
    lines.push(textTable(groupRows).trimEnd());
  }
  let text = `${lines.join('\n')}\n\n${renderSteps(report.steps, report.dryRun)}`;
  if (report.warnings.length > 0) text += `\nWarnings:\n${report.warnings.map((w) => `  - ${w}`).join('\n')}\n`;
  if (!report.dryRun)
    text += `\nStart the consumers${report.groups.length > 0 ? ` of ${report.groups.map((g) => `"${g.group}"`).join(', ')}` : ''} and the producers on ${report.source}, then the flow ${report.source}->${report.target} again (mirrorflow run).\n`;
  return text;
}
