import { ConfigError, type ConfigIssue } from '../../core/errors';
import { createTransformValidator, loadPipelineFile } from '../../config';

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
  const validateTransforms = createTransformValidator({ pluginDirs: options.pluginDirs });
  const issues: ConfigIssue[] = [];
  for (const file of options.files) {
    try {
      await loadPipelineFile(file, { set: options.set, validateTransforms });
      print(`${file}: ok`);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
}
