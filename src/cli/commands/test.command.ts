import type { Command } from 'commander';
import { collectValues } from './collect-values';

/** `mirrorflow test FILE...`: pipeline tests in YAML, run without Kafka. */
export function registerTestCommand(program: Command): void {
  program
    .command('test')
    .description(
      "Run pipeline tests written in YAML, without Kafka: input records through a flow's transforms, compared with the records expected. (`mirrorflow plugins check` checks a plugin's contract.)",
    )
    .argument('<files...>', 'pipeline test files (docs/transforms.md: Testing pipelines)')
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .action(async (files: string[], flags: { pluginDir: string[] }) =>
      (await import('../actions/test.action.js')).testAction({ files, pluginDirs: flags.pluginDir }),
    );
}
