/**
 * `mirrorflow validate` as a newcomer and a CI job use it, through the built CLI: Kafka's own
 * driver example (a flow without its enabled line: a warning, before the verdict), a production
 * file on a build machine without its secrets (`--no-resolve`), a report for scripts (`--json`),
 * and warnings that fail a build (`--strict`). Nothing here connects to Kafka.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { MIRRORFLOW_MAIN, mirrorflow } from './cli';

const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-validate-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Kafka's config/connect-mirror-maker.properties, as a newcomer first writes it: no enabled line. */
const DRIVER_EXAMPLE = [
  'clusters = primary, backup',
  'primary.bootstrap.servers = 127.0.0.1:9092',
  'backup.bootstrap.servers = 127.0.0.1:9093',
  'primary->backup.topics = .*',
];
const NOT_ENABLED = [
  "mm2.properties:4:1: warning: primary->backup.topics: primary->backup is not enabled (MM2's default); line 4 has no effect",
  '  hint: to replicate, add primary->backup.enabled = true',
];

/** A production pipeline: every value that differs per environment is a reference, and the CA is on the production host only. */
const PRODUCTION = [
  'clusters:',
  '  primary: { bootstrap_servers: "${PRIMARY_BOOTSTRAP}" }',
  '  backup:',
  '    bootstrap_servers: "${env:BACKUP_BOOTSTRAP}"',
  '    security:',
  '      protocol: sasl_ssl',
  '      sasl: { mechanism: scram-sha-512, username: mirror, password: "${file:/run/secrets/kafka.properties:password}" }',
  '      ssl: { ca_file: /etc/mirrorflow/tls/ca.pem }',
  'flows:',
  '  - { source: primary, target: backup, topics: ["orders.*"] }',
];

function write(name: string, lines: readonly string[]): string {
  writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
  return name;
}

/** stdout and stderr in the order a terminal shows them. */
function merged(args: readonly string[], env: NodeJS.ProcessEnv = {}): { code: number | null; output: string } {
  const { status, stdout } = spawnSync('sh', ['-c', `"${process.execPath}" "${MIRRORFLOW_MAIN}" "$@" 2>&1`, 'sh', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { code: status, output: stdout };
}

describe('mirrorflow validate', () => {
  test('warns about a flow MM2 leaves off, before the verdict; convert says it too; --strict fails on it', async () => {
    write('mm2.properties', DRIVER_EXAMPLE);
    const validated = merged(['validate', 'mm2.properties']);
    assert.equal(validated.code, 0, validated.output);
    assert.equal(validated.output, [...NOT_ENABLED, 'mm2.properties: ok (1 warning)', ''].join('\n'));

    const converted = await mirrorflow(['convert', 'mm2.properties'], { cwd: dir });
    assert.equal(converted.code, 0, converted.stderr);
    assert.equal(converted.stderr, [...NOT_ENABLED, ''].join('\n'));

    const strict = merged(['validate', '--strict', 'mm2.properties']);
    assert.equal(strict.code, 78, strict.output);
    assert.equal(strict.output, [...NOT_ENABLED, 'mm2.properties: 1 warning (--strict)', ''].join('\n'));
  });

  test('--no-resolve passes a production file on a machine without its variables, secrets and certificates', async () => {
    write('production.yaml', PRODUCTION);
    const env = { PRIMARY_BOOTSTRAP: undefined, BACKUP_BOOTSTRAP: undefined };
    const resolved = await mirrorflow(['validate', 'production.yaml'], { cwd: dir, env });
    assert.equal(resolved.code, 78, resolved.stderr);
    assert.match(resolved.stderr, /^production\.yaml:2:34: clusters\.primary\.bootstrap_servers: variable PRIMARY_BOOTSTRAP is not set$/m);
    assert.match(resolved.stderr, /^production\.yaml: 3 problems$/m);

    const checked = await mirrorflow(['validate', '--no-resolve', 'production.yaml'], { cwd: dir, env });
    assert.equal(checked.code, 0, checked.stderr);
    assert.equal(checked.stdout, 'production.yaml: ok (${…} not resolved)\n');

    // What can be checked still is: a reference that cannot be one, and everything else of the file.
    write('broken.yaml', [...PRODUCTION.slice(0, -1), '  - { source: primary, target: backup, topics: ["${env:NOT A NAME}"], batchng: {} }']);
    const broken = await mirrorflow(['validate', '--no-resolve', 'broken.yaml'], { cwd: dir, env });
    assert.equal(broken.code, 78, broken.stderr);
    assert.match(broken.stderr, /^broken\.yaml:10:\d+: flows\[0\]\.topics\[0\]: invalid reference "\$\{env:NOT A NAME\}"$/m);
    assert.match(broken.stderr, /^broken\.yaml:10:\d+: flows\[0\]\.batchng: unknown key$/m);
  });

  test('--json prints one document with every problem and warning, and nothing else', async () => {
    write('mm2.properties', DRIVER_EXAMPLE);
    write('typo.yaml', [
      'clusters:',
      '  a: { bootstrap_servers: "h:1" }',
      '  b: { bootstrap_servers: "h:2" }',
      'flows:',
      '  - { source: a, target: b, batchng: {} }',
    ]);
    const result = await mirrorflow(['validate', '--json', 'mm2.properties', 'typo.yaml'], { cwd: dir });
    assert.equal(result.code, 78);
    assert.equal(result.stderr, '');
    assert.deepEqual(JSON.parse(result.stdout), {
      ok: false,
      files: [
        { file: 'mm2.properties', ok: true, problems: 0, warnings: 1, resolved: true },
        { file: 'typo.yaml', ok: false, problems: 1, warnings: 0, resolved: true },
      ],
      problems: [{ file: 'typo.yaml', line: 5, column: 29, key: 'flows[0].batchng', message: 'unknown key', hint: 'did you mean "batching"?' }],
      warnings: [
        {
          file: 'mm2.properties',
          line: 4,
          column: 1,
          key: 'primary->backup.topics',
          message: "primary->backup is not enabled (MM2's default); line 4 has no effect",
          hint: 'to replicate, add primary->backup.enabled = true',
        },
      ],
    });
  });
});
