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

const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule';
const mm2 = (...lines: string[]): string =>
  [
    'clusters = primary, backup',
    'primary.bootstrap.servers = 127.0.0.1:9092',
    'backup.bootstrap.servers = 127.0.0.1:9093',
    'backup.security.protocol = SASL_SSL',
    'backup.sasl.mechanism = SCRAM-SHA-512',
    `backup.sasl.jaas.config = ${SCRAM} required username="mirror" password="pw-mirror";`,
    'backup.ssl.truststore.type = PEM',
    'backup.ssl.truststore.location = /etc/ca.pem',
    'primary->backup.enabled = true',
    ...lines,
  ].join('\n');

describe('security per client role', () => {
  it('YAML: a role sets its own sasl block; the others keep the cluster’s', () => {
    const config = parsePipeline(
      [
        'clusters:',
        '  primary: { bootstrap_servers: [127.0.0.1:9092] }',
        '  backup:',
        '    bootstrap_servers: [127.0.0.1:9093]',
        '    security:',
        '      protocol: sasl_plaintext',
        '      sasl: { mechanism: scram-sha-512, username: mirror, password: pw-mirror }',
        '      roles:',
        '        producer: { sasl: { mechanism: scram-sha-512, username: writer, password: pw-writer } }',
        'flows:',
        '  - { source: primary, target: backup, topics: [orders] }',
      ].join('\n'),
      'p.yaml',
    );
    const security = config.clusters['backup']!.security;
    assert.deepEqual(security.sasl, { mechanism: 'scram-sha-512', username: 'mirror', password: 'pw-mirror' });
    assert.deepEqual(security.roles, { producer: { sasl: { mechanism: 'scram-sha-512', username: 'writer', password: 'pw-writer' } } });
  });

  it('YAML: a role’s blocks are checked like the cluster’s, under its protocol', () => {
    const problems = problemsOf(() =>
      parsePipeline(
        [
          'clusters:',
          '  primary: { bootstrap_servers: [127.0.0.1:9092] }',
          '  backup:',
          '    bootstrap_servers: [127.0.0.1:9093]',
          '    security:',
          '      protocol: ssl',
          '      roles:',
          '        admin: { sasl: { mechanism: plain, username: a, password: b } }',
          '        consumer: { ssl: { cert_file: c.pem } }',
          'flows:',
          '  - { source: primary, target: backup, topics: [orders] }',
        ].join('\n'),
        'p.yaml',
      ),
    );
    assert.ok(
      problems.some((p) => p.includes('clusters.backup.security.roles.admin.sasl: "sasl" is set but the protocol is not SASL')),
      problems.join('\n'),
    );
    assert.ok(
      problems.some((p) => p.includes('clusters.backup.security.roles.consumer.ssl')),
      problems.join('\n'),
    );
  });

  it('mm2.properties: A.producer.sasl.jaas.config and A.admin.ssl.* become the roles’ own blocks, key by key over the cluster’s', () => {
    const { config } = parseMm2Properties(
      mm2(
        `backup.producer.sasl.jaas.config = ${SCRAM} required username="writer" password="pw-writer";`,
        'backup.admin.ssl.keystore.type = PEM',
        'backup.admin.ssl.keystore.location = /etc/admin.pem',
        `backup.consumer.sasl.jaas.config = ${SCRAM} required username="mirror" password="pw-mirror";`,
      ),
      'mm2.properties',
      { env: {} },
    );
    const security = config.clusters['backup']!.security;
    assert.equal((security.sasl as { username?: string }).username, 'mirror');
    assert.deepEqual(Object.keys(security.roles ?? {}).sort(), ['admin', 'producer'], 'the consumer’s setting equals the cluster’s');
    assert.deepEqual(security.roles?.producer?.sasl, { mechanism: 'scram-sha-512', username: 'writer', password: 'pw-writer' });
    assert.equal(security.roles?.producer?.ssl, undefined, 'the producer keeps the cluster’s TLS');
    assert.equal(security.roles?.admin?.ssl?.ca_file, '/etc/ca.pem', 'the cluster’s truststore, key by key');
    assert.equal(security.roles?.admin?.ssl?.cert_file, '/etc/admin.pem');
    assert.equal(security.roles?.admin?.sasl, undefined);
  });

  it('mm2.properties: other connection settings per role are refused; per flow, the hint names the role’s cluster key', () => {
    const problems = problemsOf(() =>
      parseMm2Properties(
        mm2(
          'backup.producer.security.protocol = SASL_PLAINTEXT',
          `primary->backup.target.producer.sasl.jaas.config = ${SCRAM} required username="w" password="never-shown";`,
        ),
        'mm2.properties',
        { env: {} },
      ),
    );
    const text = problems.join('\n');
    assert.match(text, /a different security\.protocol for one client role is not supported/);
    assert.match(text, /connection settings per flow are not supported yet\n {2}hint: set it on the cluster, as backup\.producer\.sasl\.jaas\.config/);
    assert.ok(!text.includes('never-shown'));
  });
});
