import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { cliDocPath, cliPage } from './cli-reference';
import { buildProgram } from './program';

function everyCommand(command: Command): Command[] {
  return command.commands.flatMap((sub) => [sub, ...everyCommand(sub)]);
}

describe('command-line reference', () => {
  it('in docs/cli.md matches the program (regenerate: npm run docs)', () => {
    assert.equal(readFileSync(cliDocPath, 'utf8'), cliPage());
  });

  it('has a section for every command and sub-command, with each option and its default', () => {
    const page = cliPage();
    for (const command of everyCommand(buildProgram())) {
      const path: string[] = [];
      for (let c: Command | null = command; c !== null; c = c.parent) path.unshift(c.name());
      assert.match(page, new RegExp(`\\n#{2,4} \`${path.join(' ')}\`\\n`), path.join(' '));
      for (const option of command.options) assert.ok(page.includes(option.flags.replace(/\|/g, '\\|')), `${path.join(' ')} ${option.flags}`);
    }
    assert.match(page, /\| `--shutdown-timeout <ms>` \| how long a stop may take to drain \(default: 30000\) \|/);
    assert.match(page, /\n## Exit codes\n\n\| code \| \| meaning \|\n\|---\|---\|---\|\n\| 0 \| done \| /);
  });
});
