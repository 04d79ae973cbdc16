import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
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

/** Every command of the program, the program first. */
function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

describe('help texts', () => {
  it('print every default one way, (default: value) at the end, never as JSON, an empty list or false', () => {
    for (const command of everyCommand(buildProgram())) {
      const help = command.helpInformation();
      assert.doesNotMatch(help, /default: ["[]|default: false|choices:/, `${command.name()}:\n${help}`);
      // A default is the option's or argument's to say, which the help prints at the end.
      for (const { description } of [...command.options, ...command.registeredArguments]) {
        assert.doesNotMatch(description, /\bdefault\b/, `a default written in a description of ${command.name()}: ${description}`);
      }
    }
  });

  it('say that the commands reading one pipeline take MM2 files too', () => {
    const program = buildProgram();
    for (const path of [['failover'], ['offsets', 'translate'], ['clusters', 'upstream'], ['diff'], ['migrate']]) {
      const command = path.reduce<Command>((parent, name) => parent.commands.find((c) => c.name() === name)!, program);
      assert.match(command.helpInformation().replace(/\s+/g, ' '), /MM2 driver file \(\*\.properties\)/, path.join(' '));
    }
  });

  it('keep the two tests apart: plugins check (formerly plugins test) and test', () => {
    const plugins = buildProgram().commands.find((c) => c.name() === 'plugins')!;
    const check = plugins.commands.find((c) => c.name() === 'check')!;
    assert.deepEqual(check.aliases(), ['test']);
    assert.match(check.description(), /mirrorflow test` runs pipeline tests/);
  });

  it('list the commands in a short overview, by what one wants to do', () => {
    const help = buildProgram().helpInformation();
    for (const group of ['Replicate:', 'Check a pipeline:', 'Operate:', 'Plugins and local Kafka:']) assert.ok(help.includes(group), group);
    assert.ok(help.split('\n').length < 40, help);
  });
});
