import { ConfigError, type ConfigIssue } from '../../core/errors';
import { loadPipeline } from '../../pipeline';

export interface ValidateOptions {
  readonly files: readonly string[];
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
}

/**
 * Checks each file exactly as `run` would before connecting (same `--set`, same plugins), prints
 * `FILE: ok` for the good ones, and throws one ConfigError with the problems of all the bad ones,
 * which the entry point prints as `file:line:col: message at path (hint)` and exits with 78.
 */
export async function validateAction(
  options: ValidateOptions,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<void> {
  const issues: ConfigIssue[] = [];
  for (const file of options.files) {
    try {
      // The same loader as run: plugins, --set and transform options are checked alike.
      await loadPipeline(file, { set: options.set, pluginDirs: options.pluginDirs });
      print(`${file}: ok`);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
}
