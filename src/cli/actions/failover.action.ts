import { FailoverRefusedError, executeFailover, planFailover, type FailoverAction, type FailoverPlan, type FailoverResult } from '../../pipeline/tools';
import type { GroupState } from '../../core/ports/cluster-admin';
import { textTable, timeWithAge } from './text-table';
import { withPipelineTools, type ToolCommonOptions } from './tool-session';
import { renderSteps } from '../../pipeline/tools/change-steps';

export interface FailoverOptions extends ToolCommonOptions {
  readonly group: string;
  readonly from?: string;
  readonly to?: string;
  readonly dryRun: boolean;
  readonly force: boolean;
}

/**
 * `mirrorflow failover FILE --group G`: commits the group's translated offsets on the flow's
 * target so its consumers can start there. Prints the plan per partition (source offset,
 * checkpoint, translated offset, current target offset, action), then commits unless
 * `--dry-run`. Throws FailoverRefusedError (exit 1) after printing when it cannot proceed.
 */
export async function failoverAction(options: FailoverOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  await withPipelineTools(options, async (tools) => {
    const plan = await planFailover(tools, { from: options.from, to: options.to, group: options.group, force: options.force, timeoutMs: options.timeoutMs });
    const result = plan.refusal === undefined && !options.dryRun ? await executeFailover(tools, plan) : undefined;
    out.write(options.json ? `${JSON.stringify(failoverJson(plan, options.dryRun, result), null, 2)}\n` : renderFailover(plan, options.dryRun, result));
    if (plan.refusal !== undefined) throw new FailoverRefusedError(plan.refusal);
  });
}

export function failoverJson(plan: FailoverPlan, dryRun: boolean, result: FailoverResult | undefined): object {
  return { dryRun, ...plan, committed: result?.committed.length ?? 0 };
}

export function renderFailover(plan: FailoverPlan, dryRun: boolean, result: FailoverResult | undefined, now: number = Date.now()): string {
  const lines = [
    `${dryRun ? 'Dry run: failover' : 'Failover'} of group "${plan.group}" from ${plan.source} to ${plan.target}`,
    `  checkpoints: ${plan.checkpointsTopic} on ${plan.target}`,
    `  group on ${plan.target}: ${describeState(plan.targetState)}`,
    `  group on ${plan.source}: ${plan.sourceState === undefined ? 'unknown (cluster not reachable)' : describeState(plan.sourceState)}`,
  ];
  const newest = Math.max(...plan.partitions.map((p) => p.checkpointedAt ?? 0));
  if (newest > 0) lines.push(`  newest checkpoint: ${timeWithAge(newest, now)}`);
  lines.push(
    `  SOURCE: the group's offset on ${plan.source} now; CHECKPOINT: its ${plan.source} offset in the newest checkpoint;`,
    `  TRANSLATED: that position on ${plan.target}, at or before it (MM2's translation steps back to the nearest offset sync:`,
    `  consumers may re-read some records, never skip one); TARGET: the group's offset on ${plan.target} before this failover.`,
    ...(plan.partitions.some((p) => p.preserved === true)
      ? [`  (preserved): the partition holds the source's offsets (offsets: preserve), so SOURCE itself is the position on ${plan.target}.`]
      : []),
    '',
  );
  const rows = [['TOPIC', 'PARTITION', 'SOURCE', 'CHECKPOINT', 'TRANSLATED', 'TARGET', 'ACTION']];
  for (const p of plan.partitions) {
    rows.push([
      p.topic,
      String(p.partition),
      show(p.sourceOffset),
      show(p.checkpointOffset),
      p.preserved === true ? `${show(p.translatedOffset)} (preserved)` : show(p.translatedOffset),
      show(p.targetOffset),
      describeAction(p.action, p.translatedOffset, dryRun || plan.refusal !== undefined),
    ]);
  }
  let text = `${lines.join('\n')}\n${textTable(rows)}`;
  if (plan.warnings.length > 0) text += `\nWarnings:\n${plan.warnings.map((w) => `  - ${w}`).join('\n')}\n`;
  const writes = plan.partitions.filter((p) => p.action === 'commit' || p.action === 'rewind').length;
  if (plan.refusal === undefined && (dryRun || result !== undefined))
    text += `\n${renderSteps(plan.steps, dryRun).replace(/Dry run: nothing was changed\.\n$/, '')}`;
  if (plan.refusal !== undefined) text += `\nRefused: nothing was written. ${plan.refusal}\n`;
  else if (dryRun) text += `\nDry run: nothing was written. Without --dry-run, ${writes} offset(s) would be committed on ${plan.target}.\n`;
  else if (result !== undefined) {
    text +=
      result.committed.length > 0
        ? `\nCommitted ${result.committed.length} offset(s) for group "${plan.group}" on ${plan.target}. Start its consumers on ${plan.target}.\n`
        : `\nNothing to commit: group "${plan.group}" on ${plan.target} is already at or past the translated offsets. Start its consumers on ${plan.target}.\n`;
  }
  return text;
}

function describeAction(action: FailoverAction, translated: number | undefined, hypothetical: boolean): string {
  switch (action) {
    case 'commit':
      return hypothetical ? `would commit ${translated}` : `committed ${translated}`;
    case 'rewind':
      return hypothetical ? `would rewind to ${translated} (--force)` : `rewound to ${translated} (--force)`;
    case 'unchanged':
      return 'already there';
    case 'keep-target':
      return 'kept: target is ahead (--force rewinds)';
    case 'missing-partition':
      return 'skipped: no such partition on target';
    case 'no-checkpoint':
      return 'skipped: no checkpoint';
  }
}

function describeState(state: GroupState): string {
  switch (state) {
    case 'empty':
      return 'empty (no active members)';
    case 'dead':
      return 'none (no such group there yet)';
    case 'unknown':
      return 'unknown';
    default:
      return `${state} (has active members)`;
  }
}

function show(value: number | undefined): string {
  return value === undefined ? '-' : String(value);
}
