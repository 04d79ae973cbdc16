/**
 * `mirrorflow plugins list [FILE]` and `mirrorflow plugins check PATH`: the catalogue of
 * transforms a pipeline can use, and the plugin contract run on plugin folders.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PluginError } from '../../core/errors';
import { readPluginPackages } from '../../config';
import {
  checkPluginContract,
  loadPluginFolder,
  pluginCatalog,
  projectPluginsDir,
  scanPluginDir,
  type CatalogEntry,
  type ContractCheck,
  type ContractSamples,
} from '../../plugins';

export interface ListPluginsOptions {
  /** A pipeline file whose `plugins:` packages are listed too. */
  readonly file?: string;
  readonly pluginDirs?: readonly string[];
}

/** Built-ins, the project's plugins, those of `--plugin-dir` and those the file names. */
export async function listPlugins(options: ListPluginsOptions = {}): Promise<CatalogEntry[]> {
  const packages = options.file === undefined ? undefined : await readPluginPackages(options.file);
  return pluginCatalog({
    pluginDirs: [projectPluginsDir(), ...(options.pluginDirs ?? [])],
    ...(packages === undefined ? {} : { packages: packages.packages, packageBase: packages.baseDir }),
  });
}

export interface PluginContractResult {
  /** The plugin's name, or its folder's when it did not load. */
  readonly plugin: string;
  readonly folder: string;
  readonly checks: readonly ContractCheck[];
}

/**
 * The plugin contract on the plugin at `path` (a folder with an index.js), or on every plugin
 * of a plugin folder. Samples come from the module's `contract` export.
 */
export function testPluginContracts(path: string): PluginContractResult[] {
  const root = resolve(path);
  if (existsSync(join(root, 'index.js'))) return [contractOf(root)];
  if (!existsSync(root)) throw new PluginError(path, `folder ${root} does not exist.`);
  const { loaded, failures } = scanPluginDir(root);
  const results: PluginContractResult[] = loaded.map((plugin) => ({
    plugin: plugin.definition.name,
    folder: plugin.folder,
    checks: checkPluginContract(plugin.definition, plugin.contract as ContractSamples | undefined),
  }));
  for (const failure of failures) results.push({ plugin: failure.plugin, folder: root, checks: [{ check: 'load', result: 'fail', detail: failure.message }] });
  if (results.length === 0) throw new PluginError(path, `${root} holds no plugin: give a plugin's folder (with its index.js) or a folder of plugin folders.`);
  return results;
}

function contractOf(folder: string): PluginContractResult {
  try {
    const plugin = loadPluginFolder(folder);
    return { plugin: plugin.definition.name, folder, checks: checkPluginContract(plugin.definition, plugin.contract as ContractSamples | undefined) };
  } catch (error) {
    if (!(error instanceof PluginError)) throw error;
    return { plugin: error.plugin, folder, checks: [{ check: 'load', result: 'fail', detail: error.message }] };
  }
}
