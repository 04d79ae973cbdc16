import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { convertMm2Properties } from './convert-mm2-properties';
import { parseMm2Properties } from './parse-mm2-properties';
import { parsePipeline } from '../parse-pipeline';

/** What the files of these specs hold in the clear, by the variable convert names for it. */
const SECRET_VALUES: Readonly<Record<string, string>> = { DST_SASL_PASSWORD: 'clear-sasl-pass-81', DST_SSL_TRUSTSTORE_PASSWORD: 'clear-store-pass-82' };

describe('convertMm2Properties', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorflow-convert-'));
    writeFileSync(join(dir, 'secrets.properties'), 'b.password=s3cr3t-value\nSRC_BROKERS=10.0.0.1:9092,10.0.0.2:9092\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Converts for a YAML in `outputDir`, then proves the YAML read from there and the properties give the same pipeline. */
  function convert(lines: readonly string[], env: Record<string, string> = {}, outputDir = dir): string {
    const file = join(dir, 'mm2.properties');
    const text = lines.join('\n');
    const { yaml, secrets } = convertMm2Properties(text, file, { env, cwd: dir, outputDir });
    const fromYaml = parsePipeline(yaml, join(outputDir, 'copy.yaml'), {
      env: { ...env, ...Object.fromEntries(secrets.map((s) => [s.name, SECRET_VALUES[s.name] ?? ''])) },
    });
    assert.deepEqual(fromYaml, parseMm2Properties(text, file, { env, cwd: dir }).config);
    return yaml;
  }

  /** Flows by name, as a link lists its two after the flows. */
  const byName = (config: ReturnType<typeof parsePipeline>) => [...config.flows].sort((a, b) => a.name.localeCompare(b.name));

  it('writes both directions with the same settings as one link, provenance headers as the file says', () => {
    const lines = [
      'clusters = west, east, south',
      'west.bootstrap.servers = a:9092',
      'east.bootstrap.servers = b:9092',
      'south.bootstrap.servers = c:9092',
      'west->east.enabled = true',
      'east->west.enabled = true',
      'west->south.enabled = true',
      'west->south.topics = audit',
      'topics = orders.*',
      'replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy',
      'provenance.header.enable = true',
    ];
    const file = join(dir, 'aa.properties');
    const { yaml } = convertMm2Properties(lines.join('\n'), file, { env: {}, cwd: dir, outputDir: dir });
    const fromYaml = parsePipeline(yaml, join(dir, 'aa.yaml'), { env: {} });
    const fromProperties = parseMm2Properties(lines.join('\n'), file, { env: {}, cwd: dir }).config;
    assert.deepEqual(byName(fromYaml), byName(fromProperties));
    assert.match(
      yaml,
      /^links:\n {2}# west->east and east->west: replication both ways, enabled by west->east\.enabled \(line 5\) and east->west\.enabled \(line 6\)\n {2}- clusters: \[west, east\]\n/m,
    );
    // west->south differs (its topics), the other pairs only beat: flows.
    assert.match(yaml, /- source: west\n {4}target: south\n {4}enabled: true/);
    assert.doesNotMatch(yaml, /source: east\n {4}target: west/);

    // Without Replicator's key MM2 writes no header: the link says so, records stay as they are.
    const plain = lines.filter((l) => !l.startsWith('provenance') && !l.startsWith('replication.policy'));
    const converted = convertMm2Properties(plain.join('\n'), file, { env: {}, cwd: dir, outputDir: dir }).yaml;
    assert.match(converted, /- clusters: \[west, east\]\n(?: {4}.*\n)*? {4}provenance:\n {6}enabled: false # provenance\.header\.enable is not set/);
    const again = parsePipeline(converted, join(dir, 'aa.yaml'), { env: {} });
    assert.deepEqual(
      byName(again).map((f) => [f.name, f.provenance.enabled]),
      [
        ['east->south', false],
        ['east->west', false],
        ['south->east', false],
        ['south->west', false],
        ['west->east', false],
        ['west->south', false],
      ],
    );
  });

  it('writes the KIP example with a comment naming each key and the MM2 defaults that differ', () => {
    const yaml = convert([
      'clusters = primary, backup',
      'primary.bootstrap.servers = a:9092',
      'backup.bootstrap.servers = b:9092',
      'primary->backup.enabled = true',
      'primary->backup.topics = .*',
    ]);
    assert.match(yaml, /^# Converted from mm2\.properties by mirrorflow convert\./);
    assert.match(yaml, /^name: mm2$/m);
    assert.match(yaml, /bootstrap_servers: a:9092 # primary\.bootstrap\.servers \(line 2\)/);
    assert.match(yaml, /refresh_interval_ms: 600000 # MM2 default: refresh\.topics\.interval\.seconds = 600/);
    assert.match(yaml, /# primary->backup: replication, enabled by primary->backup\.enabled \(line 4\)/);
    assert.match(yaml, /# backup->primary: heartbeats only/);
    assert.match(yaml, /enabled: false # MM2 default: enabled = false/);
  });

  it('keeps references as references, with pipeline provider names and relative paths relative to the YAML, and never prints a secret', () => {
    const yaml = convert([
      'clusters = src, dst',
      'config.providers = secrets',
      'config.providers.secrets.class = org.apache.kafka.common.config.provider.FileConfigProvider',
      'src.bootstrap.servers = ${secrets:secrets.properties:SRC_BROKERS}',
      'dst.bootstrap.servers = 10.1.0.1:9092',
      'dst.security.protocol = SASL_PLAINTEXT',
      'dst.sasl.mechanism = SCRAM-SHA-512',
      'dst.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="${secrets:secrets.properties:b.password}";',
      'src->dst.enabled = true',
      'emit.heartbeats.enabled = false',
    ]);
    assert.ok(yaml.includes('bootstrap_servers: ${file:secrets.properties:SRC_BROKERS}'), yaml);
    assert.ok(yaml.includes('password: ${file:secrets.properties:b.password} # dst.sasl.jaas.config (line 8)'));
    assert.ok(!yaml.includes('s3cr3t') && !yaml.includes('10.0.0.1'));
  });

  it('writes relative paths relative to the folder the YAML goes to, and leaves absolute ones', () => {
    const lines = [
      'clusters = src, dst',
      'config.providers = file',
      'config.providers.file.class = org.apache.kafka.common.config.provider.FileConfigProvider',
      'src.bootstrap.servers = ${file:secrets.properties:SRC_BROKERS}',
      `dst.bootstrap.servers = \${file:${join(dir, 'secrets.properties')}:SRC_BROKERS}`,
      'dst.security.protocol = SSL',
      'dst.ssl.truststore.type = PEM',
      'dst.ssl.truststore.location = certs/ca.pem',
      'src->dst.enabled = true',
    ];
    const yaml = convert(lines, {}, join(dir, 'out', 'deeper'));
    assert.ok(yaml.includes('bootstrap_servers: ${file:../../secrets.properties:SRC_BROKERS}'), yaml);
    assert.ok(yaml.includes(`bootstrap_servers: \${file:${join(dir, 'secrets.properties')}:SRC_BROKERS}`), yaml);
    assert.ok(yaml.includes('ca_file: ../../certs/ca.pem # dst.ssl.truststore.location (line 8)'), yaml);
  });

  it('writes a secret the file holds in the clear as an ${env:…} reference, and names the variable', () => {
    const lines = [
      'clusters = src, dst',
      'src.bootstrap.servers = h:1',
      'dst.bootstrap.servers = h:2',
      'dst.security.protocol = SASL_SSL',
      'dst.sasl.mechanism = PLAIN',
      `dst.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="mm2" password="${SECRET_VALUES['DST_SASL_PASSWORD']}";`,
      `dst.ssl.truststore.password = ${SECRET_VALUES['DST_SSL_TRUSTSTORE_PASSWORD']}`,
      'dst.ssl.truststore.location = /etc/kafka/truststore.jks',
      'src->dst.enabled = true',
    ];
    const yaml = convert(lines);
    assert.ok(yaml.includes('password: ${env:DST_SASL_PASSWORD} # dst.sasl.jaas.config (line 6)'), yaml);
    assert.ok(yaml.includes('truststore_password: ${env:DST_SSL_TRUSTSTORE_PASSWORD} # dst.ssl.truststore.password (line 7)'), yaml);
    assert.match(yaml, /^# Secrets the file held in the clear are read from the environment: set DST_SASL_PASSWORD, DST_SSL_TRUSTSTORE_PASSWORD\.$/m);
    for (const value of Object.values(SECRET_VALUES)) assert.ok(!yaml.includes(value), 'no secret is printed');
    const { secrets } = convertMm2Properties(lines.join('\n'), join(dir, 'mm2.properties'), { env: {}, cwd: dir });
    assert.deepEqual(secrets, [
      { name: 'DST_SASL_PASSWORD', from: 'dst.sasl.jaas.config (line 6)' },
      { name: 'DST_SSL_TRUSTSTORE_PASSWORD', from: 'dst.ssl.truststore.password (line 7)' },
    ]);
  });

  it('converts without reading secrets when asked not to check, and says what it cannot convert', () => {
    const lines = [
      'clusters = a, b',
      'config.providers = env',
      'config.providers.env.class = org.apache.kafka.common.config.provider.EnvVarConfigProvider',
      'a.bootstrap.servers = ${env:A_BROKERS}',
      'b.bootstrap.servers = h:2',
      'a->b.enabled = true',
    ];
    assert.throws(() => convertMm2Properties(lines.join('\n'), 'mm2.properties', { env: {} }), /environment variable A_BROKERS is not set/);
    const { yaml } = convertMm2Properties(lines.join('\n'), 'mm2.properties', { env: {}, check: false });
    assert.match(yaml, /bootstrap_servers: \$\{env:A_BROKERS\}/);

    const whole = [
      ...lines,
      'b.security.protocol = SASL_PLAINTEXT',
      'b.sasl.mechanism = PLAIN',
      'b.sasl.jaas.config = ${env:JAAS}',
      'emit.checkpoints.interval.seconds = ${env:EVERY}',
    ];
    assert.throws(
      () => convertMm2Properties(whole.join('\n'), 'mm2.properties', { env: {}, check: false }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(
          error.issues.map((issue) => formatConfigIssue(issue)),
          [
            'mm2.properties:9:22: b.sasl.jaas.config: comes whole from a ${…} reference, and convert cannot take the user and password out of it without printing them\n  hint: write the login module in the file and reference only the password, e.g. password="${file:/etc/mm2/secrets.properties:password}"',
            'mm2.properties:10:37: emit.checkpoints.interval.seconds: comes from a ${…} reference, and convert needs its value to convert seconds to milliseconds\n  hint: write the value in the file, or write this part of the pipeline by hand',
          ],
        );
        return true;
      },
    );
  });
});
