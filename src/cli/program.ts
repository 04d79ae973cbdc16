import { Command } from 'commander';
import { registerLocalCommand } from './commands/local.command';
import { registerRunCommand } from './commands/run.command';
import { registerDemoCommand } from './commands/demo.command';
import { registerValidateCommand } from './commands/validate.command';
import { registerConvertCommand } from './commands/convert.command';
import { registerPlanCommand } from './commands/plan.command';
import { registerDiffCommand } from './commands/diff.command';
import { registerOffsetsCommand } from './commands/offsets.command';
import { registerClustersCommand } from './commands/clusters.command';
import { registerFailoverCommand } from './commands/failover.command';
import { registerStatusCommand } from './commands/status.command';
import { registerPluginsCommand } from './commands/plugins.command';
import { registerTestCommand } from './commands/test.command';
import { registerMigrateCommand } from './commands/migrate.command';
import { registerSchemasCommand } from './commands/schemas.command';
import { versionText } from './version';

/** Builds the `mirrorflow` command line. Commands are thin: parse, build options, call an action. */
export function buildProgram(): Command {
  const program = new Command('mirrorflow')
    .description('Kafka cluster-to-cluster replication, compatible with MirrorMaker 2.')
    .version(versionText(), '-V, --version', 'print the version and exit')
    .showHelpAfterError()
    .exitOverride();
  registerRunCommand(program);
  registerValidateCommand(program);
  registerConvertCommand(program);
  registerPlanCommand(program);
  registerDiffCommand(program);
  registerLocalCommand(program);
  registerDemoCommand(program);
  registerOffsetsCommand(program);
  registerClustersCommand(program);
  registerFailoverCommand(program);
  registerStatusCommand(program);
  registerPluginsCommand(program);
  registerTestCommand(program);
  registerMigrateCommand(program);
  registerSchemasCommand(program);
  return program;
}
