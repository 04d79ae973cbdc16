/**
 * The command line as a newcomer meets it, run as the built CLI: `--version`, and (further down)
 * what a usage error prints, the exit codes and the help texts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { mirrorflow } from '../config/cli';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

describe('mirrorflow --version', () => {
  for (const flag of ['--version', '-V']) {
    test(`${flag} prints the name and version, and exits 0`, async () => {
      const result = await mirrorflow([flag]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `mirrorflow ${version}\n`);
      assert.equal(result.stderr, '');
    });
  }
});
