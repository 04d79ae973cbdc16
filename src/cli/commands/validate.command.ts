import type { Command } from 'commander';
import { collectValues } from './collect-values';

interface ValidateFlags {
  readonly set: string[];
  readonly pluginDir: string[];
}

/** `mirrorflow validate FILE...`: check pipeline files as `run` would, without connecting to Kafka. */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('Check pipeline files without connecting to Kafka: print every problem with file, line and path, or "FILE: ok".')
    .argument(
      '<files...>',
      'pipeline YAML files, MM2 driver files (*.properties), or MM2 connector configs (*.properties, *.json: checked together as one pipeline)',
    )
    .option(
      '-s, --set <path=value>',
      'override a value of each file, as run does: a pipeline path (flows.0.batching.max_records=5000) or, for a .properties file, an MM2 key (primary->backup.topics=orders) (repeatable)',
      collectValues,
      [],
    )
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .action(async (files: string[], flags: ValidateFlags) =>
      (await import('../actions/validate.action.js')).validateAction({ files, set: flags.set, pluginDirs: flags.pluginDir }),
    );
}
