/**
 * The CLI's bundle (scripts/bundle-cli.mjs) holds mirrorflow's modules of dist, each once. Code
 * outside the bundle can still `require` those files: a plugin folder's `../../src/plugins/api`,
 * `mirrorflow/plugin-api` (plugin-api-resolution.ts names a file of dist), a command's file that the
 * bundle left out. Loaded from disk, such a file would be a second instance beside the bundle's —
 * another `PluginError` for `instanceof`, another zod, other DI tokens. So the bundle puts each of
 * its modules in `require`'s cache under its file in dist, evaluated on the first `require` that
 * asks for it (or the bundle's own first use): one instance of each, whoever asks.
 */
import Module from 'node:module';
import { join } from 'node:path';

/**
 * Makes `require` of each file (relative to `dist`) return what `load` gives, the bundle's instance
 * of that module, from the first time it is asked for on. A file already in the cache keeps its
 * entry (loaded from disk before the bundle ran: main.js and the code cache).
 */
export function shareBundledModules(dist: string, modules: Readonly<Record<string, () => unknown>>, cache: NodeJS.Dict<NodeJS.Module> = require.cache): void {
  for (const [file, load] of Object.entries(modules)) {
    const filename = join(dist, file);
    if (cache[filename] !== undefined) continue;
    const module = new Module(filename);
    module.filename = filename;
    module.loaded = true;
    Object.defineProperty(module, 'exports', { get: load, enumerable: true, configurable: true });
    cache[filename] = module;
  }
}
