/**
 * What a command that changes clusters does, as an ordered list of steps: `--dry-run` prints the
 * list and changes nothing; a real run does the same steps in the same order and reports them
 * done. Each step names the cluster it changes and says what it writes, so an operator (or an
 * auditor reading a DR runbook's output) sees every change before it is made.
 */

/**
 * - `change`: writes to a cluster (creates, commits, deletes, produces);
 * - `wait`: waits for something another process does (replication, consumers stopping);
 * - `check`: reads, and refuses to go on when something is wrong.
 */
export type ChangeStepKind = 'change' | 'wait' | 'check';

export interface ChangeStep {
  readonly kind: ChangeStepKind;
  /** The cluster the step works on; absent for a wait that involves several. */
  readonly cluster?: string;
  /** What is done, a sentence with the names and numbers (topic, group, offsets). */
  readonly action: string;
}

export const change = (cluster: string, action: string): ChangeStep => ({ kind: 'change', cluster, action });
export const wait = (action: string, cluster?: string): ChangeStep => ({ kind: 'wait', ...(cluster === undefined ? {} : { cluster }), action });
export const check = (cluster: string | undefined, action: string): ChangeStep => ({ kind: 'check', ...(cluster === undefined ? {} : { cluster }), action });

/**
 * The steps as text, numbered: `Would, in order:` for a dry run (followed by the line saying
 * nothing was changed), `Done, in order:` after a real run.
 */
export function renderSteps(steps: readonly ChangeStep[], dryRun: boolean): string {
  if (steps.length === 0) return dryRun ? 'Would change nothing.\nDry run: nothing was changed.\n' : 'Nothing to change.\n';
  const width = String(steps.length).length;
  const lines = steps.map((s, i) => {
    const where = s.cluster === undefined ? '' : `on ${s.cluster}: `;
    const kind = s.kind === 'change' ? '' : `${s.kind}: `;
    return `  ${String(i + 1).padStart(width)}. ${kind}${where}${s.action}`;
  });
  return `${dryRun ? 'Would, in order:' : 'Done, in order:'}\n${lines.join('\n')}\n${dryRun ? 'Dry run: nothing was changed.\n' : ''}`;
}

/** Offsets as a step lists them: `primary.orders-0 → 40, primary.orders-1 → 25` (the first `max`, then how many more). */
export function describeOffsets(offsets: readonly { readonly topic: string; readonly partition: number; readonly offset: number }[], max = 20): string {
  const shown = offsets.slice(0, max).map((o) => `${o.topic}-${o.partition} → ${o.offset}`);
  return offsets.length > max ? `${shown.join(', ')} and ${offsets.length - max} more` : shown.join(', ');
}
