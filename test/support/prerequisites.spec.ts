import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isInstalled, missingPrerequisites, npmPackageInstalled } from './prerequisites';

describe('missingPrerequisites', () => {
  it('asks only for what the chosen test files need, with the line that installs it', () => {
    const env = { PATH: '/nonexistent-bin' };
    assert.equal(missingPrerequisites(['dist/src/config/parse-pipeline.spec.js'], env), undefined, 'the unit specs need no program');
    assert.equal(
      missingPrerequisites(
        ['dist/src/kafka/tls/java-keystore.spec.js', 'dist/test/observability/status-page.test.js', 'dist/test/observability/live-view.test.js'],
        env,
      ),
      [
        'The tests need what this machine does not have:',
        '  java      runs the Kafka brokers of the integration tests',
        "  mvn       fetches Kafka's jars from Maven Central",
        '  keytool   makes the JKS and PKCS12 stores of the keystore tests',
        '  openssl   makes the PEM files of the keystore tests',
        '  chromium  reads the status page in the observability tests',
        "  script    util-linux's script: the live view is tested under a pseudo-terminal",
        'On Debian or Ubuntu (as root, or with sudo):',
        '  apt-get install openjdk-17-jdk-headless maven openssl chromium bsdutils',
      ].join('\n'),
    );
  });

  it('asks for the kerberos npm package where it was not built, with what builds it', () => {
    const programs = { PATH: process.env['PATH'] ?? '' };
    const kerberosTest = ['dist/test/security/kerberos.test.js'];
    const message = missingPrerequisites(kerberosTest, programs, (name) => name !== 'kerberos');
    assert.ok(message !== undefined);
    assert.match(message, /^ {2}kerberos +the npm package the Kerberos tests log in with/m);
    assert.match(message, /^ {2}apt-get install (.+ )?libkrb5-dev g\+\+ make python3/m);
    assert.match(message, /^then, for the npm packages above: npm ci$/m);
    assert.doesNotMatch(missingPrerequisites(kerberosTest, programs, () => true) ?? '', /kerberos +the npm package/);
    assert.doesNotMatch(missingPrerequisites(['dist/test/security/tls.test.js'], programs, () => false) ?? '', /kerberos/, 'only the Kerberos tests need it');
  });

  it('finds an npm package where the tests run', () => {
    assert.ok(npmPackageInstalled('kafkajs'));
    assert.ok(!npmPackageInstalled('mirrorflow-no-such-package'));
  });

  it('finds a program on PATH, or where an override says', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-prerequisites-'));
    try {
      writeFileSync(join(dir, 'chromium'), '#!/bin/sh\n');
      chmodSync(join(dir, 'chromium'), 0o755);
      writeFileSync(join(dir, 'not-executable'), '');
      assert.ok(isInstalled('chromium', { PATH: `/nonexistent-bin:${dir}` }));
      assert.ok(!isInstalled('not-executable', { PATH: dir }));
      assert.equal(
        missingPrerequisites(['dist/test/observability/status-page.test.js'], {
          PATH: '/x',
          MIRRORFLOW_CHROMIUM: join(dir, 'chromium'),
          JAVA_HOME: dir,
          MIRRORFLOW_MVN: join(dir, 'chromium'),
        })?.split('\n')[1],
        `  ${join(dir, 'bin', 'java')}  runs the Kafka brokers of the integration tests`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
