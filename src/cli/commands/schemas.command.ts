import { type Command, Option } from 'commander';
import { collectValues } from './collect-values';
import { PIPELINE_FILES } from './file-arguments';

interface CopyFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly flow?: string;
  readonly dryRun?: boolean;
  readonly json?: boolean;
}

/** `mirrorflow schemas copy FILE... [--flow NAME] [--dry-run] [--json]`: a flow's subjects and their versions copied to the target registry. */
export function registerSchemasCommand(program: Command): void {
  const schemas = program.command('schemas').description("The schemas of a pipeline's Schema Registries (flows[].schema_registry).");
  schemas
    .command('copy')
    .description(
      "Register every version of the subjects of each flow's topics (TopicNameStrategy, the sides in schema_registry.on) in the flow's target registry, " +
        'in version order, under the subjects the id translation uses (the topic as the flow names it on the target). Connects to no Kafka cluster.',
    )
    .argument('<files...>', PIPELINE_FILES)
    .addOption(new Option('--flow <name>', 'only this flow').default(undefined, 'every flow with a schema_registry'))
    .option('--dry-run', 'list what would be copied, registering nothing')
    .option('--json', 'print JSON instead of text')
    .option('-s, --set <path=value>', 'override a value of the file, as run does (repeatable)', collectValues, [])
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .action(async (files: string[], flags: CopyFlags) => {
      const { schemasCopyAction } = await import('../actions/schemas-copy.action.js');
      return schemasCopyAction({
        files,
        set: flags.set,
        pluginDirs: flags.pluginDir,
        flow: flags.flow,
        dryRun: flags.dryRun === true,
        json: flags.json === true,
      });
    });
}
