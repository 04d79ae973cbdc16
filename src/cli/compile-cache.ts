/**
 * Node's on-disk compile cache (`module.enableCompileCache`, Node 22.1 and later): the second and
 * later starts of the CLI reuse V8's compiled code of every CommonJS module instead of compiling
 * about a thousand modules again, the largest part of its start (issue 42 item 9: `wrapSafe`, the
 * compiler, was a quarter of the CPU before the first request). Imported first by main.ts, so it
 * is on before the rest loads. On Node 20, which has no such API, it turns on mirrorflow's own
 * code cache for the bundled packages instead (code-cache.ts), in NODE_COMPILE_CACHE if set.
 * `NODE_DISABLE_COMPILE_CACHE=1` turns either off, as for Node itself.
 */
import * as nodeModule from 'node:module';
import { enableCodeCache } from './code-cache';

type EnableCompileCache = (directory?: string) => unknown;

const enable = (nodeModule as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
if (typeof enable === 'function' && process.env['NODE_DISABLE_COMPILE_CACHE'] === undefined) {
  try {
    // Node's own default folder (NODE_COMPILE_CACHE, or one under the OS temp dir).
    enable();
  } catch {
    // A cache that cannot be written costs a slower start, never a failed one.
  }
} else if (process.env['NODE_DISABLE_COMPILE_CACHE'] === undefined) {
  enableCodeCache(process.env['NODE_COMPILE_CACHE'] || undefined);
}
