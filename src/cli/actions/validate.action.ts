import { readFile } from 'node:fs/promises';
import { isConnectorConfig } from '../../config';
import { ConfigError, formatConfigIssue, type ConfigIssue } from '../../core/errors';
import { checkPipeline } from '../../pipeline';

export interface ValidateOptions {
  readonly files: readonly string[];
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly unknownKeys?: 'error' | 'warn';
  /** false (`--no-resolve`): check `${…}` references and their providers, not their values, nor the files the pipeline names. */
  readonly resolve?: boolean;
  /** `--json`: one document on stdout, nothing else printed. */
  readonly json?: boolean;
  /** `--strict`: warnings fail the check too. */
  readonly strict?: boolean;
}

/** What `validate --json` prints: every file's verdict, then every problem and warning. */
export interface ValidateReport {
  readonly ok: boolean;
  readonly files: readonly { readonly file: string; readonly ok: boolean; readonly problems: number; readonly warnings: number; readonly resolved: boolean }[];
  readonly problems: readonly IssueJson[];
  readonly warnings: readonly IssueJson[];
}

interface IssueJson {
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
  readonly key: string | null;
  readonly message: string;
  readonly hint: string | null;
}

/**
 * Checks each file (YAML pipeline or MM2's mm2.properties; MM2 connector configs together) exactly
 * as `run` would before connecting (same `--set`, same plugins, the same files read), printing for
 * each its warnings, its problems, then its verdict: `FILE: ok` on stdout, or `FILE: N problems`
 * on stderr. Fails with a ConfigError (exit 78, printed already) when a file has problems, or
 * with `strict` warnings.
 */
export async function validateAction(
  options: ValidateOptions,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const report: { files: ValidateReport['files'][number][]; problems: ConfigIssue[]; warnings: ConfigIssue[] } = { files: [], problems: [], warnings: [] };
  const resolve = options.resolve !== false;
  for (const group of await groupConnectorConfigs(options.files)) {
    const file = typeof group === 'string' ? group : group.join(', ');
    let problems: readonly ConfigIssue[] = [];
    let warnings: readonly ConfigIssue[] = [];
    let complete = resolve;
    try {
      // The same loader as run: plugins, --set, transform options and the files a pipeline names alike.
      ({ warnings, complete } = await checkPipeline(group, { set: options.set, pluginDirs: options.pluginDirs, unknownKeys: options.unknownKeys, resolve }));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.issues;
    }
    const failed = problems.length > 0 || (options.strict === true && warnings.length > 0);
    report.files.push({ file, ok: !failed, problems: problems.length, warnings: warnings.length, resolved: resolve });
    report.problems.push(...problems);
    report.warnings.push(...warnings);
    if (options.json === true) continue;
    for (const warning of warnings) warn(formatConfigIssue(warning, 'warning'));
    for (const problem of problems) warn(formatConfigIssue(problem));
    const notes = [
      warnings.length === 0 ? undefined : `${count(warnings.length, 'warning')}${options.strict === true ? ', failed by --strict' : ''}`,
      resolve ? undefined : complete ? '${…} not resolved' : '${…} not resolved; checks that need their values skipped',
    ].filter((note): note is string => note !== undefined);
    const suffix = notes.length === 0 ? '' : ` (${notes.join('; ')})`;
    if (problems.length > 0) warn(`${file}: ${count(problems.length, 'problem')}${suffix}`);
    else if (failed) warn(`${file}: ${count(warnings.length, 'warning')} (--strict)`);
    else print(`${file}: ok${suffix}`);
  }
  const ok = report.files.every((f) => f.ok);
  if (options.json === true) {
    const document: ValidateReport = { ok, files: report.files, problems: report.problems.map(toJson), warnings: report.warnings.map(toJson) };
    print(JSON.stringify(document, null, 2));
  } else if (!ok && report.files.length > 1) {
    warn(`mirrorflow: ${report.files.filter((f) => !f.ok).length} of ${report.files.length} files failed`);
  }
  if (!ok) throw new ConfigError(options.strict === true ? [...report.problems, ...report.warnings] : report.problems, { reported: true });
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

function toJson(issue: ConfigIssue): IssueJson {
  return {
    file: issue.file ?? null,
    line: issue.line ?? null,
    column: issue.column ?? null,
    key: issue.path ?? null,
    message: issue.message,
    hint: issue.hint ?? null,
  };
}

/**
 * Each file on its own, except MM2 connector configs: those make one pipeline together, as run
 * reads them, checked where the first of them was given, so problems come in the order of the files.
 */
async function groupConnectorConfigs(files: readonly string[]): Promise<(string | string[])[]> {
  const connectors: string[] = [];
  const groups: (string | string[])[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => undefined); // unreadable: checked alone, which reports why
    if (text === undefined || !isConnectorConfig(file, text)) groups.push(file);
    else if (connectors.push(file) === 1) groups.push(connectors);
  }
  return groups;
}
