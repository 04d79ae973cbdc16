import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { exitCodeFor, ExitCode } from '../exit-codes';
import { validateAction } from './validate.action';

const good = [
  'clusters:',
  '  a: { bootstrap_servers: "h:1" }',
  '  b: { bootstrap_servers: "h:2" }',
  'flows:',
  '  - source: a',
  '    target: b',
].join('\n');

describe('mirrorflow validate', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorflow-validate-'));
    writeFileSync(join(dir, 'good.yaml'), good);
    writeFileSync(join(dir, 'bad.yaml'), `${good}\n    batchng: {}\n    transforms:\n      - type: no_such_transform\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints FILE: ok for each valid file', async () => {
    const printed: string[] = [];
    await validateAction({ files: [join(dir, 'good.yaml')], set: [], pluginDirs: [] }, (line) => printed.push(line));
    assert.deepEqual(printed, [`${join(dir, 'good.yaml')}: ok`]);
  });

  it('checks every file, then fails with the problems of all bad ones, transforms included', async () => {
    const printed: string[] = [];
    const files = [join(dir, 'bad.yaml'), join(dir, 'good.yaml'), join(dir, 'missing.yaml')];
    await assert.rejects(validateAction({ files, set: [], pluginDirs: [] }, (line) => printed.push(line)), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(exitCodeFor(error), ExitCode.config);
      const lines = error.issues.map(formatConfigIssue);
      assert.equal(lines[0], `${join(dir, 'bad.yaml')}:7:5: unknown key "batchng" at flows[0].batchng (did you mean "batching"?)`);
      assert.match(lines[1]!, new RegExp(`^${join(dir, 'bad.yaml')}:9:\\d+: .*no_such_transform.* at flows\\[0\\]\\.transforms\\[0\\]\\.type`));
      assert.equal(lines[2], `${join(dir, 'missing.yaml')}: cannot read the pipeline file: no such file`);
      return true;
    });
    assert.deepEqual(printed, [`${join(dir, 'good.yaml')}: ok`]);
  });

  it('applies --set like run does', async () => {
    await assert.rejects(
      validateAction({ files: [join(dir, 'good.yaml')], set: ['flows.0.batching.max_records=0'], pluginDirs: [] }, () => {}),
      (error: unknown) => error instanceof ConfigError && error.issues[0]?.path === 'flows[0].batching.max_records',
    );
  });
});
