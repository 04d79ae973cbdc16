/**
 * What `mirrorflow run` loads before its first request to a broker (issue 42 item 9): most of its
 * start is loading modules, so the run path is kept from growing by a count, never a time. The CLI
 * runs as one bundle (scripts/bundle-cli.mjs), whose modules run only when required; what it
 * requires is counted with dist's own files (`MIRRORFLOW_NO_BUNDLE=1`). A module `run` does not
 * need belongs behind the command or the feature that uses it (loaded by `await import(...)` in its
 * action, as every command's action is).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import type { FirstRequestProbe } from './first-request-probe';

/**
 * CommonJS modules loaded up to the first request: 1,007 when this was set (rxjs 223, kafkajs
 * 147, zod 95, yaml 72, mirrorflow's own 340, inversify as one file); 1,036 with active-active's.
 * 528 since rxjs, zod, yaml and winston are bundles too (kafkajs 147, mirrorflow's own 360, the
 * six files of src/vendor), the MM2 readers and the compression codecs are loaded on use; 540
 * with the share-group offset sync (its requests' codecs and the flexible field types they share
 * with Metadata v12, the admin's share-group calls, the share-group sync and its pass: five modules
 * the checkpoint flow and the admin import). 393 since kafkajs is a bundle too (its 147 files one,
 * with the stubs that load each bundle through the code cache: src/cli/code-cache.ts); 394 on main
 * at de05b8f. 397 with kafkajs's worker queue replaced and a source's empty partitions left out
 * of its fetches (src/kafka/wire/worker-queue.ts, which kafkajs's bundle requires when it loads,
 * and empty-partitions.ts, which install.ts does); 399 since main.js loads the command line through
 * load-cli.js, from cli.js without the bundle. 401 with a source's fetch sessions by topic id
 * (src/kafka/wire/fetch-session.ts and fetch-by-topic-id.ts, which install.ts imports). 402 with
 * forwarded admin requests waiting for their broker (src/kafka/wire/forwarded-apis.ts, which
 * install.ts imports). 403 since offset-preservation.ts keeps its markers in a module of their
 * own (preservation-markers.ts), under the 400-line rule. 404 with a Fetch of few partitions
 * sharing a larger size (src/kafka/wire/shared-fetch-bytes.ts, which install.ts imports). 406
 * with kafkajs's request queue checking pending requests only while one waits and its consumer's
 * lookups indexed (src/kafka/wire/pending-check.ts and partition-lookups.ts, which install.ts
 * imports). 407 with the Metadata response's shared replica lists (src/kafka/wire/metadata-response.ts,
 * which kafkajs's bundle requires when it loads). 408 with V8's heap growth held while a process
 * fetches many partitions (src/cli/heap-growth.ts, which run.action.ts imports). 410 with
 * produce requests written gathered and responses read whole (src/kafka/wire/gathered-writes.ts
 * and framed-reads.ts, which the request frame and the clients import). Raise it only for a
 * module the run path needs.
 */
const RUN_PATH_MODULE_BUDGET = 410;

/**
 * Files loaded up to the first request with the CLI's bundle: 11 when this was set (main.js and the
 * three modules it loads before the bundle, reflect-metadata's two, the CRC32 codec's three with its
 * native library, the two built-in plugins); the bundle itself runs through the code cache, not
 * `require`. Raise it only for a file the run path needs outside the bundle.
 */
const BUNDLED_RUN_FILE_BUDGET = 12;

/** The modules of dist main.js loads from their files before it runs the bundle (scripts/bundle-cli.mjs). */
const BEFORE_THE_BUNDLE = ['src/cli/main.js', 'src/cli/compile-cache.js', 'src/cli/code-cache.js', 'src/cli/load-cli.js'];

/** The packages `npm run build` bundles (scripts/bundle-vendor.mjs), and their bundles' files. */
const BUNDLED: readonly (readonly [pattern: RegExp, bundle: string])[] = [
  [/node_modules[\\/](inversify|@inversifyjs)[\\/]/, 'inversify.js'],
  [/node_modules[\\/]rxjs[\\/]/, 'rxjs-bundle.js'],
  [/node_modules[\\/]zod[\\/]/, 'zod.js'],
  [/node_modules[\\/]yaml[\\/]/, 'yaml.js'],
  [/node_modules[\\/](winston|logform|readable-stream)[\\/]/, 'winston.js'],
  [/node_modules[\\/]kafkajs[\\/]/, 'kafkajs-bundle.js'],
];

const dist = join(__dirname, '..', '..');

/** The package (or mirrorflow folder) a module file belongs to, for the failure message. */
function owner(file: string): string {
  const inPackage = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file.slice(file.lastIndexOf(`node_modules${sep}`)));
  if (inPackage !== null) return inPackage[1]!;
  return file.startsWith(dist)
    ? file
        .slice(dist.length + 1)
        .split(sep)
        .slice(0, 2)
        .join('/')
    : file;
}

function byOwner(files: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const f of files) counts.set(owner(f), (counts.get(owner(f)) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([o, n]) => `${o} ${n}`)
    .join(', ');
}

/** Starts `mirrorflow run` with the probe; what was loaded at its first request. */
async function probeRun(env: NodeJS.ProcessEnv = {}): Promise<FirstRequestProbe> {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-run-path-'));
  try {
    const file = join(dir, 'pipeline.yaml');
    const out = join(dir, 'probe.json');
    // Nothing listens there: the probe ends the process when it first connects.
    writeFileSync(
      file,
      [
        'name: run-path',
        'clusters:',
        '  a: { bootstrap_servers: 127.0.0.1:9 }',
        '  b: { bootstrap_servers: 127.0.0.1:9 }',
        'flows:',
        '  - { source: a, target: b }',
        '',
      ].join('\n'),
    );
    const child = spawn(
      process.execPath,
      [
        '-r',
        join(__dirname, 'first-request-probe.js'),
        join(dist, 'src', 'cli', 'main.js'),
        'run',
        file,
        '--http',
        'off',
        '--no-watch',
        '--status-interval',
        '0',
      ],
      { env: { ...process.env, ...env, MIRRORFLOW_PROBE_OUT: out }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, `mirrorflow run ended before its first request: ${stderr}`);
    return JSON.parse(readFileSync(out, 'utf8')) as FirstRequestProbe;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('mirrorflow run loads a handful of files before its first request: the CLI bundle, no module of dist or a bundled package from its file', async () => {
  const { modules, bundled } = await probeRun({ MIRRORFLOW_NO_BUNDLE: '' });
  assert.ok(bundled.includes(join(dist, 'src', 'cli', 'cli.js')), `the CLI ran from its bundle (npm run build makes it); loaded: ${byOwner(modules)}`);
  const fromDist = modules.filter(
    (m) =>
      m.startsWith(join(dist, 'src')) &&
      !BEFORE_THE_BUNDLE.includes(
        m
          .slice(dist.length + 1)
          .split(sep)
          .join('/'),
      ),
  );
  assert.deepEqual(fromDist, [], 'no module of dist/src is loaded from its own file beside the bundle');
  for (const [pattern, bundle] of BUNDLED)
    assert.deepEqual(
      modules.filter((m) => pattern.test(m)),
      [],
      `${bundle}'s package is loaded file by file`,
    );
  assert.ok(
    modules.length <= BUNDLED_RUN_FILE_BUDGET,
    `mirrorflow run loaded ${modules.length} files before its first request, over the budget of ${BUNDLED_RUN_FILE_BUDGET}: ${byOwner(modules)}`,
  );
});

test("mirrorflow run's modules without the bundle: bundled packages as one file each, no launcher, no MM2 readers", async () => {
  const { modules } = await probeRun({ MIRRORFLOW_NO_BUNDLE: '1' });
  for (const [pattern, bundle] of BUNDLED) {
    assert.deepEqual(
      modules.filter((m) => pattern.test(m)),
      [],
      `${bundle} is loaded, not its package file by file`,
    );
    assert.ok(modules.includes(join(dist, 'src', 'vendor', bundle)), `${bundle} is loaded`);
  }
  assert.deepEqual(
    modules.filter((m) => m.includes(`${sep}src${sep}config${sep}mm2${sep}`) && !/[\\/](connector-file|java-properties)\.js$/.test(m)),
    [],
    "MM2's readers are loaded for an MM2 file only",
  );
  assert.deepEqual(
    modules.filter((m) => m.includes(`${sep}src${sep}local${sep}`) && !m.endsWith(`${sep}local-defaults.js`)),
    [],
    'the local-cluster launcher is not loaded by run',
  );
  assert.ok(
    modules.length <= RUN_PATH_MODULE_BUDGET,
    `mirrorflow run loaded ${modules.length} modules before its first request, over the budget of ${RUN_PATH_MODULE_BUDGET}: ${byOwner(modules)}`,
  );
});
