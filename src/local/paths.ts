import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { LocalKafkaError } from '../core/errors';

/**
 * Where mirrorflow keeps downloads and local-cluster state: `$MIRRORFLOW_CACHE`, else
 * `$XDG_CACHE_HOME/mirrorflow`, else `~/.cache/mirrorflow`. Outside the repository so a clean
 * clone never carries jars and several clones share one download.
 */
export function mirrorflowCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['MIRRORFLOW_CACHE']) return env['MIRRORFLOW_CACHE'];
  const base = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'mirrorflow');
}

/** Default folder for `mirrorflow local up` state (pids, ports, broker work dirs). */
export function defaultLocalStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(mirrorflowCacheDir(env), 'local');
}

/**
 * The package root (the folder holding package.json). Compiled code runs from `dist/src/local`,
 * sources from `src/local`, so walk up instead of hard-coding a depth.
 */
export function packageRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new LocalKafkaError(`No package.json was found above ${from}.`);
    dir = parent;
  }
}

/** The shipped `config/` folder (logging settings for brokers and tools). */
export function packageConfigDir(): string {
  return join(packageRoot(), 'config');
}
