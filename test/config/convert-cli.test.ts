/**
 * `mirrorflow convert` through the built CLI, as a user moving from MM2 runs it: a password written
 * in the clear never reaches the YAML or the terminal (an `${env:…}` reference takes its place and
 * the variable is named), the output never replaces the input nor, without --force, another
 * file, and a relative `${file:…}` stays relative to where the YAML goes, so the YAML validates
 * from there. Nothing here connects to Kafka.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { mirrorflow } from './cli';

const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-convert-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const PASSWORD = 'hunter2-in-the-clear';
const STORED = 'from-access-file-73';
const MM2 = [
  'clusters = a, b',
  'a.bootstrap.servers = 127.0.0.1:9092',
  'b.bootstrap.servers = 127.0.0.1:9093',
  'a->b.enabled = true',
  'b.security.protocol = SASL_PLAINTEXT',
  'b.sasl.mechanism = PLAIN',
  `b.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="mirror" password="${PASSWORD}";`,
  'config.providers = file',
  'config.providers.file.class = org.apache.kafka.common.config.provider.FileConfigProvider',
  'a.client.id = ${file:access.properties:client}',
];

function prepare(): string {
  writeFileSync(join(dir, 'access.properties'), `client=${STORED}\n`);
  writeFileSync(join(dir, 'm.properties'), `${MM2.join('\n')}\n`);
  return 'm.properties';
}

describe('mirrorflow convert', () => {
  test('writes a password held in the clear as ${env:…}, names the variable, and prints no secret', async () => {
    prepare();
    const result = await mirrorflow(['convert', 'm.properties'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^ {8}password: \$\{env:B_SASL_PASSWORD\} # b\.sasl\.jaas\.config \(line 7\)$/m);
    assert.equal(
      result.stderr,
      'mirrorflow: m.properties held a secret in the clear; the YAML reads it from the environment. Set before running it:\n  B_SASL_PASSWORD  b.sasl.jaas.config (line 7)\n',
    );
    for (const secret of [PASSWORD, STORED]) assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret), `${secret} was printed`);
  });

  test('never writes over its input, nor over another file without --force', async () => {
    prepare();
    const before = readFileSync(join(dir, 'm.properties'), 'utf8');
    for (const args of [
      ['-o', 'm.properties'],
      ['-o', './m.properties', '--force'],
    ]) {
      const refused = await mirrorflow(['convert', 'm.properties', ...args], { cwd: dir });
      assert.equal(refused.code, 64, refused.stderr);
      assert.match(refused.stderr, /^mirrorflow: --output \S+m\.properties is the input file m\.properties; convert never writes over its input/);
    }
    assert.equal(readFileSync(join(dir, 'm.properties'), 'utf8'), before, 'the MM2 file is unchanged');

    writeFileSync(join(dir, 'kept.yaml'), '# mine\n');
    const kept = await mirrorflow(['convert', 'm.properties', '-o', 'kept.yaml'], { cwd: dir });
    assert.equal(kept.code, 64, kept.stderr);
    assert.match(kept.stderr, /kept\.yaml exists; add --force to replace it\./);
    assert.equal(readFileSync(join(dir, 'kept.yaml'), 'utf8'), '# mine\n');
    const forced = await mirrorflow(['convert', 'm.properties', '-o', 'kept.yaml', '--force'], { cwd: dir });
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(readFileSync(join(dir, 'kept.yaml'), 'utf8'), /^# Converted from m\.properties/);
  });

  test('keeps a relative ${file:…} relative, to the folder the YAML goes to, which then validates from there', async () => {
    prepare();
    mkdirSync(join(dir, 'pipelines'), { recursive: true });
    const converted = await mirrorflow(['convert', 'm.properties', '-o', join('pipelines', 'm.yaml')], { cwd: dir });
    assert.equal(converted.code, 0, converted.stderr);
    const yaml = readFileSync(join(dir, 'pipelines', 'm.yaml'), 'utf8');
    assert.match(yaml, /client_id: \$\{file:\.\.\/access\.properties:client\} # a\.client\.id \(line 10\)/);
    const validated = await mirrorflow(['validate', 'm.yaml'], { cwd: join(dir, 'pipelines'), env: { B_SASL_PASSWORD: 'set-by-the-operator' } });
    assert.equal(validated.code, 0, validated.stderr);
    assert.equal(validated.stdout, 'm.yaml: ok\n');
  });
});
