import type { Command } from 'commander';
import { unknownKeysOption } from './unknown-keys-option';

interface ConvertFlags {
  readonly output?: string;
  readonly check: boolean;
  readonly force?: boolean;
  readonly unknownKeys: 'error' | 'warn';
}

/** `mirrorflow convert mm2.properties`: the YAML pipeline that does what an MM2 driver file does. */
export function registerConvertCommand(program: Command): void {
  program
    .command('convert')
    .description(
      'Print the YAML pipeline equivalent to an MM2 driver file (mm2.properties) or to MM2 connector configs, each value commented with the MM2 key it came from. Secrets stay ${…} references; one the file holds in the clear becomes ${env:…}, and the variables to set are listed.',
    )
    .argument('<files...>', 'MM2 driver file (*.properties), or MM2 connector configs (*.properties, *.json) that make one pipeline together')
    .option(
      '-o, --output <file>',
      'write the YAML to this file instead of stdout (never over an input file; relative paths are written relative to its folder)',
    )
    .option('--force', 'replace the --output file when it exists')
    .addOption(unknownKeysOption())
    .option('--no-check', 'do not load the file as run would and compare (use when its ${…} references cannot be read here)')
    .action(async (files: string[], flags: ConvertFlags) =>
      (await import('../actions/convert.action.js')).convertAction({
        file: files.length === 1 ? files[0]! : files,
        check: flags.check,
        force: flags.force === true,
        unknownKeys: flags.unknownKeys,
        ...(flags.output === undefined ? {} : { output: flags.output }),
      }),
    );
}
