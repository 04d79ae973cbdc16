/**
 * What `mirrorflow` runs (main.ts): the command line as one bundle, `dist/src/cli/cli-bundle.code.js`,
 * which `npm run build` makes from cli.js and every module of dist it imports
 * (scripts/bundle-cli.mjs), loaded through the code cache (code-cache.ts). Finding, reading and
 * compiling mirrorflow's ~370 own files one by one was most of what was left of the start once the
 * packages were bundled (issue 42 item 9). The bundle hands its modules to any `require` of their
 * files in dist (bundled-modules.ts), so a plugin gets the same plugin API, classes and tokens as
 * the bundle runs.
 *
 * The separate files of dist run instead when there is no bundle, when `tsc` compiled again after
 * the bundle was made (dist/tsconfig.tsbuildinfo changed: the bundle would run older code), or
 * with `MIRRORFLOW_NO_BUNDLE=1` (to debug with dist's own files and their source maps).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadBundle } from './code-cache';

/** What scripts/bundle-cli.mjs writes to `cli-bundle.json` beside the bundle. */
export interface CliBundle {
  /** The bundle's file, in this folder. */
  readonly code: string;
  /** Its hash, naming its code cache. */
  readonly hash: string;
  /** `mtimeMs` of dist/tsconfig.tsbuildinfo when the bundle was made (null: there was none). */
  readonly tsBuildInfoMtimeMs: number | null;
}

export const CLI_BUNDLE_INFO = join(__dirname, 'cli-bundle.json');
const TS_BUILD_INFO = join(__dirname, '..', '..', 'tsconfig.tsbuildinfo');

/**
 * The bundle to run, or undefined for dist's own files. tsc writes its build info only when it
 * emits, so one `stat` tells whether dist changed after the bundle was made; an installed package
 * has no build info, and its bundle is current.
 */
export function currentCliBundle(
  info: string = CLI_BUNDLE_INFO,
  tsBuildInfo: string = TS_BUILD_INFO,
  env: NodeJS.ProcessEnv = process.env,
): CliBundle | undefined {
  if (env['MIRRORFLOW_NO_BUNDLE'] === '1') return undefined;
  let bundle: CliBundle;
  try {
    bundle = JSON.parse(readFileSync(info, 'utf8')) as CliBundle;
  } catch {
    return undefined;
  }
  const compiled = statSync(tsBuildInfo, { throwIfNoEntry: false });
  if (compiled !== undefined && compiled.mtimeMs !== bundle.tsBuildInfoMtimeMs) return undefined;
  return bundle;
}

/** Runs the command line as the module `host` (main.ts's). */
export function loadCli(host: NodeJS.Module): void {
  const bundle = currentCliBundle();
  if (bundle === undefined) host.require('./cli');
  else loadBundle(host, join(__dirname, bundle.code), bundle.hash);
}
