import { readFile } from 'node:fs/promises';
import { isConnectorConfig } from '../../config';
import { ConfigError, formatConfigIssue, type ConfigIssue } from '../../core/errors';
import { loadPipeline } from '../../pipeline';

export interface ValidateOptions {
  readonly files: readonly string[];
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
}

/**
 * Checks each file (YAML pipeline or MM2's mm2.properties; MM2 connector configs together) exactly as `run` would before
 * connecting (same `--set`, same plugins), prints `FILE: ok` for the good ones and their warnings,
 * and throws one ConfigError with the problems of all the bad ones, which the entry point prints as
 * `file:line:col: message at path (hint)` and exits with 78.
 */
export async function validateAction(
  options: ValidateOptions,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const issues: ConfigIssue[] = [];
  for (const file of await groupConnectorConfigs(options.files)) {
    try {
      // The same loader as run: plugins, --set and transform options are checked alike.
      const { warnings } = await loadPipeline(file, { set: options.set, pluginDirs: options.pluginDirs });
      print(`${typeof file === 'string' ? file : file.join(', ')}: ok`);
      for (const warning of warnings) warn(formatConfigIssue(warning, 'warning'));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
}

/**
 * Each file on its own, except MM2 connector configs: those make one pipeline together, as run
 * reads them, checked where the first of them was given, so problems come in the order of the files.
 */
async function groupConnectorConfigs(files: readonly string[]): Promise<(string | string[])[]> {
  const connectors: string[] = [];
  const groups: (string | string[])[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined || !isConnectorConfig(file, text)) groups.push(file);
    else if (connectors.push(file) === 1) groups.push(connectors);
  }
  return groups;
}
