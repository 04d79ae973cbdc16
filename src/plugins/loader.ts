/**
 * Loads custom transform plugins: every sub-folder of a plugin folder whose `index.js`
 * default-exports (or `module.exports`) a transform definition.
 *
 * The repo's own plugins live in `plugins/<name>/index.ts` and are compiled by the project's tsc
 * to `dist/plugins/<name>/index.js` (see `projectPluginsDir`); a pipeline may also point at any
 * other folder of compiled CommonJS plugins, and name npm packages (`plugins:`), resolved from
 * the pipeline file's folder as Node resolves `require` there. Every broken folder is reported in
 * one error, so a user fixes them in one round rather than one per run.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError, PluginError, PluginLoadError, type ConfigIssue } from '../core/errors';
import type { TransformDefinition } from './api';
import { builtInTransforms } from './builtins';
import { checkTransformDefinition } from './check-transform-definition';
import { PluginRegistry } from './registry';
import { resolvePluginApiHere } from './plugin-api-resolution';

/** A definition and the folder it came from, for messages about it. */
export interface LoadedPlugin {
  readonly definition: TransformDefinition;
  /** The plugin's folder, or for an npm package the folder of its main file. */
  readonly folder: string;
  /** The module's `contract` export: samples for the plugin contract (`ContractSamples`), if any. */
  readonly contract?: unknown;
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
  const failures: PluginLoadError[] = [];
  for (const dir of options.pluginDirs ?? []) {
    const result = scanPluginDir(dir);
    failures.push(...result.failures);
    for (const { definition, folder } of result.loaded) {
      const taken = origins.get(definition.name);
      if (taken !== undefined) {
        failures.push(
          loadError(definition.name, join(folder, 'index.js'), {
            message: `has the same name as ${taken}`,
            hint: 'rename the plugin and its folder',
          }),
        );
        continue;
      }
      origins.set(definition.name, `the plugin in ${folder}`);
      registry.register(definition);
    }
  }
  // Problems of the configuration, printed and counted as such: every broken folder at once.
  if (failures.length > 0) throw new ConfigError(failures.map((failure) => failure.issue));
  return registry;
}

/** Loads `dir`'s plugin folders, in name order, keeping where each came from. */
export function loadPluginFolders(dir: string): LoadedPlugin[] {
  const { loaded, failures } = scanPluginDir(dir);
  if (failures.length > 0) throw combine(failures);
  return loaded;
}

/**
 * The plugin in `folder` itself (a folder holding an `index.js`), as a plugin folder's
 * sub-folder is loaded; throws a PluginError naming it.
 */
export function loadPluginFolder(folder: string): LoadedPlugin {
  const root = resolve(folder);
  return { ...loadFolder(root, basename(root)), folder: root };
}

/** `dir`'s plugin folders, in name order: those that loaded and why the others did not. */
export function scanPluginDir(dir: string): { loaded: LoadedPlugin[]; failures: PluginLoadError[] } {
  const root = resolve(dir);
  if (!existsSync(root)) {
    const failure = loadError(basename(root), root, {
      message: 'the plugin folder does not exist',
      hint: 'check --plugin-dir (the compiled plugins of this repository are in dist/plugins)',
    });
    return { loaded: [], failures: [failure] };
  }
  if (!statSync(root).isDirectory()) {
    const failure = loadError(basename(root), root, { message: 'is not a folder', hint: 'give the folder that holds one sub-folder per plugin' });
    return { loaded: [], failures: [failure] };
  }
  const loaded: LoadedPlugin[] = [];
  const failures: PluginLoadError[] = [];
  for (const entry of readdirSync(root).sort()) {
    if (entry.startsWith('.') || entry === 'node_modules') continue;
    const folder = join(root, entry);
    // Files beside the plugins (a README) and dangling links are not plugins.
    if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    try {
      loaded.push({ ...loadFolder(folder, entry), folder });
    } catch (error) {
      if (!(error instanceof PluginLoadError)) throw error;
      failures.push(error);
    }
  }
  return { loaded, failures };
}

/**
 * The transform an npm package exports (as `export default defineTransform(…)` or
 * `module.exports`), the package found as `require(name)` from `baseDir` finds it: in
 * `baseDir/node_modules` or a folder above. Throws a PluginError naming the package.
 */
export function loadPluginPackage(name: string, baseDir: string): LoadedPlugin {
  let file: string;
  try {
    file = require.resolve(name, { paths: [resolve(baseDir)] });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const why =
      code === 'MODULE_NOT_FOUND'
        ? `is not installed: no node_modules/${name} in ${resolve(baseDir)} or a folder above; run \`npm install ${name}\` there`
        : `could not be resolved from ${resolve(baseDir)}: ${messageOf(error)}`;
    throw new PluginError(name, `(npm package) ${why}.`, { cause: error });
  }
  return { ...loadModule(file, name, `npm package ${name} (${file})`, { packageName: name }), folder: dirname(file) };
}

function loadFolder(folder: string, name: string): { definition: TransformDefinition; contract?: unknown } {
  const file = join(folder, 'index.js');
  if (!existsSync(file)) {
    const hint = existsSync(join(folder, 'index.ts'))
      ? 'it has an index.ts: build with `npx tsc -p .` and use the compiled folder (dist/plugins)'
      : 'a plugin folder needs an index.js that exports its definition';
    throw loadError(name, folder, { message: 'no index.js found', hint });
  }
  return loadModule(file, name, folder, {});
}

/** Requires `file` and checks it exports a definition; a folder's plugin must be named after it. */
function loadModule(
  file: string,
  name: string,
  from: string,
  { packageName }: { packageName?: string },
): { definition: TransformDefinition; contract?: unknown } {
  const folder = from;
  const main = packageName === undefined ? 'index.js' : 'its main file';
  let exported: unknown;
  let contract: unknown;
  resolvePluginApiHere();
  try {
    // Loading code by path is this module's job; require() is typed `any`, so the value is
    // taken as unknown and checked below. Plugins are CommonJS, like the tsc output here.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded: unknown = require(file);
    exported = pickExport(loaded);
    contract = typeof loaded === 'object' && loaded !== null ? (loaded as { contract?: unknown }).contract : undefined;
  } catch (error) {
    throw new PluginLoadError(name, { ...thrownWhileLoading(error, file, packageName === undefined ? folder : dirname(file)), path: name }, { cause: error });
  }

  const problems = checkTransformDefinition(exported);
  if (problems.length > 0) {
    throw loadError(name, file, {
      message: `${main} does not export a transform definition (${problems.join('; ')})`,
      hint: 'use `export default defineTransform({ ... })` (or `module.exports = defineTransform(…)`)',
    });
  }
  const definition = exported as TransformDefinition;
  if (packageName === undefined && definition.name !== name) {
    throw loadError(name, file, {
      message: `it declares the name "${definition.name}", but its folder is ${basename(folder)}`,
      hint: `a plugin's folder is named after it, so that "type: ${definition.name}" leads to ${definition.name}/`,
    });
  }
  return contract === undefined ? { definition } : { definition, contract };
}

/** A load failure of plugin `name`, at `file`, as a problem whose key is the plugin's name. */
function loadError(name: string, file: string, problem: { message: string; hint?: string }): PluginLoadError {
  return new PluginLoadError(name, { file, path: name, ...problem });
}

/**
 * What a plugin's module threw while it loaded, as a problem at the plugin's own line: the first
 * frame of its stack inside the plugin (or the line a syntax error names), without Node's require
 * stack, which lists mirrorflow's modules and says nothing about the plugin.
 */
function thrownWhileLoading(error: unknown, file: string, within: string): Omit<ConfigIssue, 'path'> {
  const code = (error as { code?: unknown } | null)?.code;
  const text = error instanceof Error ? error.message : String(error);
  const first = text.split('\n')[0] ?? text;
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const at = errorPosition(stack, within) ?? { file };
  if (code === 'MODULE_NOT_FOUND') {
    const missing = /Cannot find module '([^']+)'/.exec(first)?.[1] ?? '';
    const hint = /(^|[\\/])(mirrorflow|dist[\\/]src[\\/]plugins)([\\/]|$)/.test(missing)
      ? "a plugin reaches mirrorflow's API as require('mirrorflow/plugin-api'), which resolves wherever mirrorflow loads it"
      : missing.startsWith('.') || isAbsoluteLike(missing)
        ? 'a plugin folder must hold the files it requires'
        : `install it beside the plugin (npm install ${missing} in its folder)`;
    return { ...at, message: `cannot be loaded: ${first}`, hint };
  }
  if (code === 'ERR_REQUIRE_ESM') return { ...at, message: `cannot be loaded: ${first}`, hint: 'plugins are CommonJS modules' };
  return { ...at, message: `threw while loading: ${error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : ''}${first}` };
}

/** The first place in `stack` inside `folder`: a frame `(…/index.js:12:7)`, or a syntax error's `…/index.js:12` first line. */
function errorPosition(stack: string, folder: string): Pick<ConfigIssue, 'file' | 'line' | 'column'> | undefined {
  for (const line of stack.split('\n')) {
    const frame = /\(?((?:[A-Za-z]:)?[^():]+):(\d+)(?::(\d+))?\)?\s*$/.exec(line.trim());
    const file = frame?.[1]?.replace(/^at\s+/, '');
    if (file === undefined || !file.startsWith(folder)) continue;
    return { file, line: Number(frame![2]), ...(frame![3] === undefined ? {} : { column: Number(frame![3]) }) };
  }
  return undefined;
}

function isAbsoluteLike(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path);
}

/** `export default x` compiles to `exports.default = x`; `module.exports = x` is taken as is. */
function pickExport(module: unknown): unknown {
  if (typeof module === 'object' && module !== null && 'default' in module) return (module as { default: unknown }).default;
  return module;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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

/** A package of `plugins:` that could not be added, by its place in the list. */
export interface PackageFailure {
  readonly index: number;
  readonly error: PluginError;
}

/**
 * `registry` with the transform of each npm package added (a new registry; the given one is
 * unchanged). A package that does not load, or whose transform takes a name already taken, is a
 * failure of its own: the rest are still added, so every problem is reported at once.
 */
export function withPluginPackages(
  registry: PluginRegistry,
  packages: readonly string[],
  baseDir: string,
): { registry: PluginRegistry; loaded: LoadedPlugin[]; failures: PackageFailure[] } {
  const loaded: LoadedPlugin[] = [];
  const failures: PackageFailure[] = [];
  let current = registry;
  packages.forEach((name, index) => {
    try {
      const plugin = loadPluginPackage(name, baseDir);
      if (current.has(plugin.definition.name)) {
        const message = `(npm package) defines the transform "${plugin.definition.name}", a name already taken by a built-in or another plugin; rename it in the package.`;
        throw new PluginError(name, message);
      }
      current = current.with(plugin.definition);
      loaded.push(plugin);
    } catch (error) {
      if (!(error instanceof PluginError)) throw error;
      failures.push({ index, error });
    }
  });
  return { registry: current, loaded, failures };
}
