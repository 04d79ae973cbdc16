import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ClusterUnavailableError, ConfigError, EndpointUnavailableError, MirrorflowError, PluginError } from '../core/errors';
import { ToolUsageError } from '../pipeline/tools/tool-errors';
import { EXIT_CODE_MEANINGS, ExitCode, exitCodeFor } from './exit-codes';

/** docs/cli.md, seen from dist/src/cli. */
const CLI_DOC = resolve(__dirname, '..', '..', '..', 'docs', 'cli.md');

describe('exit codes', () => {
  it('means one thing in every command: an unreachable cluster and an unreachable mirrorflow are both 69, a bad flag 64', () => {
    assert.equal(exitCodeFor(new ClusterUnavailableError('backup', 'cannot be reached')), ExitCode.unavailable);
    assert.equal(exitCodeFor(new EndpointUnavailableError('Cannot reach mirrorflow at http://127.0.0.1:1/status')), ExitCode.unavailable);
    assert.equal(exitCodeFor(new ToolUsageError('Not a URL: ::')), ExitCode.usage);
    assert.equal(exitCodeFor(new ConfigError([{ message: 'x' }])), ExitCode.config);
    assert.equal(exitCodeFor(new PluginError('p', 'x')), ExitCode.config);
    assert.equal(exitCodeFor(new MirrorflowError('2 pipeline tests failed')), ExitCode.failure);
    assert.equal(exitCodeFor(new TypeError('a bug')), ExitCode.software);
  });

  it("are all explained, once, and docs/cli.md's table says the same", () => {
    assert.deepEqual(
      EXIT_CODE_MEANINGS.map(([code]) => code).sort((a, b) => a - b),
      Object.values(ExitCode).sort((a, b) => a - b),
    );
    const rows = readFileSync(CLI_DOC, 'utf8')
      .split('\n')
      .flatMap((line) => {
        const row = /^\| (\d+) \| ([^|]+) \| ([^|]+) \|$/.exec(line);
        return row === null ? [] : [[Number(row[1]), row[2]!.trim(), row[3]!.trim()]];
      });
    assert.deepEqual(
      rows,
      EXIT_CODE_MEANINGS.map((row) => [...row]),
    );
  });
});
