import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_ALIASES } from '../../local/local-clusters';
import { DEFAULT_KAFKA_VERSION } from '../../local/kafka-distribution';

interface UpFlags {
  readonly brokers?: number;
  readonly secure?: boolean;
  readonly user?: string[];
  readonly kafkaVersion?: string;
  readonly stateDir?: string;
  readonly json?: boolean;
}

interface StateFlags {
  readonly stateDir?: string;
  readonly json?: boolean;
}

/** `mirrorflow local up|status|down`: Kafka clusters on this machine for demos and tests. */
export function registerLocalCommand(program: Command): void {
  const local = program.command('local').description('Run Kafka clusters on this machine from the official jars (needs Java 17 and Maven).');
  const stateDirHelp = 'where pids, ports and broker files are kept (default ~/.cache/mirrorflow/local)';

  local
    .command('up')
    .description('Start clusters that keep running after this command, and print their addresses.')
    .argument('[aliases...]', `cluster aliases (default: ${DEFAULT_ALIASES.join(' ')})`)
    .option(
      '--brokers <n>',
      'nodes per cluster, each a broker and a controller; 3 or more run as production does: replication factor 3, min.insync.replicas 2 (default 1)',
      parseBrokers,
    )
    .option('--secure', 'add SASL_SSL (SCRAM-SHA-512, SCRAM-SHA-256, PLAIN) and mutual-TLS listeners, a CA, users and ACLs (StandardAuthorizer)')
    .option('--user <name>', 'a user to create with --secure (repeatable; default alice)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--kafka-version <version>', `Kafka release from Maven Central (default ${DEFAULT_KAFKA_VERSION})`)
    .option('--state-dir <dir>', stateDirHelp)
    .option('--json', 'print {"alias": "host:port"} only')
    .action(async (aliases: string[], flags: UpFlags) =>
      (await import('../actions/local.action.js')).localUpAction({
        aliases: aliases.length > 0 ? aliases : DEFAULT_ALIASES,
        brokers: flags.brokers,
        security: flags.secure === true ? { users: flags.user } : undefined,
        version: flags.kafkaVersion,
        stateDir: flags.stateDir,
        json: flags.json === true,
      }),
    );

  local
    .command('status')
    .description('List the clusters started with "local up", every node of each, and whether they answer.')
    .option('--state-dir <dir>', stateDirHelp)
    .option('--json', 'print JSON')
    .action(async (flags: StateFlags) =>
      (await import('../actions/local.action.js')).localStatusAction({ stateDir: flags.stateDir, json: flags.json === true }),
    );

  local
    .command('down')
    .description('Stop clusters started with "local up" (all, or the aliases given) and delete their files.')
    .argument('[aliases...]', 'cluster aliases (default: all)')
    .option('--state-dir <dir>', stateDirHelp)
    .action(async (aliases: string[], flags: StateFlags) =>
      (await import('../actions/local.action.js')).localDownAction({ aliases, stateDir: flags.stateDir }),
    );
}

function parseBrokers(value: string): number {
  const brokers = Number(value);
  if (!Number.isInteger(brokers) || brokers < 1) throw new InvalidArgumentError('expected a whole number of brokers, 1 or more');
  return brokers;
}
