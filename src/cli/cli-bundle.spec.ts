/**
 * The CLI's bundle (scripts/bundle-cli.mjs, run by load-cli.ts): made from dist as it is, run only
 * while current, and sharing its modules with whatever requires their files (bundled-modules.ts).
 * That plugins get the bundle's plugin API is shown through the binary in test/cli/plugins.spec.ts;
 * what a start loads, in test/cli/run-path-modules.spec.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shareBundledModules } from './bundled-modules';
import { CLI_BUNDLE_INFO, currentCliBundle, type CliBundle } from './load-cli';

const dist = join(__dirname, '..', '..');
const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('the CLI bundle', () => {
  it('is current: built from the files of dist as they are now (npm run build makes it)', () => {
    const info = JSON.parse(readFileSync(CLI_BUNDLE_INFO, 'utf8')) as CliBundle;
    const inputs = JSON.parse(readFileSync(join(__dirname, 'cli-bundle.inputs.json'), 'utf8')) as Record<string, string>;
    const changed = Object.entries(inputs)
      .filter(([file, hash]) => {
        try {
          return sha256(join(dist, file)) !== hash;
        } catch {
          return true;
        }
      })
      .map(([file]) => file);
    assert.deepEqual(changed, [], 'files of dist changed after the CLI bundle was made: run `npm run build`');
    assert.ok(
      Object.keys(inputs).includes('src/cli/cli.js') && Object.keys(inputs).includes('src/vendor/kafkajs-bundle.code.js'),
      'the bundle holds the CLI and the packages',
    );
    assert.equal(sha256(join(__dirname, info.code)).slice(0, 16), info.hash, 'cli-bundle.json names the bundle that is there');
    assert.deepEqual(currentCliBundle(), info, 'main.js runs it');
  });

  it('runs only while tsc has not compiled again since it was made, and not with MIRRORFLOW_NO_BUNDLE=1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-cli-bundle-'));
    try {
      const info = join(dir, 'cli-bundle.json');
      const tsBuildInfo = join(dir, 'tsconfig.tsbuildinfo');
      writeFileSync(tsBuildInfo, '{}');
      utimesSync(tsBuildInfo, 1_000_000, 1_000_000);
      const bundle: CliBundle = { code: 'cli-bundle.code.js', hash: '0123456789abcdef', tsBuildInfoMtimeMs: 1_000_000_000 };
      writeFileSync(info, JSON.stringify(bundle));
      assert.deepEqual(currentCliBundle(info, tsBuildInfo, {}), bundle);
      assert.equal(currentCliBundle(info, tsBuildInfo, { MIRRORFLOW_NO_BUNDLE: '1' }), undefined, 'turned off');
      assert.deepEqual(currentCliBundle(info, join(dir, 'none'), {}), bundle, 'an installed package has no build info');
      utimesSync(tsBuildInfo, 1_000_001, 1_000_001);
      assert.equal(currentCliBundle(info, tsBuildInfo, {}), undefined, 'tsc compiled again: the bundle may run older code');
      assert.equal(currentCliBundle(join(dir, 'missing.json'), tsBuildInfo, {}), undefined, 'no bundle: dist');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("hands its module to a require of the module's file, run on first use, never the file", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-shared-'));
    try {
      // The files exist, as dist's do; their own code must never run.
      writeFileSync(join(dir, 'shared.js'), "throw new Error('the file ran, not the bundle');");
      writeFileSync(join(dir, 'kept.js'), "module.exports = 'from disk';");
      const script = `
        require(${JSON.stringify(join(dir, 'kept.js'))});
        // As the bundle's own require of a module: run at its first call, the same exports after.
        let runs = 0;
        let exports;
        require(${JSON.stringify(join(__dirname, 'bundled-modules.js'))}).shareBundledModules(${JSON.stringify(dir)}, {
          'shared.js': () => (exports ??= (runs++, { instance: 'bundle' })),
          'kept.js': () => 'from the bundle',
        });
        const before = runs;
        const a = require(${JSON.stringify(join(dir, 'shared.js'))});
        const b = require(${JSON.stringify(join(dir, 'shared.js'))});
        process.stdout.write(JSON.stringify({ before, runs, same: a === b, a, kept: require(${JSON.stringify(join(dir, 'kept.js'))}) }));
      `;
      const got = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as unknown;
      assert.deepEqual(got, { before: 0, runs: 1, same: true, a: { instance: 'bundle' }, kept: 'from disk' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves an entry of the cache that is already there', () => {
    const cache: NodeJS.Dict<NodeJS.Module> = {};
    shareBundledModules('/dist', { 'a.js': () => 'bundle' }, cache);
    const entry = cache[join('/dist', 'a.js')];
    assert.equal(entry?.exports, 'bundle');
    shareBundledModules('/dist', { 'a.js': () => 'other' }, cache);
    assert.equal(cache[join('/dist', 'a.js')], entry);
  });
});
