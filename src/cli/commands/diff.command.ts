import type { Command } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
import { collectValues } from './collect-values';

interface DiffFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly json?: boolean;
  readonly strict?: boolean;
}

/** `mirrorflow diff FILE`: how each flow's target differs from its source, read-only; exit 1 on drift. */
export function registerDiffCommand(program: Command): void {
  program
    .command('diff')
    .description(
      'Connect read-only and report, per flow, remote topics that are missing, partition counts and topic configs that differ (with what the config sync would do about each), remote topics whose source is gone, and topic ACLs the ACL sync would create on the target. Exits 0 when in sync, 1 when drift is found.',
    )
    .argument('<file>', PIPELINE_FILE)
    .option('-s, --set <path=value>', 'override a value of the file, as run does (repeatable)', collectValues, [])
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .option('--json', 'print the report as JSON')
    .option('--strict', 'count the differences the config sync keeps on purpose (excluded configs, target defaults) as drift too')
    .action(async (file: string, flags: DiffFlags) =>
      (await import('../actions/diff.action.js')).diffAction({
        file,
        set: flags.set,
        pluginDirs: flags.pluginDir,
        json: flags.json === true,
        strict: flags.strict === true,
      }),
    );
}
