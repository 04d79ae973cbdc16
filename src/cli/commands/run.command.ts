import { type Command, InvalidArgumentError, Option } from 'commander';
import { parseListenAddress } from '../../telemetry/http-server';
import { collectValues } from './collect-values';
import { PIPELINE_FILES } from './file-arguments';
import { unknownKeysOption } from './unknown-keys-option';

interface RunFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly unknownKeys: 'error' | 'warn';
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  readonly logFormat?: 'text' | 'json';
  readonly shutdownTimeout: string;
  readonly statusInterval: string;
  readonly http?: string;
  readonly connectApi?: 'read_only' | 'read_write';
  readonly watch: boolean;
  readonly live: boolean;
  readonly startupTimeout?: number;
  readonly dryRun?: boolean;
}

/** Checks `--http` as it is parsed, so a typo is a usage error before anything starts. */
function httpAddress(value: string): string {
  try {
    parseListenAddress(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  return value.trim();
}

function startupTimeout(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) throw new InvalidArgumentError(`expected a whole number of milliseconds, not "${value}"`);
  return ms;
}

/** `mirrorflow run FILE`: replicate as the pipeline file says, until stopped. */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('Run a pipeline: replicate until SIGINT/SIGTERM, then drain and store progress.')
    .argument('<files...>', PIPELINE_FILES)
    .option(
      '-s, --set <path=value>',
      'override a value of the file: a pipeline path (flows.0.batching.max_records=5000) or, for a .properties file, an MM2 key (primary->backup.topics=orders) (repeatable)',
      collectValues,
      [],
    )
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .addOption(unknownKeysOption())
    .addOption(
      new Option('--log-level <level>', 'least severe level logged')
        .choices(['error', 'warn', 'info', 'debug'])
        .default(undefined, "the file's logging.level (info)"),
    )
    .addOption(
      new Option('--log-format <format>', 'text for people, json for log collectors')
        .choices(['text', 'json'])
        .default(undefined, "the file's logging.format (text)"),
    )
    .option('--shutdown-timeout <ms>', 'how long a stop may take to drain', '30000')
    .option('--status-interval <ms>', 'log progress this often; 0 = never', '30000')
    .option('--no-watch', 'do not apply changes of the file while running (SIGHUP still does)')
    .addOption(
      new Option('--http <address>', 'serve /metrics, /healthz, /ready, /status and /connectors on HOST:PORT, or off')
        .argParser(httpAddress)
        .default(undefined, "the file's http.listen (127.0.0.1:9464, or the next free port)"),
    )
    .addOption(
      new Option(
        '--connect-api <mode>',
        "read_write lets the Connect-style REST API create, change, pause, stop, delete and restart connectors, change a stopped one's offsets and set log levels (no authentication: keep the listener on loopback)",
      )
        .choices(['read_only', 'read_write'])
        .default(undefined, "the file's http.connect_api (read_only)"),
    )
    .option('--no-live', 'plain log lines even when stderr is a terminal (no live view)')
    .addOption(
      new Option(
        '--startup-timeout <ms>',
        'give up (exit 69) when a cluster cannot be reached at start for this long (a refused login or certificate ends the run at once)',
      )
        .argParser(startupTimeout)
        .default(undefined, 'wait until it can, showing the outage'),
    )
    .option('--dry-run', 'say what the run would create and replicate (as `mirrorflow plan` does), and change nothing')
    .action(async (files: string[], flags: RunFlags) => {
      if (flags.dryRun === true) {
        // The run's dry run is the plan: read-only, every flow's topics, groups and internal topics, what would be created.
        const { planAction } = await import('../actions/plan.action.js');
        process.stdout.write('Dry run of mirrorflow run: what it would create and replicate. Nothing is changed.\n\n');
        await planAction({ file: files.length === 1 ? files[0]! : files, set: flags.set, pluginDirs: flags.pluginDir, json: false });
        process.stdout.write('Dry run: nothing was changed.\n');
        return;
      }
      // Loaded on use, as every command's action: `--help` or another command need not load a pipeline's code.
      const { runAction } = await import('../actions/run.action.js');
      return runAction({
        file: files.length === 1 ? files[0]! : files,
        set: flags.set,
        pluginDirs: flags.pluginDir,
        unknownKeys: flags.unknownKeys,
        logLevel: flags.logLevel,
        logFormat: flags.logFormat,
        shutdownTimeoutMs: Number(flags.shutdownTimeout),
        statusIntervalMs: Number(flags.statusInterval),
        http: flags.http,
        connectApi: flags.connectApi,
        watch: flags.watch,
        live: flags.live,
        startupTimeoutMs: flags.startupTimeout,
      });
    });
}
