import { Command } from 'commander';
import { registerLocalCommand } from './commands/local.command';
import { registerRunCommand } from './commands/run.command';
import { registerDemoCommand } from './commands/demo.command';
import { registerValidateCommand } from './commands/validate.command';
import { registerConvertCommand } from './commands/convert.command';
import { registerPlanCommand } from './commands/plan.command';
import { registerDiffCommand } from './commands/diff.command';
import { registerVerifyCommand } from './commands/verify.command';
import { registerOffsetsCommand } from './commands/offsets.command';
import { registerClustersCommand } from './commands/clusters.command';
import { registerFailoverCommand } from './commands/failover.command';
import { registerDrillCommand } from './commands/drill.command';
import { registerFailbackCommand } from './commands/failback.command';
import { registerStatusCommand } from './commands/status.command';
import { registerPluginsCommand } from './commands/plugins.command';
import { registerTestCommand } from './commands/test.command';
import { registerMigrateCommand } from './commands/migrate.command';
import { registerSchemasCommand } from './commands/schemas.command';
import { EXIT_CODE_MEANINGS } from './exit-code-table';
import { helpConfiguration, usageAfterError } from './help-format';
import { versionText } from './version';

/**
 * What `mirrorflow --help` lists, by what one wants to do: each command in a line. A command's own
 * `--help` has its whole description.
 */
const OVERVIEW: readonly (readonly [group: string, commands: readonly (readonly [name: string, summary: string])[]])[] = [
  [
    'Replicate:',
    [
      ['run', 'replicate as a pipeline says, until stopped'],
      ['demo', 'local clusters, sample data, replication'],
    ],
  ],
  [
    'Check a pipeline:',
    [
      ['validate', 'check files as run would, without Kafka'],
      ['convert', 'write MM2 files as a YAML pipeline'],
      ['plan', 'what each flow would replicate (read-only)'],
      ['diff', 'how each target differs from its source'],
      ['verify', 'prove the target holds what the source holds'],
      ['test', "run pipeline tests of a flow's transforms"],
    ],
  ],
  [
    'Operate:',
    [
      ['status', 'what a running `mirrorflow run` is doing'],
      ['offsets', "translate a consumer group's offsets"],
      ['failover', "move a stopped group to a flow's target"],
      ['failback', 'after a failover, back to the old primary'],
      ['drill', 'rehearse a failover: RPO, RTO, records read again'],
      ['migrate', "move clients to a flow's target, by steps"],
      ['clusters', 'upstream clusters, from the heartbeats'],
      ['schemas', "copy subjects to the target's registry"],
    ],
  ],
  [
    'Plugins and local Kafka:',
    [
      ['plugins', 'list, scaffold and check transform plugins'],
      ['local', 'Kafka clusters on this machine'],
    ],
  ],
];

/** Builds the `mirrorflow` command line. Commands are thin: parse, build options, call an action. */
export function buildProgram(): Command {
  const program = new Command('mirrorflow')
    .description('Kafka cluster-to-cluster replication, compatible with MirrorMaker 2.')
    .version(versionText(), '-V, --version', 'print the version and exit')
    .configureHelp(helpConfiguration)
    // Errors say who speaks, as every other message of the CLI does: `mirrorflow: unknown option …`.
    .configureOutput({ outputError: (text, write) => write(`mirrorflow: ${text.replace(/^error: /, '')}`) })
    .exitOverride();
  // In the order of OVERVIEW, which `--help` follows.
  registerRunCommand(program);
  registerDemoCommand(program);
  registerValidateCommand(program);
  registerConvertCommand(program);
  registerPlanCommand(program);
  registerDiffCommand(program);
  registerVerifyCommand(program);
  registerTestCommand(program);
  registerStatusCommand(program);
  registerOffsetsCommand(program);
  registerFailoverCommand(program);
  registerFailbackCommand(program);
  registerDrillCommand(program);
  registerMigrateCommand(program);
  registerClustersCommand(program);
  registerSchemasCommand(program);
  registerPluginsCommand(program);
  registerLocalCommand(program);
  for (const [group, commands] of OVERVIEW) {
    for (const [name, summary] of commands)
      program.commands
        .find((c) => c.name() === name)
        ?.summary(summary)
        .helpGroup(group);
  }
  forEachCommand(program, (command) => command.showHelpAfterError(usageAfterError(command)));
  const codes = EXIT_CODE_MEANINGS.map(([code, label]) => `${code} ${label}`);
  program.addHelpText('after', `\nExit codes, the same for every command (docs/cli.md):\n  ${codes.slice(0, 4).join(', ')},\n  ${codes.slice(4).join(', ')}`);
  return program;
}

function forEachCommand(command: Command, visit: (command: Command) => void): void {
  visit(command);
  for (const sub of command.commands) forEachCommand(sub, visit);
}
