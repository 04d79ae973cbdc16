import type { Command } from 'commander';
import { collectValues } from './collect-values';

/** `mirrorflow plugins list|new|check`: the transform plugins there are, a new one, and their contract. */
export function registerPluginsCommand(program: Command): void {
  const plugins = program.command('plugins').description('List, scaffold and check transform plugins.');
  plugins
    .command('list')
    .description('List the built-in transforms and the plugins found, with where each came from and its options; a broken plugin is listed with the reason.')
    .argument('[file]', 'a pipeline file: the npm packages of its plugins: key are listed too')
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .option('--json', 'print JSON instead of text')
    .action(async (file: string | undefined, flags: { pluginDir: string[]; json?: boolean }) =>
      (await import('../actions/plugins.action.js')).pluginsListAction({
        ...(file === undefined ? {} : { file }),
        pluginDirs: flags.pluginDir,
        json: flags.json === true,
      }),
    );
  plugins
    .command('new')
    .description('Make a new transform plugin to start from: its options schema, README and tests that pass.')
    .argument('<name>', 'the plugin name, snake_case (what pipelines write as type:)')
    .option('--dir <dir>', 'the plugin folder to put it in (one sub-folder per plugin)', 'plugins')
    .action(async (name: string, flags: { dir: string }) => (await import('../actions/plugins.action.js')).pluginsNewAction({ name, dir: flags.dir }));
  plugins
    .command('check')
    // Its first name; `mirrorflow test` runs pipeline tests, which is another thing.
    .alias('test')
    .description(
      "Check the plugin contract (config validation, purity, headers, tombstones, errors.tolerance routing) on a plugin's folder, or on every plugin of a plugin folder. (`mirrorflow test` runs pipeline tests.)",
    )
    .argument('<path>', "a plugin's folder (holding its index.js) or a folder of plugin folders")
    .option('--json', 'print JSON instead of text')
    .action(async (path: string, flags: { json?: boolean }) =>
      (await import('../actions/plugins.action.js')).pluginsTestAction({ path, json: flags.json === true }),
    );
}
