import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildProgram } from './program';

/** Modules of this process that match `pattern` (node --test runs each spec file in its own process). */
function loaded(pattern: RegExp): string[] {
  return Object.keys(require.cache).filter((file) => pattern.test(file));
}

describe('mirrorflow command line', () => {
  it('builds every command without loading an action, Kafka client or pipeline code', () => {
    const names = buildProgram().commands.map((command) => command.name());
    assert.ok(names.includes('run') && names.includes('local') && names.includes('migrate'), names.join(' '));
    assert.deepEqual(loaded(/[\\/]node_modules[\\/](kafkajs|zod|yaml|prom-client|node-forge|jks-js|winston)[\\/]/), []);
    assert.deepEqual(loaded(/[\\/]src[\\/](cli[\\/]actions|pipeline|flow|kafka|config)[\\/]/), []);
  });
});

describe('mirrorflow --version', () => {
  it('is the version of package.json, under -V and --version', () => {
    const program = buildProgram();
    assert.match(program.version() ?? '', /^mirrorflow \d+\.\d+\.\d+/);
    assert.ok(program.options.some((option) => option.short === '-V' && option.long === '--version'));
  });
});
