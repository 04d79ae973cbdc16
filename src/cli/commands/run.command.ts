import { type Command, InvalidArgumentError, Option } from 'commander';
import { parseListenAddress } from '../../telemetry/http-server';
import { collectValues } from './collect-values';

interface RunFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
  readonly logFormat?: 'text' | 'json';
  readonly shutdownTimeout: string;
  readonly statusInterval: string;
  readonly http?: string;
  readonly connectApi?: 'read_only' | 'read_write';
  readonly watch: boolean;
  readonly live: boolean;
  readonly startupTimeout?: number;
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
    .argument(
      '<files...>',
      'pipeline YAML file, an MM2 driver file (*.properties), or MM2 connector configs (*.properties, *.json) that make one pipeline together',
    )
    .option(
      '-s, --set <path=value>',
      'override a value of the file: a pipeline path (flows.0.batching.max_records=5000) or, for a .properties file, an MM2 key (primary->backup.topics=orders) (repeatable)',
      collectValues,
      [],
    )
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .addOption(new Option('--log-level <level>', 'override logging.level').choices(['error', 'warn', 'info', 'debug']))
    .addOption(new Option('--log-format <format>', 'override logging.format').choices(['text', 'json']))
    .option('--shutdown-timeout <ms>', 'how long a stop may take to drain', '30000')
    .option('--status-interval <ms>', 'log progress this often; 0 = never', '30000')
    .option('--no-watch', 'do not apply changes of the file while running (SIGHUP still does)')
    .option(
      '--http <address>',
      'serve /metrics, /healthz, /ready, /status and /connectors on HOST:PORT, or off; overrides http.listen (default 127.0.0.1:9464, or the next free port when another process holds it)',
      httpAddress,
    )
    .addOption(
      new Option(
        '--connect-api <mode>',
        'read_write lets the Connect-style REST API change, pause, delete and restart connectors (no authentication: keep the listener on loopback); overrides http.connect_api (default read_only)',
      ).choices(['read_only', 'read_write']),
    )
    .option('--no-live', 'plain log lines even when stderr is a terminal (no live view)')
    .option(
      '--startup-timeout <ms>',
      'give up (exit 69) when a cluster cannot be reached at start for this long; default: wait until it can, showing the outage (a refused login or certificate ends the run at once)',
      startupTimeout,
    )
    .action(async (files: string[], flags: RunFlags) => {
      // Loaded on use, as every command's action: `--help` or another command need not load a pipeline's code.
      const { runAction } = await import('../actions/run.action.js');
      return runAction({
        file: files.length === 1 ? files[0]! : files,
        set: flags.set,
        pluginDirs: flags.pluginDir,
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
