/**
 * A plugin reaches mirrorflow's plugin API by the package's name, `require('mirrorflow/plugin-api')`
 * (and its tests `require('mirrorflow/plugin-contract')`), wherever the plugin lives: beside the
 * pipeline, mounted into the container image, or in an npm package. Node would look for a
 * `mirrorflow` package in `node_modules` folders above the plugin only, where there is none when
 * mirrorflow is linked, installed globally or runs in the image; so while mirrorflow loads plugins,
 * these two names resolve to the modules of the mirrorflow that is running. A plugin thus gets the
 * very API instance its host uses (its `z`, its `PluginError` for `instanceof`), never a second
 * copy that happens to be installed next to it.
 *
 * Node (20) offers no public hook for `require` resolution (`module.registerHooks` comes with 22.15),
 * so this wraps `Module._resolveFilename`, the function every `require` calls; it is the one place
 * mirrorflow touches Node's module internals, and `plugin-api-resolution.spec.ts` fails the day
 * Node changes it. Outside mirrorflow (a plugin's own `node --test`), the package's `exports` map
 * of package.json gives the same names to a `mirrorflow` found in `node_modules` or `NODE_PATH`.
 */
import Module from 'node:module';
import { join } from 'node:path';

/** The subpaths of the package's `exports` that plugins use, to this installation's compiled modules. */
export const PLUGIN_API_MODULES: Readonly<Record<string, string>> = {
  'mirrorflow/plugin-api': join(__dirname, 'api.js'),
  'mirrorflow/plugin-contract': join(__dirname, 'contract.js'),
};

/** What this module uses of Node's CommonJS loader, which @types/node does not declare. */
interface ModuleInternals {
  _resolveFilename(this: unknown, request: string, ...rest: unknown[]): string;
}

let installed = false;

/** Makes the plugin API's names resolve to this installation, for every `require` from now on; idempotent. */
export function resolvePluginApiHere(): void {
  if (installed) return;
  const internals = Module as unknown as ModuleInternals;
  const resolveFilename = internals._resolveFilename;
  if (typeof resolveFilename !== 'function') return;
  internals._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
    return PLUGIN_API_MODULES[request] ?? resolveFilename.call(this, request, ...rest);
  };
  installed = true;
}
