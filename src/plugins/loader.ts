/**
 * Loads custom transform plugins: every sub-folder of a plugin folder whose `index.js`
 * default-exports (or `module.exports`) a transform definition.
 *
 * The repo's own plugins live in `plugins/<name>/index.ts` and are compiled by the project's tsc
 * to `dist/plugins/<name>/index.js` (see `projectPluginsDir`); a pipeline may also point at any
 * other folder of compiled CommonJS plugins. Every broken folder is reported in one error, so a
 * user fixes them in one round rather than one per run.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { PluginError } from '../core/errors';
import type { TransformDefinition } from './api';
import { builtInTransforms } from './builtins';
import { checkTransformDefinition } from './check-transform-definition';
import { PluginRegistry } from './registry';

/** A definition and the folder it came from, for messages about it. */
export interface LoadedPlugin {
  readonly definition: TransformDefinition;
  readonly folder: string;
}

export interface PluginRegistryOptions {
  /** Folders of compiled plugins, absolute or relative to the working directory. */
  readonly pluginDirs?: readonly string[];
}

/**
 * The compiled form of the repo's top-level `plugins/` folder (`dist/plugins`), found relative to
 * this file so it works from any working directory.
 */
export function projectPluginsDir(): string {
  // This file runs as dist/src/plugins/loader.js.
  return resolve(__dirname, '..', '..', 'plugins');
}

/** Loads every plugin in `dir`; throws one PluginError describing every folder that failed. */
export function loadPluginsFrom(dir: string): TransformDefinition[] {
  return loadPluginFolders(dir).map((p) => p.definition);
}

/**
 * The built-ins plus every plugin in `pluginDirs`. A plugin may not take a name that is already
 * taken, by a built-in or by another plugin: silently shadowing a built-in would change what
 * existing pipelines do.
 */
export function createPluginRegistry(options: PluginRegistryOptions = {}): PluginRegistry {
  const registry = new PluginRegistry(builtInTransforms);
  const origins = new Map<string, string>(builtInTransforms.map((d) => [d.name, 'a built-in transform']));
  const failures: PluginError[] = [];
  for (const dir of options.pluginDirs ?? []) {
    const result = scanPluginDir(dir);
    failures.push(...result.failures);
    for (const { definition, folder } of result.loaded) {
      const taken = origins.get(definition.name);
      if (taken !== undefined) {
        failures.push(new PluginError(definition.name, `from ${folder} has the same name as ${taken}; rename the plugin and its folder.`));
        continue;
      }
      origins.set(definition.name, `the plugin in ${folder}`);
      registry.register(definition);
    }
  }
  if (failures.length > 0) throw combine(failures);
  return registry;
}

/** Loads `dir`'s plugin folders, in name order, keeping where each came from. */
export function loadPluginFolders(dir: string): LoadedPlugin[] {
  const { loaded, failures } = scanPluginDir(dir);
  if (failures.length > 0) throw combine(failures);
  return loaded;
}

function scanPluginDir(dir: string): { loaded: LoadedPlugin[]; failures: PluginError[] } {
  const root = resolve(dir);
  if (!existsSync(root)) {
    const failure = new PluginError(basename(root), `folder ${root} does not exist; check the plugin folder setting (compiled plugins are in dist/plugins).`);
    return { loaded: [], failures: [failure] };
  }
  if (!statSync(root).isDirectory()) {
    const failure = new PluginError(basename(root), `${root} is not a folder; give the folder that holds one sub-folder per plugin.`);
    return { loaded: [], failures: [failure] };
  }
  const loaded: LoadedPlugin[] = [];
  const failures: PluginError[] = [];
  for (const entry of readdirSync(root).sort()) {
    if (entry.startsWith('.') || entry === 'node_modules') continue;
    const folder = join(root, entry);
    // Files beside the plugins (a README) and dangling links are not plugins.
    if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    try {
      loaded.push({ definition: loadFolder(folder, entry), folder });
    } catch (error) {
      if (!(error instanceof PluginError)) throw error;
      failures.push(error);
    }
  }
  return { loaded, failures };
}

function loadFolder(folder: string, name: string): TransformDefinition {
  const file = join(folder, 'index.js');
  if (!existsSync(file)) {
    const hint = existsSync(join(folder, 'index.ts'))
      ? ' It has an index.ts: build with `npx tsc -p .` and use the compiled folder (dist/plugins).'
      : ' A plugin folder needs an index.js that exports its definition.';
    throw new PluginError(name, `could not be loaded from ${folder}: no index.js found.${hint}`);
  }

  let exported: unknown;
  try {
    // Loading code by path is this module's job; require() is typed `any`, so the value is
    // taken as unknown and checked below. Plugins are CommonJS, like the tsc output here.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded: unknown = require(file);
    exported = pickExport(loaded);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const esm = (error as { code?: unknown } | null)?.code === 'ERR_REQUIRE_ESM' ? ' Plugins must be CommonJS.' : '';
    throw new PluginError(name, `could not be loaded from ${folder}: index.js threw while loading: ${message}${esm}`, { cause: error });
  }

  const problems = checkTransformDefinition(exported);
  if (problems.length > 0) {
    throw new PluginError(
      name,
      `could not be loaded from ${folder}: index.js does not export a transform definition (${problems.join('; ')}). Use \`export default defineTransform({ ... })\`.`,
    );
  }
  const definition = exported as TransformDefinition;
  if (definition.name !== name) {
    throw new PluginError(
      name,
      `could not be loaded from ${folder}: it declares the name "${definition.name}"; a plugin's folder must be named after it, so "type: ${definition.name}" leads to plugins/${definition.name}/.`,
    );
  }
  return definition;
}

/** `export default x` compiles to `exports.default = x`; `module.exports = x` is taken as is. */
function pickExport(module: unknown): unknown {
  if (typeof module === 'object' && module !== null && 'default' in module) return (module as { default: unknown }).default;
  return module;
}

/** One error for several failures: the first leads, the rest are listed, all are in `cause`. */
function combine(failures: readonly PluginError[]): PluginError {
  if (failures.length === 1) return failures[0]!;
  const [first, ...rest] = failures;
  const others = rest.map((e) => `\n  - ${e.message}`).join('');
  return new PluginError(first!.plugin, `${first!.message.slice(`Plugin "${first!.plugin}": `.length)}\nOther plugin problems:${others}`, {
    cause: new AggregateError(failures, `${failures.length} plugins could not be loaded`),
  });
}
