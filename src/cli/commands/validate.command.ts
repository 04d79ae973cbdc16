import type { Command } from 'commander';
import { collectValues } from './collect-values';
import { unknownKeysOption } from './unknown-keys-option';

interface ValidateFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly unknownKeys: 'error' | 'warn';
  readonly resolve: boolean;
  readonly json?: boolean;
  readonly strict?: boolean;
}

/** `mirrorflow validate FILE...`: check pipeline files as `run` would, without connecting to Kafka. */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description(
      'Check pipeline files as run would, without connecting to Kafka: print every problem and warning as file:line:col: key: message, then "FILE: ok" or how many problems. Exits 78 when a file has problems.',
    )
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
    .addOption(unknownKeysOption())
    .option('--no-resolve', 'check ${…} references and their config providers, not their values, nor the files the pipeline names (for CI without the secrets)')
    .option('--json', 'print one JSON document: each file, then every problem and warning with file, line, column, key, message and hint')
    .option('--strict', 'fail on warnings too')
    .action(async (files: string[], flags: ValidateFlags) =>
      (await import('../actions/validate.action.js')).validateAction({
        files,
        set: flags.set,
        pluginDirs: flags.pluginDir,
        unknownKeys: flags.unknownKeys,
        resolve: flags.resolve,
        json: flags.json === true,
        strict: flags.strict === true,
      }),
    );
}
