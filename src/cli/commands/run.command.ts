import { type Command, Option } from 'commander';
import { runAction } from '../actions/run.action';
import { collectValues } from './collect-values';

interface RunFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  readonly logFormat?: 'text' | 'json';
  readonly shutdownTimeout: string;
  readonly statusInterval: string;
}

/** `mirrorflow run FILE`: replicate as the pipeline file says, until stopped. */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('Run a pipeline: replicate until SIGINT/SIGTERM, then drain and store progress.')
    .argument('<file>', 'pipeline YAML file, or an MM2 driver file (*.properties)')
    .option('-s, --set <path=value>', 'override a value of the file: a pipeline path (flows.0.batching.max_records=5000) or, for a .properties file, an MM2 key (primary->backup.topics=orders) (repeatable)', collectValues, [])
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .addOption(new Option('--log-level <level>', 'override logging.level').choices(['error', 'warn', 'info', 'debug']))
    .addOption(new Option('--log-format <format>', 'override logging.format').choices(['text', 'json']))
    .option('--shutdown-timeout <ms>', 'how long a stop may take to drain', '30000')
    .option('--status-interval <ms>', 'log progress this often; 0 = never', '30000')
    .action((file: string, flags: RunFlags) =>
      runAction({
        file,
        set: flags.set,
        pluginDirs: flags.pluginDir,
        logLevel: flags.logLevel,
        logFormat: flags.logFormat,
        shutdownTimeoutMs: Number(flags.shutdownTimeout),
        statusIntervalMs: Number(flags.statusInterval),
      }),
    );
}
