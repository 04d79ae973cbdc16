/**
 * What `mirrorflow plugins list` shows: every transform a pipeline could name — the built-ins,
 * the plugins of the plugin folders and the npm packages a pipeline names — with where it came
 * from and its options. Unlike the registry, it never throws for a broken plugin: that plugin is
 * listed with the reason it cannot be used.
 */
import { PluginError } from '../core/errors';
import type { TransformDefinition } from './api';
import { builtInTransforms } from './builtins';
import { loadPluginPackage, scanPluginDir } from './loader';
import { transformOptions, type OptionDoc } from './option-docs';

export type PluginSource = 'built-in' | 'plugin folder' | 'npm package';

export interface CatalogEntry {
  /** The `type:` a pipeline writes; for a plugin that did not load, its folder or package name. */
  readonly name: string;
  readonly source: PluginSource;
  /** The folder or package it came from (nothing for a built-in). */
  readonly from?: string;
  readonly summary?: string;
  readonly options?: readonly OptionDoc[];
  /** Why it cannot be used, when it cannot. */
  readonly problem?: string;
}

export interface CatalogOptions {
  readonly pluginDirs?: readonly string[];
  /** npm packages named by a pipeline's `plugins:`, resolved from `packageBase`. */
  readonly packages?: readonly string[];
  readonly packageBase?: string;
}

/** Every transform and plugin, in the order: built-ins, plugin folders (as given), packages. */
export function pluginCatalog(options: CatalogOptions = {}): CatalogEntry[] {
  const entries: CatalogEntry[] = [];
  const taken = new Map<string, string>();
  const add = (definition: TransformDefinition, source: PluginSource, from?: string): void => {
    const before = taken.get(definition.name);
    const problem = before === undefined ? undefined : `has the same name as ${before}; rename the plugin.`;
    if (before === undefined) taken.set(definition.name, from === undefined ? 'a built-in transform' : `the plugin in ${from}`);
    entries.push(describe(definition, source, from, problem));
  };
  for (const definition of [...builtInTransforms].sort((a, b) => a.name.localeCompare(b.name))) add(definition, 'built-in');
  for (const dir of options.pluginDirs ?? []) {
    const { loaded, failures } = scanPluginDir(dir);
    for (const { definition, folder } of loaded) add(definition, 'plugin folder', folder);
    for (const failure of failures) entries.push({ name: failure.plugin, source: 'plugin folder', from: dir, problem: reason(failure) });
  }
  for (const name of options.packages ?? []) {
    try {
      const { definition } = loadPluginPackage(name, options.packageBase ?? process.cwd());
      add(definition, 'npm package', name);
    } catch (error) {
      if (!(error instanceof PluginError)) throw error;
      entries.push({ name, source: 'npm package', from: name, problem: reason(error) });
    }
  }
  return entries;
}

function describe(definition: TransformDefinition, source: PluginSource, from: string | undefined, problem: string | undefined): CatalogEntry {
  let options: OptionDoc[] | undefined;
  let schemaProblem: string | undefined;
  try {
    options = transformOptions(definition);
  } catch (error) {
    schemaProblem = `its options schema cannot be shown as JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
  const problems = [problem, schemaProblem].filter((p): p is string => p !== undefined);
  return {
    name: definition.name,
    source,
    ...(from === undefined ? {} : { from }),
    summary: definition.summary,
    ...(options === undefined ? {} : { options }),
    ...(problems.length === 0 ? {} : { problem: problems.join('; ') }),
  };
}

/** The error's message without the `Plugin "x": ` its name already says. */
function reason(error: PluginError): string {
  const prefix = `Plugin "${error.plugin}": `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}
