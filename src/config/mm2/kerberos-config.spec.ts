import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { parseMm2Properties } from './parse-mm2-properties';
import { parsePipeline } from '../parse-pipeline';

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => formatConfigIssue(issue));
    throw error;
  }
  return assert.fail('expected problems');
}

const KRB5 = 'com.sun.security.auth.module.Krb5LoginModule';
const mm2 = (...lines: string[]): string =>
  [
    'clusters = primary, backup',
    'primary.bootstrap.servers = 127.0.0.1:9092',
    'backup.bootstrap.servers = 127.0.0.1:9093',
    'backup.security.protocol = SASL_PLAINTEXT',
    'primary->backup.enabled = true',
    ...lines,
  ].join('\n');

const yaml = (primarySasl: string, backupSasl = primarySasl): string =>
  [
    'clusters:',
    '  primary:',
    '    bootstrap_servers: [127.0.0.1:9092]',
    `    security: { protocol: sasl_plaintext, sasl: ${primarySasl} }`,
    '  backup:',
    '    bootstrap_servers: [127.0.0.1:9093]',
    `    security: { protocol: sasl_ssl, sasl: ${backupSasl} }`,
    'flows:',
    '  - { source: primary, target: backup, topics: [orders] }',
  ].join('\n');

describe('sasl gssapi (Kerberos) in an mm2.properties file', () => {
  it('maps Krb5LoginModule with a keytab and the service name, as MM2 users write them', () => {
    const parsed = parseMm2Properties(
      mm2(
        'backup.sasl.mechanism = GSSAPI',
        'backup.sasl.kerberos.service.name = kafka',
        `backup.sasl.jaas.config = ${KRB5} required useKeyTab=true storeKey=true keyTab="/etc/security/keytabs/mm2.keytab" principal="mm2/host1@EXAMPLE.COM";`,
      ),
      'mm2.properties',
      { env: {} },
    );
    assert.deepEqual(parsed.config.clusters['backup']!.security.sasl, {
      mechanism: 'gssapi',
      kerberos: { service_name: 'kafka', principal: 'mm2/host1@EXAMPLE.COM', keytab: '/etc/security/keytabs/mm2.keytab' },
    });
    assert.deepEqual(parsed.warnings, []);
  });

  it("takes Kafka's default mechanism, GSSAPI, when none is set, says so, and reads serviceName and the ticket cache from the JAAS line", () => {
    const parsed = parseMm2Properties(mm2(`backup.sasl.jaas.config = ${KRB5} required useTicketCache=true serviceName="kafka";`), 'mm2.properties', {
      env: {},
    });
    assert.deepEqual(parsed.config.clusters['backup']!.security.sasl, { mechanism: 'gssapi', kerberos: { service_name: 'kafka' } });
    assert.deepEqual(
      parsed.warnings.map((w) => formatConfigIssue(w, 'warning')),
      [
        "mm2.properties:4:1: warning: backup.security.protocol: backup uses SASL and sets no sasl.mechanism: Kafka's default, GSSAPI (Kerberos), is used\n  hint: set backup.sasl.mechanism to say which",
      ],
    );
  });

  it('resolves a relative keyTab from the working directory, as the JVM did', () => {
    const parsed = parseMm2Properties(
      mm2(
        'backup.sasl.mechanism = GSSAPI',
        'backup.sasl.kerberos.service.name = kafka',
        `backup.sasl.jaas.config = ${KRB5} required useKeyTab=true keyTab="keytabs/mm2.keytab" principal="mm2@EXAMPLE.COM";`,
      ),
      'mm2.properties',
      { env: {}, cwd: '/opt/mm2' },
    );
    const sasl = parsed.config.clusters['backup']!.security.sasl;
    assert.equal(sasl?.kerberos?.keytab, '/opt/mm2/keytabs/mm2.keytab');
  });

  it('refuses a login it cannot make, at the line, saying what is missing', () => {
    const problems = problemsOf(() =>
      parseMm2Properties(
        mm2(
          'backup.sasl.mechanism = GSSAPI',
          `backup.sasl.jaas.config = ${KRB5} required keyTab="/k.keytab" principal="mm2@EXAMPLE.COM" clearPass=true;`,
          'primary.security.protocol = SASL_PLAINTEXT',
          'primary.sasl.mechanism = GSSAPI',
          'primary.sasl.kerberos.service.name = kafka',
          `primary.sasl.jaas.config = ${KRB5} required useKeyTab=true principal="mm2@EXAMPLE.COM";`,
        ),
        'mm2.properties',
        { env: {} },
      ),
    );
    assert.deepEqual(
      problems.map((p) => p.split('\n')[0]),
      [
        'mm2.properties:7:27: backup.sasl.jaas.config: backup uses GSSAPI but names no Kerberos service',
        'mm2.properties:7:27: backup.sasl.jaas.config: names a keyTab without useKeyTab=true, so Krb5LoginModule would not use it',
        'mm2.properties:7:27: backup.sasl.jaas.config: login option "clearPass" is not supported',
        'mm2.properties:11:28: primary.sasl.jaas.config: has useKeyTab=true but no keyTab',
      ],
    );
  });

  it('warns that the Java client’s ticket renewal settings have no effect', () => {
    const parsed = parseMm2Properties(
      mm2(
        'backup.sasl.mechanism = GSSAPI',
        'backup.sasl.kerberos.service.name = kafka',
        'backup.sasl.kerberos.ticket.renew.window.factor = 0.8',
        `backup.sasl.jaas.config = ${KRB5} required useKeyTab=true keyTab="/k.keytab" principal="mm2@EXAMPLE.COM";`,
      ),
      'mm2.properties',
      { env: {} },
    );
    assert.equal(parsed.warnings.length, 1);
    assert.match(
      formatConfigIssue(parsed.warnings[0]!, 'warning'),
      /sasl\.kerberos\.ticket\.renew\.window\.factor.*MIT Kerberos gets a new ticket from the keytab/s,
    );
  });
});

describe('sasl gssapi (Kerberos) in a pipeline file', () => {
  it('reads the kerberos block, its files relative to the pipeline file', () => {
    const config = parsePipeline(
      yaml('{ mechanism: GSSAPI, kerberos: { service_name: kafka, principal: mf@EXAMPLE.COM, keytab: mf.keytab, krb5_config: /etc/krb5.conf } }'),
      '/srv/mirrorflow/p.yaml',
    );
    assert.deepEqual(config.clusters['primary']!.security.sasl, {
      mechanism: 'gssapi',
      kerberos: { service_name: 'kafka', principal: 'mf@EXAMPLE.COM', keytab: '/srv/mirrorflow/mf.keytab', krb5_config: '/etc/krb5.conf' },
    });
  });

  it('needs a kerberos block with gssapi, and no other mechanism takes one', () => {
    assert.deepEqual(
      problemsOf(() =>
        parsePipeline(
          yaml('{ mechanism: gssapi, username: u }', '{ mechanism: plain, username: u, password: p, kerberos: { service_name: kafka } }'),
          'p.yaml',
        ),
      ),
      [
        'p.yaml:4:49: clusters.primary.security.sasl.kerberos: mechanism gssapi needs a "kerberos" block\n  hint: add kerberos: { service_name: kafka, principal, keytab }',
        'p.yaml:4:80: clusters.primary.security.sasl.username: "username" is not used with mechanism gssapi\n  hint: Kerberos logs in with a principal and a keytab (or the ticket cache), in kerberos',
        'p.yaml:7:99: clusters.backup.security.sasl.kerberos: "kerberos" is used with mechanism gssapi only\n  hint: remove it, or set mechanism: gssapi',
      ],
    );
  });

  it('refuses two keytabs in one pipeline: the GSS library has one per process', () => {
    const problems = problemsOf(() =>
      parsePipeline(
        yaml(
          '{ mechanism: gssapi, kerberos: { service_name: kafka, keytab: /a.keytab } }',
          '{ mechanism: gssapi, kerberos: { service_name: kafka, keytab: /b.keytab } }',
        ),
        'p.yaml',
      ),
    );
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /clusters\.backup\.security\.sasl\.kerberos\.keytab: differs from cluster "primary"'s keytab \(\/a\.keytab\)/);
    assert.match(problems[0]!, /put every principal in one keytab/);
  });
});
