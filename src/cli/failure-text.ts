import { ConfigError, describeError, formatConfigIssue, type ConfigIssue } from '../core/errors';

/**
 * What the entry point prints for a command that failed: a configuration's problems one by one,
 * `file:line:col: key: message` with the hint under it, then one line saying how many; any other
 * failure as `mirrorflow: message`. Nothing for problems the command printed itself.
 */
export function failureText(error: unknown): string {
  if (!(error instanceof ConfigError)) return `mirrorflow: ${describeError(error)}\n`;
  if (error.reported) return '';
  return `${error.issues.map((issue) => `${formatConfigIssue(issue)}\n`).join('')}mirrorflow: ${problemCount(error.issues)}\n`;
}

/** `1 problem in pipeline.yaml`, `3 problems in 2 files`. */
export function problemCount(issues: readonly ConfigIssue[], what = 'problem'): string {
  const count = `${issues.length} ${what}${issues.length === 1 ? '' : 's'}`;
  const files = [...new Set(issues.flatMap((issue) => (issue.file === undefined ? [] : [issue.file])))];
  if (files.length === 0) return count;
  return files.length === 1 ? `${count} in ${files[0]}` : `${count} in ${files.length} files`;
}
