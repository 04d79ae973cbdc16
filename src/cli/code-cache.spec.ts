import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const codeCache = join(__dirname, 'code-cache.js');

interface Start {
  readonly exports: unknown;
  readonly fromCache: number;
  readonly compiled: number;
  readonly on: boolean;
}

/**
 * A process that turns the code cache on in `cacheDir` (or leaves it off), loads `bundle` as a
 * stub of dist/src/vendor does, and says what it got and how; it writes the cache at exit.
 */
function start(bundle: string, hash: string, cacheDir: string | undefined): Start {
  const script = `
    const cache = require(${JSON.stringify(codeCache)});
    ${cacheDir === undefined ? '' : `cache.enableCodeCache(${JSON.stringify(cacheDir)});`}
    const stub = { exports: {}, require };
    cache.loadBundle(stub, ${JSON.stringify(bundle)}, ${JSON.stringify(hash)});
    const use = cache.codeCacheUse();
    process.stdout.write(JSON.stringify({ exports: stub.exports.answer(), fromCache: use.fromCache.length, compiled: use.compiled.length, on: cache.codeCacheFolder() !== undefined }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as Start;
}

function scratch(): { dir: string; bundle: string; cache: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-code-cache-spec-'));
  const bundle = join(dir, 'answer.code.js');
  // A bundle as esbuild writes one: CommonJS, requiring a built-in and a file beside it.
  writeFileSync(join(dir, 'beside.js'), 'module.exports = 21;\n');
  writeFileSync(
    bundle,
    "const { sep } = require('node:path');\nconst half = require('./beside.js');\nmodule.exports = { answer: () => [half * 2, typeof sep, __filename.endsWith('answer.code.js')] };\n",
  );
  return { dir, bundle, cache: join(dir, 'cache') };
}

describe('code cache of the bundled packages (Node 20)', () => {
  it('compiles a bundle at the first start, writes its cache at exit, and runs the next start from it with the same exports', () => {
    const { dir, bundle, cache } = scratch();
    try {
      const first = start(bundle, 'aaaa', cache);
      assert.deepEqual(first, { exports: [42, 'string', true], fromCache: 0, compiled: 1, on: true });
      assert.deepEqual(readdirSync(cache), [`answer.code-aaaa-${process.version}-${process.arch}.v8`]);
      assert.deepEqual(start(bundle, 'aaaa', cache), { exports: [42, 'string', true], fromCache: 1, compiled: 0, on: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("never reads another build's cache: a rebuilt bundle (another hash) compiles and writes its own", () => {
    const { dir, bundle, cache } = scratch();
    try {
      start(bundle, 'aaaa', cache);
      assert.deepEqual(start(bundle, 'bbbb', cache), { exports: [42, 'string', true], fromCache: 0, compiled: 1, on: true });
      assert.equal(readdirSync(cache).length, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('compiles when the cache file is damaged (V8 rejects it) and replaces it', () => {
    const { dir, bundle, cache } = scratch();
    try {
      start(bundle, 'aaaa', cache);
      writeFileSync(join(cache, readdirSync(cache)[0]!), 'not V8 code');
      assert.deepEqual(start(bundle, 'aaaa', cache), { exports: [42, 'string', true], fromCache: 0, compiled: 1, on: true });
      assert.deepEqual(start(bundle, 'aaaa', cache).fromCache, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stays off in a folder others can write, and when it is not turned on: the bundle loads as with require', () => {
    const { dir, bundle, cache } = scratch();
    try {
      mkdirSync(cache);
      chmodSync(cache, 0o777);
      assert.deepEqual(start(bundle, 'aaaa', cache), { exports: [42, 'string', true], fromCache: 0, compiled: 0, on: false });
      assert.deepEqual(readdirSync(cache), []);
      assert.deepEqual(start(bundle, 'aaaa', undefined), { exports: [42, 'string', true], fromCache: 0, compiled: 0, on: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is on in the CLI on Node 20: `validate` leaves the cache of the CLI's bundle, or of the packages' without it, named by their build", (t) => {
    if (typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function') {
      t.skip("Node 22.1+: compile-cache.ts turns on Node's own compile cache instead");
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-code-cache-spec-'));
    try {
      const pipeline = join(dir, 'pipeline.yaml');
      writeFileSync(
        pipeline,
        'name: cached\nclusters:\n  a: { bootstrap_servers: 127.0.0.1:9 }\n  b: { bootstrap_servers: 127.0.0.1:9 }\nflows:\n  - { source: a, target: b }\n',
      );
      const validate = (cacheDir: string, env: NodeJS.ProcessEnv): void => {
        execFileSync(process.execPath, [join(__dirname, 'main.js'), 'validate', pipeline], {
          env: { ...process.env, ...env, NODE_COMPILE_CACHE: cacheDir },
          encoding: 'utf8',
        });
      };
      const suffix = `${process.version}-${process.arch}.v8`;
      const bundled = join(dir, 'bundled');
      validate(bundled, { MIRRORFLOW_NO_BUNDLE: '' });
      const { hash: cliHash } = JSON.parse(readFileSync(join(__dirname, 'cli-bundle.json'), 'utf8')) as { hash: string };
      assert.deepEqual(readdirSync(bundled), [`cli-bundle.code-${cliHash}-${suffix}`], 'the CLI ran as one bundle (npm run build makes it)');

      const files = join(dir, 'files');
      validate(files, { MIRRORFLOW_NO_BUNDLE: '1' });
      const vendor = join(__dirname, '..', 'vendor');
      for (const bundle of ['zod', 'yaml']) {
        const hash = /'([0-9a-f]{16})'\);/.exec(readFileSync(join(vendor, `${bundle}.js`), 'utf8'))?.[1];
        assert.ok(hash !== undefined, `dist/src/vendor/${bundle}.js names no build hash`);
        assert.ok(readdirSync(files).includes(`${bundle}.code-${hash}-${suffix}`), readdirSync(files).join(', '));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
