import type { Command } from 'commander';
import { collectValues } from './collect-values';
import { PIPELINE_FILES } from './file-arguments';

interface PlanFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly json?: boolean;
}

/** `mirrorflow plan FILE`: what a pipeline would replicate, asked of the clusters without writing anything. */
export function registerPlanCommand(program: Command): void {
  program
    .command('plan')
    .description(
      'Connect read-only and show, per flow, the topics that match and what they become on the target, the consumer groups that would be checkpointed, and what is wrong. Writes nothing.',
    )
    .argument('<files...>', PIPELINE_FILES)
    .option('-s, --set <path=value>', 'override a value of the file, as run does (repeatable)', collectValues, [])
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .option('--json', 'print the plan as JSON')
    .action(async (files: string[], flags: PlanFlags) =>
      (await import('../actions/plan.action.js')).planAction({
        file: files.length === 1 ? files[0]! : files,
        set: flags.set,
        pluginDirs: flags.pluginDir,
        json: flags.json === true,
      }),
    );
}
