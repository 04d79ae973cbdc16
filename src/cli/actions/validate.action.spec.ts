import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { exitCodeFor, ExitCode } from '../exit-codes';
import { validateAction, type ValidateReport } from './validate.action';

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

  it('checks every file, prints the problems of each before its verdict, then fails with them all, transforms included', async () => {
    const printed: string[] = [];
    const warned: string[] = [];
    const files = [join(dir, 'bad.yaml'), join(dir, 'good.yaml'), join(dir, 'missing.yaml')];
    await assert.rejects(
      validateAction(
        { files, set: [], pluginDirs: [] },
        (line) => printed.push(line),
        (line) => warned.push(line),
      ),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(exitCodeFor(error), ExitCode.config);
        assert.ok(error.reported, 'printed already: the entry point only exits');
        const lines = error.issues.map((issue) => formatConfigIssue(issue));
        assert.equal(lines[0], `${join(dir, 'bad.yaml')}:7:5: flows[0].batchng: unknown key\n  hint: did you mean "batching"?`);
        assert.match(lines[1]!, new RegExp(`^${join(dir, 'bad.yaml')}:9:\\d+: flows\\[0\\]\\.transforms\\[0\\]\\.type: .*no_such_transform`));
        assert.equal(lines[2], `${join(dir, 'missing.yaml')}: cannot read the pipeline file: no such file`);
        return true;
      },
    );
    assert.deepEqual(printed, [`${join(dir, 'good.yaml')}: ok`]);
    assert.deepEqual(warned.slice(2), [
      `${join(dir, 'bad.yaml')}: 2 problems`,
      `${join(dir, 'missing.yaml')}: cannot read the pipeline file: no such file`,
      `${join(dir, 'missing.yaml')}: 1 problem`,
      'mirrorflow: 2 of 3 files failed',
    ]);
  });

  it('--json prints one document of every file, problem and warning, with the same places', async () => {
    const printed: string[] = [];
    const warned: string[] = [];
    await assert.rejects(
      validateAction(
        { files: [join(dir, 'good.yaml'), join(dir, 'bad.yaml')], set: [], pluginDirs: [], json: true },
        (line) => printed.push(line),
        (line) => warned.push(line),
      ),
    );
    assert.deepEqual(warned, [], 'nothing but the document');
    const report = JSON.parse(printed.join('\n')) as ValidateReport;
    assert.equal(report.ok, false);
    assert.deepEqual(
      report.files.map((f) => [f.file, f.ok, f.problems]),
      [
        [join(dir, 'good.yaml'), true, 0],
        [join(dir, 'bad.yaml'), false, 2],
      ],
    );
    assert.deepEqual(report.problems[0], {
      file: join(dir, 'bad.yaml'),
      line: 7,
      column: 5,
      key: 'flows[0].batchng',
      message: 'unknown key',
      hint: 'did you mean "batching"?',
    });
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

  it('checks a .properties file as MM2 reads it, and prints its warnings apart, before its verdict', async () => {
    const printed: string[] = [];
    const warned: string[] = [];
    await validateAction(
      { files: [join(dir, 'mm2.properties')], set: [], pluginDirs: [] },
      (line) => printed.push(line),
      (line) => {
        assert.deepEqual(printed, [], 'warnings come before the verdict');
        warned.push(line);
      },
    );
    assert.deepEqual(printed, [`${join(dir, 'mm2.properties')}: ok (1 warning)`]);
    assert.deepEqual(warned, [
      `${join(dir, 'mm2.properties')}:5:1: warning: exactly.once.source.support: has no effect at the top level: MM2 reads it only per target cluster\n  hint: write it as <cluster>.exactly.once.source.support`,
    ]);
  });

  it('--strict fails on warnings', async () => {
    const warned: string[] = [];
    await assert.rejects(
      validateAction(
        { files: [join(dir, 'mm2.properties')], set: [], pluginDirs: [], strict: true },
        () => {},
        (line) => warned.push(line),
      ),
      (error: unknown) => error instanceof ConfigError && error.issues.length === 1,
    );
    assert.equal(warned.at(-1), `${join(dir, 'mm2.properties')}: 1 warning (--strict)`);
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

describe('mirrorflow validate --no-resolve', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorflow-validate-refs-'));
    writeFileSync(
      join(dir, 'prod.yaml'),
      [
        'clusters:',
        '  a: { bootstrap_servers: "${PRIMARY_BOOTSTRAP_NOT_SET_HERE}" }',
        '  b:',
        '    bootstrap_servers: "${env:BACKUP_BOOTSTRAP_NOT_SET_HERE}"',
        '    security:',
        '      protocol: sasl_ssl',
        '      sasl: { mechanism: scram-sha-512, username: mirror, password: "${file:/run/secrets/not-here.properties:password}" }',
        '      ssl: { ca_file: /etc/ssl/not-here/ca.pem }',
        'flows:',
        '  - { source: a, target: b, batching: { max_records: "${BATCH:500}" } }',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'prod.properties'),
      [
        'clusters = a, b',
        'config.providers = env',
        'config.providers.env.class = org.apache.kafka.common.config.provider.EnvVarConfigProvider',
        'a.bootstrap.servers = ${env:A_NOT_SET_HERE}',
        'b.bootstrap.servers = ${env:B_NOT_SET_HERE}',
        'a->b.enabled = true',
        'a->b.topics = ${vault:secret/topics:list}',
      ].join('\n'),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("checks the references' syntax and providers, not their values, nor the files the pipeline names", async () => {
    const printed: string[] = [];
    await validateAction({ files: [join(dir, 'prod.yaml')], set: [], pluginDirs: [], resolve: false }, (line) => printed.push(line));
    assert.deepEqual(printed, [`${join(dir, 'prod.yaml')}: ok (\${…} not resolved)`]);
    await assert.rejects(
      validateAction(
        { files: [join(dir, 'prod.yaml')], set: [], pluginDirs: [] },
        () => {},
        () => {},
      ),
    );
  });

  it('still refuses a reference to a provider the file does not declare', async () => {
    await assert.rejects(
      validateAction(
        { files: [join(dir, 'prod.properties')], set: [], pluginDirs: [], resolve: false },
        () => {},
        () => {},
      ),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.issues.map((i) => [i.line, i.path, i.message]),
          [[7, 'a->b.topics', '${vault:secret/topics:list} uses config provider "vault", which is not declared']],
        );
        return true;
      },
    );
  });
});
