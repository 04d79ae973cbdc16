import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * `mirrorflow --version`: the version of the installed package, read from its package.json (this
 * file runs as dist/src/cli/version.js, in a checkout as in the packed package or the image).
 */
export function versionText(packageJson = resolve(__dirname, '..', '..', '..', 'package.json')): string {
  try {
    const { name, version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { name?: unknown; version?: unknown };
    return `${typeof name === 'string' ? name : 'mirrorflow'} ${typeof version === 'string' ? version : 'unknown'}`;
  } catch {
    // A damaged installation still answers: --version is what one asks first when something is wrong.
    return 'mirrorflow (version unknown: no package.json found)';
  }
}
