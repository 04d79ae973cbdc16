/**
 * The command line as a newcomer meets it, run as the built CLI: `--version`, and (further down)
 * what a usage error prints, the exit codes and the help texts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
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

describe('a usage error', () => {
  test("prints the error, the command's usage line and where its help is: not the whole help", async () => {
    const result = await mirrorflow(['validate', '--bogus', 'pipeline.yaml']);
    assert.equal(result.code, 64);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, "mirrorflow: unknown option '--bogus'\nUsage: mirrorflow validate [options] <files...>\nSee `mirrorflow validate --help`.\n");
  });

  test('of a sub-command names the whole command, and an unknown command points at the overview', async () => {
    const missing = await mirrorflow(['offsets', 'translate']);
    assert.equal(missing.code, 64);
    assert.equal(
      missing.stderr,
      "mirrorflow: missing required argument 'file'\nUsage: mirrorflow offsets translate [options] <file>\nSee `mirrorflow offsets translate --help`.\n",
    );
    const unknown = await mirrorflow(['frobnicate']);
    assert.equal(unknown.code, 64);
    assert.equal(unknown.stderr, "mirrorflow: unknown command 'frobnicate'\nUsage: mirrorflow [options] [command]\nSee `mirrorflow --help`.\n");
  });

  test('in options that go together or a value that cannot be is caught before anything is asked', async () => {
    const both = await mirrorflow(['status', '--watch', '--json']);
    assert.equal(both.code, 64, both.stderr);
    assert.match(both.stderr, /^mirrorflow: option '-w, --watch' cannot be used with option '--json'\nUsage: mirrorflow status /);
    const zero = await mirrorflow(['status', '--timeout', '0']);
    assert.equal(zero.code, 64, zero.stderr);
  });
});

describe('exit codes', () => {
  /** A port nothing listens on: one that was free a moment ago. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  test('mean the same in every command: a cluster and a mirrorflow that cannot be reached both exit 69', async () => {
    const port = await closedPort();
    const status = await mirrorflow(['status', `http://127.0.0.1:${port}`]);
    assert.equal(status.code, 69, status.stderr);
    assert.match(status.stderr, new RegExp(`^mirrorflow: Cannot reach mirrorflow at http://127\\.0\\.0\\.1:${port}/status`));

    const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-cli-voice-'));
    try {
      const file = join(dir, 'unreachable.yaml');
      writeFileSync(
        file,
        `clusters:\n  a: { bootstrap_servers: "127.0.0.1:${port}" }\n  b: { bootstrap_servers: "127.0.0.1:${port}" }\nflows:\n  - { source: a, target: b }\n`,
      );
      const plan = await mirrorflow(['plan', file], { timeoutMs: 120_000 });
      assert.equal(plan.code, 69, plan.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('are listed at the end of the help', async () => {
    const help = await mirrorflow(['--help']);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /Exit codes, the same for every command .*\n {2}0 done, 1 found a problem, 64 usage, 65 record failed,\n {2}69 unavailable, 70 bug, 77 no permission, 78 configuration\n$/,
    );
  });
});
