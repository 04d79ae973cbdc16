/**
 * V8's code cache for the bundled packages (dist/src/vendor, scripts/bundle-vendor.mjs) on Node
 * versions without `module.enableCompileCache` (before 22.1): compiling those few large files was
 * most of what is left of the CLI's start once they were bundled (issue 42 item 9). The first start
 * compiles a bundle as `require` would and, a few seconds later or at exit, writes V8's cache of it
 * (the code of every function compiled so far) to a file; later starts hand that to V8 instead of
 * compiling again.
 *
 * Off unless `compile-cache.ts` (imported first by the CLI) turns it on: any other process, a
 * test's for one, loads the bundles with plain `require`. A cache file is named by the bundle's
 * hash (computed when it was built, so the file is never read to check it), the Node version and
 * the architecture, so a rebuilt bundle or another Node never reads a stale one; V8 checks it
 * again and rejects what does not fit. A folder that cannot be made or written, or one that is not
 * this user's alone, costs a slower start, never a failed one.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script, constants as vmConstants } from 'node:vm';

let folder: string | undefined;

/** Bundles run without a usable cache, whose cache is written once the start is over. */
const toWrite: { readonly script: Script; readonly file: string }[] = [];
let writeScheduled = false;

/** How long after the first bundle loaded the cache is written: the start is over by then. */
const WRITE_AFTER_MS = 5000;

/**
 * Loads the bundled packages through the code cache in `dir` (made if missing) from now on. Not
 * turned on when the folder cannot be made, or can be written by other users (V8 would run what
 * they put there).
 */
export function enableCodeCache(dir: string = join(tmpdir(), `mirrorflow-code-cache-${process.getuid?.() ?? 'user'}`)): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    const owner = process.getuid?.();
    if (!stat.isDirectory() || (owner !== undefined && stat.uid !== owner) || (stat.mode & 0o022) !== 0) return;
    folder = dir;
  } catch {
    folder = undefined;
  }
}

/** The folder in use, or undefined when the code cache is off (the specs). */
export function codeCacheFolder(): string | undefined {
  return folder;
}

/** The bundles this process ran from their cache, and those it compiled. */
const use = { fromCache: [] as string[], compiled: [] as string[] };

/** What the code cache did in this process so far (its spec). */
export function codeCacheUse(): { readonly fromCache: readonly string[]; readonly compiled: readonly string[] } {
  return { fromCache: [...use.fromCache], compiled: [...use.compiled] };
}

/**
 * Runs the bundle `file` as the module `module` (a stub of dist/src/vendor, whose exports become
 * the bundle's), through the code cache when it is on; `hash`: the bundle's, from its build.
 */
export function loadBundle(module: NodeJS.Module, file: string, hash: string): void {
  // With `--enable-source-maps`, `require`: Node maps a stack through the bundle's source map only
  // for code it compiled itself, not for a vm.Script's.
  if (folder === undefined || process.sourceMapsEnabled) {
    module.exports = module.require(file);
    return;
  }
  const cacheFile = join(folder, `${basename(file, '.js')}-${hash}-${process.version}-${process.arch}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), {
    filename: file,
    cachedData,
    // As for a module `require` loads: an `import()` in the bundle goes to Node's own loader. Node 20
    // drops this for a script compiled from cached data ("A dynamic import callback was not
    // specified"), so the bundles import nothing with import() (scripts/bundle-cli.mjs checks the CLI's).
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const wrapper = script.runInThisContext({ displayErrors: true }) as (
    exports: unknown,
    require: NodeJS.Require,
    module: NodeJS.Module,
    filename: string,
    dirname: string,
  ) => void;
  wrapper.call(module.exports, module.exports, Module.createRequire(file), module, file, dirname(file));
  if (cachedData !== undefined && script.cachedDataRejected !== true) {
    use.fromCache.push(file);
    return;
  }
  use.compiled.push(file);
  toWrite.push({ script, file: cacheFile });
  if (writeScheduled) return;
  writeScheduled = true;
  // Written after the start (or at exit, for a short command), not when the bundle's module ran:
  // V8 compiles a function at its first call, and the cache holds only what was compiled by then.
  setTimeout(flushCodeCache, WRITE_AFTER_MS).unref();
  process.once('exit', flushCodeCache);
}

/** Writes the cache of every bundle compiled so far that has none (at once, not after the start). */
export function flushCodeCache(): void {
  for (const { script, file } of toWrite.splice(0)) {
    const partial = `${file}.${process.pid}`;
    try {
      writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
      renameSync(partial, file);
    } catch {
      // Not cached this time; the next start tries again.
      rmSync(partial, { force: true });
    }
  }
}
