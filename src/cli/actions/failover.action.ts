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
  const share = plan.groupType === 'share';
  const what = share ? 'share group' : 'group';
  const lines = [
    `${dryRun ? 'Dry run: failover' : 'Failover'} of ${what} "${plan.group}" from ${plan.source} to ${plan.target}`,
    ...(share ? [] : [`  checkpoints: ${plan.checkpointsTopic} on ${plan.target}`]),
    `  ${what} on ${plan.target}: ${describeState(plan.targetState)}`,
    `  ${what} on ${plan.source}: ${plan.sourceState === undefined ? 'unknown (cluster not reachable)' : describeState(plan.sourceState)}`,
  ];
  const newest = Math.max(...plan.partitions.map((p) => p.checkpointedAt ?? 0));
  // An old checkpoint of a group that has not moved since is as good as a new one: say so.
  const checkpointed = plan.partitions.filter((p) => p.checkpointOffset !== undefined && p.preserved === undefined);
  const current = checkpointed.length > 0 && checkpointed.every((p) => p.sourceOffset === p.checkpointOffset);
  if (newest > 0) lines.push(`  newest checkpoint: ${timeWithAge(newest, now)}${current ? `, at the group's offsets on ${plan.source} now` : ''}`);
  if (share) {
    lines.push(
      `  SOURCE: the share group's start offset on ${plan.source} now (every record before it is done with there); TRANSLATED: that`,
      `  position on ${plan.target}, at or before it (through the flow's offset syncs: records may be delivered again, never skipped);`,
      `  TARGET: the group's start offset on ${plan.target} before this failover. Records after a start offset that were acknowledged`,
      `  one by one on ${plan.source} are delivered again on ${plan.target}: Kafka offers no way to read or set them.`,
    );
  } else {
    lines.push(
      `  SOURCE: the group's offset on ${plan.source} now; CHECKPOINT: its ${plan.source} offset in the newest checkpoint;`,
      `  TRANSLATED: that position on ${plan.target}, at or before it (MM2's translation steps back to the nearest offset sync:`,
      `  consumers may re-read some records, never skip one); TARGET: the group's offset on ${plan.target} before this failover.`,
    );
  }
  if (plan.partitions.some((p) => p.preserved === true))
    lines.push(`  (preserved): the partition holds the source's offsets (offsets: preserve), so SOURCE itself is the position on ${plan.target}.`);
  lines.push('');
  const rows = [
    share
      ? ['TOPIC', 'PARTITION', 'SOURCE', 'TRANSLATED', 'TARGET', 'ACTION']
      : ['TOPIC', 'PARTITION', 'SOURCE', 'CHECKPOINT', 'TRANSLATED', 'TARGET', 'ACTION'],
  ];
  for (const p of plan.partitions) {
    rows.push([
      p.topic,
      String(p.partition),
      show(p.sourceOffset),
      ...(share ? [] : [show(p.checkpointOffset)]),
      p.preserved === true ? `${show(p.translatedOffset)} (preserved)` : show(p.translatedOffset),
      show(p.targetOffset),
      describeAction(p.action, p.translatedOffset, dryRun || plan.refusal !== undefined, share),
    ]);
  }
  let text = `${lines.join('\n')}\n${textTable(rows)}`;
  if (plan.warnings.length > 0) text += `\nWarnings:\n${plan.warnings.map((w) => `  - ${w}`).join('\n')}\n`;
  const writes = plan.partitions.filter((p) => p.action === 'commit' || p.action === 'rewind').length;
  const offsets = share ? 'start offset(s)' : 'offset(s)';
  const consumers = share ? 'share consumers' : 'consumers';
  if (plan.refusal === undefined && (dryRun || result !== undefined))
    text += `\n${renderSteps(plan.steps, dryRun).replace(/Dry run: nothing was changed\.\n$/, '')}`;
  if (plan.refusal !== undefined) text += `\nRefused: nothing was written. ${plan.refusal}\n`;
  else if (dryRun)
    text += `\nDry run: nothing was written. Without --dry-run, ${writes} ${offsets} would be ${share ? 'set' : 'committed'} on ${plan.target}.\n`;
  else if (result !== undefined) {
    text +=
      result.committed.length > 0
        ? `\n${share ? 'Set' : 'Committed'} ${result.committed.length} ${offsets} for ${what} "${plan.group}" on ${plan.target}. Start its ${consumers} on ${plan.target}.\n`
        : `\nNothing to ${share ? 'set' : 'commit'}: ${what} "${plan.group}" on ${plan.target} is already at or past the translated ${share ? 'start offsets' : 'offsets'}. Start its ${consumers} on ${plan.target}.\n`;
  }
  return text;
}

function describeAction(action: FailoverAction, translated: number | undefined, hypothetical: boolean, share: boolean): string {
  switch (action) {
    case 'commit':
      if (share) return hypothetical ? `would set ${translated}` : `set ${translated}`;
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
    case 'not-translated':
      return 'skipped: no offset sync translates it';
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
