import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
// The defaults alone: the launcher itself is loaded by the action, when a local command runs.
import { DEFAULT_ALIASES, DEFAULT_KAFKA_VERSION } from '../../local/local-defaults';

interface UpFlags {
  readonly brokers?: number;
  readonly secure?: boolean;
  readonly user?: string[];
  readonly kafkaVersion?: string;
  readonly stateDir?: string;
  readonly json?: boolean;
  readonly dryRun?: boolean;
}

interface StateFlags {
  readonly stateDir?: string;
  readonly json?: boolean;
  readonly dryRun?: boolean;
}

/** `mirrorflow local up|status|down`: Kafka clusters on this machine for demos and tests. */
export function registerLocalCommand(program: Command): void {
  const local = program.command('local').description('Run Kafka clusters on this machine from the official jars (needs Java 17 and Maven).');
  const stateDir = (): Option => new Option('--state-dir <dir>', 'where pids, ports and broker files are kept').default(undefined, '~/.cache/mirrorflow/local');

  local
    .command('up')
    .description('Start clusters that keep running after this command, and print their addresses.')
    .addArgument(new Argument('[aliases...]', 'cluster aliases').default(undefined, DEFAULT_ALIASES.join(' ')))
    .addOption(
      new Option(
        '--brokers <n>',
        'nodes per cluster, each a broker and a controller; 3 or more run as production does: replication factor 3, min.insync.replicas 2',
      )
        .argParser(parseBrokers)
        .default(undefined, '1'),
    )
    .option('--secure', 'add SASL_SSL (SCRAM-SHA-512, SCRAM-SHA-256, PLAIN) and mutual-TLS listeners, a CA, users and ACLs (StandardAuthorizer)')
    .addOption(
      new Option('--user <name>', 'a user to create with --secure (repeatable)')
        .argParser((value: string, previous: string[] = []) => [...previous, value])
        .default(undefined, 'alice'),
    )
    .addOption(new Option('--kafka-version <version>', 'Kafka release from Maven Central').default(undefined, DEFAULT_KAFKA_VERSION))
    .addOption(stateDir())
    .option('--json', 'print {"alias": "host:port"} only')
    .option('--dry-run', 'say what would be started, in order, and start nothing')
    .action(async (aliases: string[], flags: UpFlags) =>
      (await import('../actions/local.action.js')).localUpAction({
        aliases: aliases.length > 0 ? aliases : DEFAULT_ALIASES,
        brokers: flags.brokers,
        security: flags.secure === true ? { users: flags.user } : undefined,
        version: flags.kafkaVersion,
        stateDir: flags.stateDir,
        json: flags.json === true,
        dryRun: flags.dryRun === true,
      }),
    );

  local
    .command('status')
    .description('List the clusters started with "local up", every node of each, and whether they answer.')
    .addOption(stateDir())
    .option('--json', 'print JSON')
    .action(async (flags: StateFlags) =>
      (await import('../actions/local.action.js')).localStatusAction({ stateDir: flags.stateDir, json: flags.json === true }),
    );

  local
    .command('down')
    .description('Stop clusters started with "local up" (all, or the aliases given) and delete their files.')
    .addArgument(new Argument('[aliases...]', 'cluster aliases').default(undefined, 'all'))
    .addOption(stateDir())
    .option('--dry-run', 'say what would be stopped and deleted, in order, and touch nothing')
    .action(async (aliases: string[], flags: StateFlags) =>
      (await import('../actions/local.action.js')).localDownAction({ aliases, stateDir: flags.stateDir, dryRun: flags.dryRun === true }),
    );
}

function parseBrokers(value: string): number {
  const brokers = Number(value);
  if (!Number.isInteger(brokers) || brokers < 1) throw new InvalidArgumentError('expected a whole number of brokers, 1 or more');
  return brokers;
}
