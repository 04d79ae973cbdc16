import { Command } from 'commander';
import { registerLocalCommand } from './commands/local.command';

/** Builds the `mirrorflow` command line. Commands are thin: parse, build options, call an action. */
export function buildProgram(): Command {
  const program = new Command('mirrorflow')
    .description('Kafka cluster-to-cluster replication, compatible with MirrorMaker 2.')
    .showHelpAfterError()
    .exitOverride();
  registerLocalCommand(program);
  return program;
}
