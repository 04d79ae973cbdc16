import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ToolCommonOptions } from '../actions/tool-session';
import { collectValues } from './collect-values';

/** Flags every pipeline tool command shares with `run`, plus --json and --timeout. */
export interface ToolCommonFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly json?: boolean;
  readonly timeout: number;
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
}

/** A `--timeout`-like flag: a positive whole number of milliseconds. */
export function positiveMs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of milliseconds');
  return n;
}

export function addToolCommonOptions(command: Command): Command {
  return command
    .option(
      '-s, --set <path=value>',
      'override a value of the file, as run does, e.g. clusters.backup.bootstrap_servers=h:9092 (repeatable)',
      collectValues,
      [],
    )
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .option('--json', 'print JSON instead of a table')
    .option('--timeout <ms>', 'give up reading an internal topic to its end after this long', positiveMs, 30_000)
    .addOption(new Option('--log-level <level>', 'log level on stderr').choices(['error', 'warn', 'info', 'debug']).default('warn'));
}

export function toolCommonOptions(file: string, flags: ToolCommonFlags): ToolCommonOptions {
  return { file, set: flags.set, pluginDirs: flags.pluginDir, json: flags.json === true, timeoutMs: flags.timeout, logLevel: flags.logLevel };
}
