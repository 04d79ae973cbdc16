import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { exitCodeFor, ExitCode } from '../exit-codes';
import { validateAction } from './validate.action';

const good = ['clusters:', '  a: { bootstrap_servers: "h:1" }', '  b: { bootstrap_servers: "h:2" }', 'flows:', '  - source: a', '    target: b'].join('\n');

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
    await assert.rejects(
      validateAction({ files, set: [], pluginDirs: [] }, (line) => printed.push(line)),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(exitCodeFor(error), ExitCode.config);
        const lines = error.issues.map((issue) => formatConfigIssue(issue));
        assert.equal(lines[0], `${join(dir, 'bad.yaml')}:7:5: flows[0].batchng: unknown key\n  hint: did you mean "batching"?`);
        assert.match(lines[1]!, new RegExp(`^${join(dir, 'bad.yaml')}:9:\\d+: flows\\[0\\]\\.transforms\\[0\\]\\.type: .*no_such_transform`));
        assert.equal(lines[2], `${join(dir, 'missing.yaml')}: cannot read the pipeline file: no such file`);
        return true;
      },
    );
    assert.deepEqual(printed, [`${join(dir, 'good.yaml')}: ok`]);
  });

  it('applies --set like run does', async () => {
    await assert.rejects(
      validateAction({ files: [join(dir, 'good.yaml')], set: ['flows.0.batching.max_records=0'], pluginDirs: [] }, () => {}),
      (error: unknown) => error instanceof ConfigError && error.issues[0]?.path === 'flows[0].batching.max_records',
    );
  });
});

describe('mirrorflow validate with mm2.properties', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorflow-validate-mm2-'));
    const mm2 = [
      'clusters = a, b',
      'a.bootstrap.servers = h:1',
      'b.bootstrap.servers = h:2',
      'a->b.enabled = true',
      // MM2 reads it per target cluster only: a warning.
      'exactly.once.source.support = enabled',
      'sync.topic.acls.enabled = false',
    ];
    writeFileSync(join(dir, 'mm2.properties'), mm2.join('\n'));
    writeFileSync(join(dir, 'mm2.conf'), mm2.join('\n'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('checks a .properties file as MM2 reads it, and prints its warnings apart', async () => {
    const printed: string[] = [];
    const warned: string[] = [];
    await validateAction(
      { files: [join(dir, 'mm2.properties')], set: [], pluginDirs: [] },
      (line) => printed.push(line),
      (line) => warned.push(line),
    );
    assert.deepEqual(printed, [`${join(dir, 'mm2.properties')}: ok`]);
    assert.deepEqual(warned, [
      `${join(dir, 'mm2.properties')}:5:1: warning: exactly.once.source.support: has no effect at the top level: MM2 reads it only per target cluster\n  hint: write it as <cluster>.exactly.once.source.support`,
    ]);
  });

  it('says so when a properties file is read as YAML', async () => {
    await assert.rejects(
      validateAction({ files: [join(dir, 'mm2.conf')], set: [], pluginDirs: [] }, () => {}),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(
          formatConfigIssue(error.issues[0]!),
          /the top level must be a map\n {2}hint: this looks like an MM2 driver file: give it the \.properties extension to run it as one/,
        );
        return true;
      },
    );
  });
});
