import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { parseMm2Properties, type ParsedPipeline } from './parse-mm2-properties';
import type { FlowConfig } from '../pipeline-config';

const BASE = ['clusters = primary, backup', 'primary.bootstrap.servers = 127.0.0.1:9092', 'backup.bootstrap.servers = 127.0.0.1:9093'];

function parse(lines: readonly string[], options: { env?: Record<string, string>; set?: string[]; cwd?: string } = {}): ParsedPipeline {
  return parseMm2Properties(lines.join('\n'), 'mm2.properties', { env: options.env ?? {}, ...options });
}

/** The problems as `validate` prints them. */
function problems(lines: readonly string[], options: { env?: Record<string, string>; set?: string[]; cwd?: string } = {}): string[] {
  try {
    parse(lines, options);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => formatConfigIssue(issue));
    throw error;
  }
  assert.fail('expected problems');
}

function flow(parsed: ParsedPipeline, name: string): FlowConfig {
  const found = parsed.config.flows.find((f) => f.name === name);
  assert.ok(found, `no flow ${name} in ${parsed.config.flows.map((f) => f.name).join(', ')}`);
  return found;
}

describe('parseMm2Properties: flows and defaults', () => {
  it('warns about a flow MM2 leaves off (no enabled line), at the lines that have no effect, and says how to turn it on', () => {
    // Kafka's own driver example, without its enabled line.
    const parsed = parse([
      ...BASE,
      'primary->backup.topics = .*',
      'primary->backup.groups = billing.*',
      'primary->backup.emit.heartbeats.interval.seconds = 5',
    ]);
    assert.deepEqual(
      parsed.config.flows.map((f) => [f.name, f.enabled]),
      [
        ['primary->backup', false],
        ['backup->primary', false],
      ],
    );
    assert.deepEqual(
      parsed.warnings.map((w) => formatConfigIssue(w, 'warning')),
      [
        "mm2.properties:4:1: warning: primary->backup.topics: primary->backup is not enabled (MM2's default); lines 4, 5 have no effect\n  hint: to replicate, add primary->backup.enabled = true",
      ],
    );
    // Said false on purpose, or on: nothing to say.
    assert.deepEqual(parse([...BASE, 'primary->backup.enabled = false', 'primary->backup.topics = .*']).warnings, []);
    assert.deepEqual(parse([...BASE, 'primary->backup.enabled = true', 'primary->backup.topics = .*']).warnings, []);
  });

  it("reads the KIP-382 example with MM2's defaults, and a heartbeats-only flow for the other direction", () => {
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'primary->backup.topics = .*']);
    assert.equal(parsed.config.name, 'mm2');
    assert.deepEqual(
      parsed.config.flows.map((f) => [f.name, f.enabled, f.heartbeats.enabled]),
      [
        ['primary->backup', true, true],
        ['backup->primary', false, true],
      ],
    );
    const f = flow(parsed, 'primary->backup');
    assert.deepEqual(f.topics, ['.*']);
    assert.equal(f.topic_sync.refresh_interval_ms, 600_000);
    assert.equal(f.topic_sync.replication_factor, 2);
    assert.equal(f.topic_sync.configs_interval_ms, 600_000);
    assert.equal(f.topic_sync.use_defaults_from, 'target');
    // MM2 stores progress every 60 s; a file that does not ask for that gets mirrorflow's 5 s.
    assert.equal(f.progress.flush_interval_ms, 5000);
    assert.deepEqual(f.errors, { tolerance: 'none', deadletterqueue: { replication_factor: 3 } });
    // MM2's consumer reads read_uncommitted, copying aborted transactions as committed records; not kept.
    assert.equal(f.consumer.isolation_level, 'read_committed');
    assert.equal(f.producer.max_request_bytes, 1_048_576);
    assert.equal(f.start, 'earliest');
    assert.equal(f.checkpoints.refresh_groups_interval_ms, 600_000);
    assert.equal(f.checkpoints.replication_factor, 3);
    assert.equal(f.heartbeats.replication_factor, 3);
    assert.equal(f.checkpoints.sync_group_offsets.enabled, false);
    // MM2 syncs literal topic ACLs every 10 minutes by default.
    assert.deepEqual(f.topic_sync.acls, { enabled: true, interval_ms: 600_000, prefixed: false });
    assert.deepEqual(parsed.config.clusters['primary']!.bootstrap_servers, ['127.0.0.1:9092']);
  });

  it('reads mirrorflow.offsets.preserve, a mirrorflow extension, per flow; without it offsets are translated as under MM2', () => {
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'primary->backup.mirrorflow.offsets.preserve = true']);
    assert.equal(flow(parsed, 'primary->backup').offsets, 'preserve');
    assert.equal(flow(parsed, 'backup->primary').offsets, 'translate');
    assert.deepEqual(problems([...BASE, 'primary->backup.enabled = true', 'primary->backup.mirrorflow.offsets.preserve = yes']).length, 1);
  });

  it('reads mirrorflow.verify.*, a mirrorflow extension, per flow; off without them', () => {
    const parsed = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'primary->backup.mirrorflow.verify.enabled = true',
      'primary->backup.mirrorflow.verify.interval.ms = 5000',
      'primary->backup.mirrorflow.verify.records.per.interval = 500',
    ]);
    assert.deepEqual(flow(parsed, 'primary->backup').verify, { enabled: true, interval_ms: 5000, records_per_interval: 500 });
    assert.deepEqual(flow(parsed, 'backup->primary').verify, { enabled: false, interval_ms: 60_000, records_per_interval: 10_000 });
    assert.deepEqual(problems([...BASE, 'primary->backup.enabled = true', 'primary->backup.mirrorflow.verify.records.per.interval = lots']).length, 1);
  });

  it('maps every MM2 key it supports onto the pipeline, seconds as milliseconds', () => {
    const cases: [string, string, (f: FlowConfig) => unknown, unknown][] = [
      ['topics', 'a, b.*', (f) => f.topics, ['a', 'b.*']],
      ['topics.exclude', 'x', (f) => f.topics_exclude, ['x']],
      // Java properties read `\\.` as `.`: MM2's own default list has unescaped dots for this reason.
      ['config.properties.exclude', 'retention\\.ms', (f) => f.topic_sync.configs_exclude, ['retention.ms']],
      ['refresh.topics.interval.seconds', '30', (f) => f.topic_sync.refresh_interval_ms, 30_000],
      ['sync.topic.configs.enabled', 'false', (f) => f.topic_sync.sync_configs, false],
      ['sync.topic.configs.interval.seconds', '5', (f) => f.topic_sync.configs_interval_ms, 5000],
      // Read per flow only: MM2's driver drops it at the top level.
      ['primary->backup.use.defaults.from', 'source', (f) => f.topic_sync.use_defaults_from, 'source'],
      ['replication.factor', '1', (f) => f.topic_sync.replication_factor, 1],
      ['offset.lag.max', '7', (f) => f.offset_syncs.lag_max, 7],
      ['offset-syncs.topic.location', 'target', (f) => f.offset_syncs.location, 'target'],
      ['emit.offset-syncs.enabled', 'false', (f) => [f.offset_syncs.enabled, f.checkpoints.enabled], [false, false]],
      ['heartbeats.replication.enabled', 'false', (f) => f.replicate_heartbeats, false],
      ['groups', 'g.*', (f) => f.checkpoints.groups, ['g.*']],
      ['groups.exclude', 'x.*', (f) => f.checkpoints.groups_exclude, ['x.*']],
      ['refresh.groups.interval.seconds', '5', (f) => f.checkpoints.refresh_groups_interval_ms, 5000],
      ['emit.checkpoints.enabled', 'false', (f) => f.checkpoints.enabled, false],
      ['emit.checkpoints.interval.seconds', '10', (f) => f.checkpoints.interval_ms, 10_000],
      ['sync.group.offsets.enabled', 'true', (f) => f.checkpoints.sync_group_offsets.enabled, true],
      ['sync.group.offsets.interval.seconds', '15', (f) => f.checkpoints.sync_group_offsets.interval_ms, 15_000],
      ['checkpoints.topic.replication.factor', '1', (f) => f.checkpoints.replication_factor, 1],
      ['emit.heartbeats.interval.seconds', '5', (f) => f.heartbeats.interval_ms, 5000],
      ['heartbeats.topic.replication.factor', '1', (f) => f.heartbeats.replication_factor, 1],
      ['replication.policy.separator', '_', (f) => f.replication_policy, { type: 'default', separator: '_', internal_topic_separator_enabled: true }],
      [
        'replication.policy.class',
        'org.apache.kafka.connect.mirror.IdentityReplicationPolicy',
        (f) => f.replication_policy,
        { type: 'identity', separator: '.' },
      ],
      ['primary.consumer.isolation.level', 'read_committed', (f) => f.consumer.isolation_level, 'read_committed'],
      ['primary.consumer.auto.offset.reset', 'latest', (f) => f.start, 'latest'],
      // MM2's consumer applies it also to a stored offset that is no longer in the log.
      ['primary.consumer.auto.offset.reset', 'latest', (f) => f.consumer.auto_offset_reset, 'latest'],
      ['primary.consumer.max.partition.fetch.bytes', '2048', (f) => f.consumer.max_bytes_per_partition, 2048],
      ['primary.consumer.fetch.max.wait.ms', '100', (f) => f.consumer.max_wait_ms, 100],
      ['primary.consumer.fetch.min.bytes', '16384', (f) => f.consumer.min_bytes, 16384],
      ['backup.producer.compression.type', 'zstd', (f) => f.producer.compression, 'zstd'],
      ['backup.producer.max.request.size', '2000000', (f) => f.producer.max_request_bytes, 2_000_000],
      ['backup.producer.enable.idempotence', 'false', (f) => f.producer.idempotent, false],
      ['primary->backup.producer.enable.idempotence', 'FALSE', (f) => f.producer.idempotent, false],
      ['backup.producer.max.in.flight.requests.per.connection', '2', (f) => f.producer.max_in_flight, 2],
      // Unset, mirrorflow's default stands.
      ['backup.producer.compression.type', 'none', (f) => f.producer.max_in_flight, 5],
      // Unset, mirrorflow's default stands: Connect's false is not taken over.
      ['backup.producer.compression.type', 'none', (f) => f.producer.idempotent, true],
      ['backup.offset.flush.interval.ms', '1000', (f) => f.progress.flush_interval_ms, 1000],
      ['backup.offset.flush.interval.ms', '60000', (f) => f.progress.flush_interval_ms, 60_000],
      ['errors.deadletterqueue.topic.name', 'mirror-dlq', (f) => f.errors.deadletterqueue.topic_name, 'mirror-dlq'],
      ['errors.deadletterqueue.topic.replication.factor', '1', (f) => f.errors.deadletterqueue.replication_factor, 1],
      ['primary->backup.errors.tolerance', 'NONE', (f) => f.errors.tolerance, 'none'],
      ['primary->backup.sync.topic.acls.enabled', 'true', (f) => f.topic_sync.acls.enabled, true],
      ['sync.topic.acls.interval.seconds', '30', (f) => f.topic_sync.acls.interval_ms, 30_000],
    ];
    for (const [key, value, read, expected] of cases) {
      const parsed = parse([...BASE, 'primary->backup.enabled = true', 'sync.topic.acls.enabled = false', `${key} = ${value}`]);
      assert.deepEqual(read(flow(parsed, 'primary->backup')), expected, key);
    }
  });

  it("takes the group's timings from the source consumer, else from the target's worker, else mirrorflow's; client.rack from the consumer", () => {
    const f = (lines: readonly string[]): FlowConfig => flow(parse([...BASE, 'primary->backup.enabled = true', ...lines]), 'primary->backup');
    const timings = (c: FlowConfig['consumer']) => [c.session_timeout_ms, c.heartbeat_interval_ms, c.rebalance_timeout_ms];
    // Unset: mirrorflow's, not the Java consumer's 45 s / 3 s / 5 min (MM2's consumers join no group).
    assert.deepEqual(timings(f([]).consumer), [6000, 1000, 60000]);
    assert.deepEqual(
      timings(
        f([
          'primary.consumer.session.timeout.ms = 30000',
          'primary.consumer.heartbeat.interval.ms = 5000',
          'primary->backup.consumer.max.poll.interval.ms = 120000',
        ]).consumer,
      ),
      [30000, 5000, 120000],
    );
    // MM2's processes share their work in the Connect worker group of the target.
    assert.deepEqual(
      timings(f(['backup.session.timeout.ms = 10000', 'backup.heartbeat.interval.ms = 3000', 'backup.rebalance.timeout.ms = 90000']).consumer),
      [10000, 3000, 90000],
    );
    assert.deepEqual(
      timings(f(['backup.session.timeout.ms = 10000', 'primary.consumer.session.timeout.ms = 20000']).consumer),
      [20000, 1000, 60000],
      "the consumer's wins",
    );
    assert.equal(f(['primary.consumer.client.rack = use1-az1']).consumer.client_rack, 'use1-az1');
    assert.equal(f(['primary.consumer.client.rack =']).consumer.client_rack, undefined, "empty, Java's default: no rack");
    assert.equal(f([]).consumer.client_rack, undefined);
  });

  it("warns where the group's timings go against what Kafka documents, and refuses a heartbeat as long as the session", () => {
    const parsed = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'primary.consumer.session.timeout.ms = 3000',
      'primary.consumer.heartbeat.interval.ms = 1500',
    ]);
    assert.deepEqual(
      parsed.warnings.map((issue) => formatConfigIssue(issue)),
      [
        "mm2.properties:5:1: primary.consumer.session.timeout.ms: a session of 3000 ms is outside what brokers accept by default (group.min.session.timeout.ms 6000, group.max.session.timeout.ms 1800000): they refuse the group's join unless configured otherwise\n  hint: write 6000 to 1800000",
        'mm2.properties:6:1: primary.consumer.heartbeat.interval.ms: a heartbeat every 1500 ms is more than a third of the 3000 ms session: a process may leave its group after a heartbeat or two is late\n  hint: Kafka recommends at most 1000 ms',
      ],
    );
    assert.deepEqual(problems([...BASE, 'primary->backup.enabled = true', 'backup.heartbeat.interval.ms = 6000']), [
      'mm2.properties:5:32: backup.heartbeat.interval.ms: the heartbeat interval (6000 ms) must be below the session timeout (6000 ms): a process would leave its group between two heartbeats\n  hint: Kafka recommends at most a third of the session: heartbeat_interval_ms 2000 or less',
    ]);
    assert.deepEqual(problems([...BASE, 'primary->backup.enabled = true', 'primary.consumer.session.timeout.ms = 0']), [
      'mm2.properties:5:39: primary.consumer.session.timeout.ms: must be at least 1',
    ]);
  });

  it('points client.rack at the consumer, the only client that fetches from a replica near it', () => {
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'backup.producer.client.rack = az1']);
    assert.deepEqual(
      parsed.warnings.map((issue) => formatConfigIssue(issue)),
      [
        'mm2.properties:5:1: backup.producer.client.rack: has no effect in mirrorflow: only the consumer fetches from the nearest replica: write it as consumer.client.rack',
      ],
    );
    assert.deepEqual(problems([...BASE, 'primary->backup.enabled = true', 'primary.client.rack = az1']), [
      'mm2.properties:5:1: primary.client.rack: has no effect: MM2 hands only connection settings from a cluster prefix to its clients\n  hint: write it for the client: primary.consumer.client.rack',
    ]);
  });

  it('reads the internal-topic separator flag only when a separator is set, as the policy does', () => {
    const without = parse([...BASE, 'primary->backup.enabled = true', 'replication.policy.internal.topic.separator.enabled = false']);
    assert.equal(flow(without, 'primary->backup').replication_policy.type, 'default');
    assert.deepEqual(flow(without, 'primary->backup').replication_policy, { type: 'default', separator: '.', internal_topic_separator_enabled: true });
    const withSeparator = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'replication.policy.separator = _',
      'replication.policy.internal.topic.separator.enabled = false',
    ]);
    assert.deepEqual(flow(withSeparator, 'primary->backup').replication_policy, { type: 'default', separator: '_', internal_topic_separator_enabled: false });
  });

  it("applies MM2's precedence: a flow key beats the top level; a cluster's consumer key beats the flow's", () => {
    const parsed = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'topics = top.*',
      'primary->backup.topics = flow.*',
      'primary.consumer.isolation.level = read_committed',
      'primary->backup.consumer.isolation.level = read_uncommitted',
    ]);
    const f = flow(parsed, 'primary->backup');
    assert.deepEqual(f.topics, ['flow.*']);
    assert.equal(f.consumer.isolation_level, 'read_committed');
    assert.deepEqual(flow(parsed, 'backup->primary').topics, ['top.*']);
  });

  it('enables every pair with a top-level enabled = true, and runs no heartbeats-only flow when heartbeats are off', () => {
    assert.deepEqual(
      parse([...BASE, 'enabled = true']).config.flows.map((f) => [f.name, f.enabled]),
      [
        ['primary->backup', true],
        ['backup->primary', true],
      ],
    );
    assert.deepEqual(
      parse([...BASE, 'primary->backup.enabled = true', 'emit.heartbeats.enabled = false']).config.flows.map((f) => [f.name, f.heartbeats.enabled]),
      [['primary->backup', false]],
    );
  });

  it('says "No source->target replication flows." as MM2 does when nothing would run', () => {
    assert.deepEqual(problems([...BASE, 'emit.heartbeats.enabled = false']), [
      'mm2.properties:1:1: clusters: No source->target replication flows.\n  hint: enable one, e.g. primary->backup.enabled = true (MM2 also runs heartbeats-only flows unless emit.heartbeats.enabled = false)',
    ]);
  });

  it('lets top-level connection settings reach every cluster', () => {
    const parsed = parse([
      'clusters = a, b',
      'bootstrap.servers = shared:9092',
      'b.bootstrap.servers = b:9092',
      'security.protocol = SASL_PLAINTEXT',
      'sasl.mechanism = PLAIN',
      'sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";',
      'a->b.enabled = true',
    ]);
    assert.deepEqual(parsed.config.clusters['a']!.bootstrap_servers, ['shared:9092']);
    assert.deepEqual(parsed.config.clusters['b']!.security.sasl, { mechanism: 'plain', username: 'u', password: 'p' });
  });
});

describe('parseMm2Properties: security', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorflow-mm2-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes SCRAM credentials out of sasl.jaas.config and PEM files relative to the working directory', () => {
    const parsed = parse(
      [
        ...BASE,
        'primary->backup.enabled = true',
        'backup.security.protocol = SASL_SSL',
        'backup.sasl.mechanism = SCRAM-SHA-512',
        'backup.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required \\',
        '    username="mm2" password="mm2-secret";',
        'backup.ssl.truststore.type = PEM',
        'backup.ssl.truststore.location = certs/ca.pem',
        'backup.ssl.keystore.type = PEM',
        'backup.ssl.keystore.location = /etc/mm2/client.pem',
        'backup.ssl.key.password = kp',
      ],
      { cwd: dir },
    );
    assert.deepEqual(parsed.config.clusters['backup']!.security, {
      protocol: 'sasl_ssl',
      sasl: { mechanism: 'scram-sha-512', username: 'mm2', password: 'mm2-secret' },
      ssl: {
        ca_file: join(dir, 'certs/ca.pem'),
        cert_file: '/etc/mm2/client.pem',
        key_file: '/etc/mm2/client.pem',
        key_password: 'kp',
        verify_hostname: true,
        reject_unauthorized: true,
      },
    });
  });

  it('reads inline PEM stores, an encrypted key with ssl.key.password, and an empty endpoint identification algorithm as host name checks off', () => {
    const parsed = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'backup.security.protocol = SSL',
      'backup.ssl.truststore.type = PEM',
      'backup.ssl.truststore.certificates = -----BEGIN CERTIFICATE----- \\',
      '    MIIB -----END CERTIFICATE-----',
      'backup.ssl.keystore.type = PEM',
      'backup.ssl.keystore.certificate.chain = -----BEGIN CERTIFICATE----- MIIC -----END CERTIFICATE-----',
      'backup.ssl.keystore.key = -----BEGIN ENCRYPTED PRIVATE KEY----- MIID -----END ENCRYPTED PRIVATE KEY-----',
      'backup.ssl.key.password = kp',
      'backup.ssl.endpoint.identification.algorithm =',
    ]);
    assert.deepEqual(parsed.config.clusters['backup']!.security.ssl, {
      ca: '-----BEGIN CERTIFICATE----- MIIB -----END CERTIFICATE-----',
      cert: '-----BEGIN CERTIFICATE----- MIIC -----END CERTIFICATE-----',
      key: '-----BEGIN ENCRYPTED PRIVATE KEY----- MIID -----END ENCRYPTED PRIVATE KEY-----',
      key_password: 'kp',
      verify_hostname: false,
      reject_unauthorized: true,
    });
  });

  it('refuses inline PEM without the PEM store type, and a key without its certificate chain', () => {
    const lines = problems([
      ...BASE,
      'primary->backup.enabled = true',
      'backup.security.protocol = SSL',
      'backup.ssl.truststore.certificates = -----BEGIN CERTIFICATE----- MIIB -----END CERTIFICATE-----',
      'backup.ssl.keystore.type = PEM',
      'backup.ssl.keystore.key = -----BEGIN PRIVATE KEY----- MIID -----END PRIVATE KEY-----',
    ]);
    assert.ok(
      lines.some((l) => /backup\.ssl\.truststore\.certificates: is read only with backup\.ssl\.truststore\.type = PEM/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /backup\.ssl\.keystore\.key: needs backup\.ssl\.keystore\.certificate\.chain too/.test(l)),
      lines.join('\n'),
    );
  });

  it("takes JKS and PKCS12 stores with their passwords; an unset type is Java's default and read by content", () => {
    const parsed = parse(
      [
        ...BASE,
        'config.providers = env',
        'config.providers.env.class = org.apache.kafka.common.config.provider.EnvVarConfigProvider',
        'primary->backup.enabled = true',
        'backup.security.protocol = SSL',
        'backup.ssl.truststore.location = truststore.jks',
        'backup.ssl.truststore.password = ${env:TRUST_PASSWORD}',
        'backup.ssl.keystore.type = PKCS12',
        'backup.ssl.keystore.location = /etc/kafka/keystore.p12',
        'backup.ssl.keystore.password = ks-secret',
        'backup.ssl.key.password = ks-secret',
      ],
      { cwd: dir, env: { TRUST_PASSWORD: 'ts-secret' } },
    );
    assert.deepEqual(parsed.config.clusters['backup']!.security.ssl, {
      truststore_file: join(dir, 'truststore.jks'),
      truststore_password: 'ts-secret',
      keystore_file: '/etc/kafka/keystore.p12',
      keystore_password: 'ks-secret',
      key_password: 'ks-secret',
      verify_hostname: true,
      reject_unauthorized: true,
    });
  });

  it('refuses a keystore without its password, and store types that cannot be read here', () => {
    const lines = problems([
      ...BASE,
      'primary->backup.enabled = true',
      'backup.security.protocol = SSL',
      'backup.ssl.truststore.type = JCEKS',
      'backup.ssl.truststore.location = /x/truststore.jceks',
      'backup.ssl.keystore.type = JKS',
      'backup.ssl.keystore.location = /x/k.jks',
    ]);
    assert.ok(
      lines.some((l) => /^mm2\.properties:7:34: backup\.ssl\.truststore\.location: is a truststore of type JCEKS, which cannot be read here/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /^mm2\.properties:9:32: backup\.ssl\.keystore\.location: needs backup\.ssl\.keystore\.password too/.test(l)),
      lines.join('\n'),
    );
  });

  it('refuses what the client cannot do, never quoting the JAAS text', () => {
    const lines = problems([
      ...BASE,
      'primary->backup.enabled = true',
      'backup.security.protocol = SASL_SSL',
      'backup.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2";',
      'primary.security.protocol = SASL_PLAINTEXT',
      'primary.sasl.mechanism = SCRAM-SHA-256',
      'primary.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2";',
      'backup.ssl.endpoint.identification.algorithm = ldaps',
    ]);
    // No mechanism is Kafka's default, GSSAPI, which a PLAIN login module does not go with.
    assert.ok(
      lines.some((l) =>
        /backup\.sasl\.jaas\.config: names login module org\.apache\.kafka\.common\.security\.plain\.PlainLoginModule, which does not go with sasl\.mechanism GSSAPI/.test(
          l,
        ),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) =>
        /primary\.sasl\.jaas\.config: names login module org\.apache\.kafka\.common\.security\.plain\.PlainLoginModule, which does not go with sasl\.mechanism SCRAM-SHA-256/.test(
          l,
        ),
      ),
    );
    assert.ok(lines.some((l) => /backup\.ssl\.endpoint\.identification\.algorithm: must be https, or empty to turn host name verification off/.test(l)));
    assert.ok(lines.every((l) => !l.includes('hunter2')));
  });

  it('resolves declared providers by class, with allowed paths and allow-lists', () => {
    mkdirSync(join(dir, 'secrets'), { recursive: true });
    writeFileSync(join(dir, 'secrets', 'brokers.properties'), 'SRC=127.0.0.1:9092\n');
    writeFileSync(join(dir, 'secrets', 'password'), 'from-dir\n');
    const parsed = parse(
      [
        'clusters = primary, backup',
        'config.providers = props, folder, environment',
        'config.providers.props.class = org.apache.kafka.common.config.provider.FileConfigProvider',
        `config.providers.props.param.allowed.paths = ${dir}`,
        'config.providers.folder.class = org.apache.kafka.common.config.provider.DirectoryConfigProvider',
        'config.providers.environment.class = org.apache.kafka.common.config.provider.EnvVarConfigProvider',
        'config.providers.environment.param.allowlist.pattern = MM2_.*',
        'primary.bootstrap.servers = ${props:secrets/brokers.properties:SRC}',
        'backup.bootstrap.servers = ${environment:MM2_BACKUP}',
        'backup.security.protocol = SASL_PLAINTEXT',
        'backup.sasl.mechanism = PLAIN',
        'backup.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="${folder:secrets:password}";',
        'primary->backup.enabled = true',
      ],
      { cwd: dir, env: { MM2_BACKUP: '127.0.0.1:9093' } },
    );
    assert.deepEqual(parsed.config.clusters['primary']!.bootstrap_servers, ['127.0.0.1:9092']);
    assert.deepEqual(parsed.config.clusters['backup']!.bootstrap_servers, ['127.0.0.1:9093']);
    assert.equal(parsed.config.clusters['backup']!.security.sasl?.password, 'from-dir');
  });

  it('reports every reference it cannot resolve with the key and the file, never the value', () => {
    writeFileSync(join(dir, 'secret.properties'), 'pw=topsecret\n');
    const lines = problems(
      [
        ...BASE,
        'config.providers = file, env',
        'config.providers.file.class = org.apache.kafka.common.config.provider.FileConfigProvider',
        'config.providers.env.class = org.apache.kafka.common.config.provider.EnvVarConfigProvider',
        'config.providers.vault.class = com.acme.VaultProvider',
        'primary->backup.enabled = true',
        'primary->backup.topics = ${file:missing.properties:topics}',
        'groups = ${file:secret.properties:nope}',
        'backup.client.id = ${env:NOT_SET}',
        'primary.client.id = ${dir:/tmp:x}',
        'tasks.max = ${BROKERS}',
      ],
      { cwd: dir },
    );
    assert.deepEqual(lines, [
      `mm2.properties:7:1: config.providers.vault.class: provider "vault" is not listed in config.providers\n  hint: add it: config.providers = file, env, vault`,
      `mm2.properties:9:26: primary->backup.topics: \${file:missing.properties:topics}: cannot read properties file ${join(dir, 'missing.properties')}: no such file`,
      `mm2.properties:10:10: groups: \${file:secret.properties:nope}: key "nope" is not in properties file ${join(dir, 'secret.properties')}`,
      'mm2.properties:11:20: backup.client.id: ${env:NOT_SET}: environment variable NOT_SET is not set',
      'mm2.properties:12:21: primary.client.id: ${dir:/tmp:x} uses config provider "dir", which is not declared\n  hint: declare it: config.providers = file, env, dir and config.providers.dir.class = org.apache.kafka.common.config.provider.DirectoryConfigProvider',
      'mm2.properties:13:13: tasks.max: ${BROKERS} is not a config provider reference\n  hint: an mm2.properties file reads environment variables through a provider: config.providers = env and config.providers.env.class = org.apache.kafka.common.config.provider.EnvVarConfigProvider, then ${env:NAME}',
    ]);
  });
});

describe('parseMm2Properties: every key is read, refused or explained', () => {
  it('accepts the ByteArrayConverter settings of MM2 examples and JsonConverter with its schema envelope, refuses other Java classes', () => {
    const ok = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'key.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
      'value.converter = org.apache.kafka.connect.converters.ByteArrayConverter',
      'key.converter.schemas.enable = false',
      'sync.topic.acls.enabled = false',
    ]);
    assert.deepEqual(ok.warnings, []);
    // JsonConverter's schemas.enable is true unless set otherwise: Connect's {schema, payload} envelope.
    for (const schemas of [[], ['value.converter.schemas.enable = true']]) {
      const envelope = parse([...BASE, 'primary->backup.enabled = true', 'value.converter = org.apache.kafka.connect.json.JsonConverter', ...schemas]);
      assert.deepEqual(flow(envelope, 'primary->backup').converter, { key: 'bytes', value: 'json_envelope' });
    }
    const lines = problems([
      ...BASE,
      'primary->backup.enabled = true',
      'value.converter = org.apache.kafka.connect.json.JsonConverter',
      'replication.policy.class = com.acme.Policy',
      'topic.filter.class = com.acme.Filter',
      'exactly.once.source.support = enabled',
      'backup.exactly.once.source.support = enabled',
      'primary->backup.producer.acks = maybe',
      'transforms = route',
    ]);
    assert.deepEqual(lines, [
      "mm2.properties:6:28: replication.policy.class: names Java code, which mirrorflow cannot run: only MM2's DefaultReplicationPolicy and IdentityReplicationPolicy are built in\n  hint: use org.apache.kafka.connect.mirror.DefaultReplicationPolicy (remote topics named <source>.<topic>) or org.apache.kafka.connect.mirror.IdentityReplicationPolicy (names kept)",
      'mm2.properties:7:22: topic.filter.class: names Java code, which mirrorflow cannot run: custom Java classes cannot run in mirrorflow; write a transform plugin (plugins/) instead\n  hint: mirrorflow does what org.apache.kafka.connect.mirror.DefaultTopicFilter does; set that or leave the key out',
      'mm2.properties:10:33: primary->backup.producer.acks: must be one of: all, -1, 1, 0',
      `mm2.properties:11:14: transforms: Missing required configuration "transforms.route.type" which has no default value.\n  hint: name the transform's class, e.g. <source>-><target>.transforms.route.type = org.apache.kafka.connect.transforms.RegexRouter`,
    ]);
  });

  it('warns about keys MM2 drops or mirrorflow has no use for, so none is silently ignored', () => {
    const parsed = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'tasks.max = 4',
      'consumer.isolation.level = read_committed',
      'use.defaults.from = target',
      'offset.flush.interval.ms = 1000',
      'primary.consumer.max.poll.records = 100',
      'topics = a',
      'topics = b',
    ]);
    assert.deepEqual(
      parsed.warnings.map((issue) => formatConfigIssue(issue)),
      [
        "mm2.properties:5:1: tasks.max: has no effect outside exactly-once: mirrorflow does not split a flow into tasks; it scales by running more processes with the same file, which share each flow's partitions through a consumer group (no REST rebalance, no tasks to size)\n  hint: start as many mirrorflow processes as MM2 had tasks in all (each takes a share of the partitions), or remove the key",
        'mm2.properties:6:1: consumer.isolation.level: has no effect at the top level: MM2 drops client settings there\n  hint: write it per cluster (<cluster>.consumer.isolation.level) or per flow (<source>-><target>.consumer.isolation.level)',
        'mm2.properties:7:1: use.defaults.from: has no effect at the top level: MM2 drops it there\n  hint: write it per flow, as <source>-><target>.use.defaults.from',
        'mm2.properties:8:1: offset.flush.interval.ms: has no effect at the top level: MM2 reads it only per target cluster\n  hint: write it as <cluster>.offset.flush.interval.ms',
        "mm2.properties:9:1: primary.consumer.max.poll.records: has no effect in mirrorflow: a Java client tuning setting; mirrorflow sizes fetches and batches with the flow's consumer, batching and buffer settings",
        'mm2.properties:11:1: topics: is set twice; the later value wins (line 11, not 10), as in MM2',
      ],
    );
    assert.equal(flow(parsed, 'primary->backup').consumer.isolation_level, 'read_committed');
    assert.deepEqual(flow(parsed, 'primary->backup').topics, ['b']);
  });

  it('reports unknown keys, wrong values and unknown clusters with line, column and a did-you-mean', () => {
    const lines = problems(['clusters = primary, backup, primary']);
    assert.deepEqual(lines, ['mm2.properties:1:12: clusters: cluster "primary" is listed twice in clusters\n  hint: list each alias once']);
    assert.deepEqual(
      problems([
        ...BASE,
        'primary->backup.enabled = yes',
        'primary->backup.topcs = .*',
        'primary->bakup.enabled = true',
        'primary.topics = x',
        'emit.checkpoints.interval.seconds = soon',
        'replication.factor = 99999999999',
        'primary->backup.topics = [bad',
        'primary.consumer.isolation.levl = read_committed',
        'backup.producer.compression.type = brotli',
      ]),
      [
        'mm2.properties:4:27: primary->backup.enabled: must be true or false',
        'mm2.properties:5:1: primary->backup.topcs: unknown MM2 setting\n  hint: did you mean "primary->backup.topics"?',
        'mm2.properties:6:1: primary->bakup.enabled: names cluster "bakup", which is not in clusters\n  hint: did you mean "backup"?',
        'mm2.properties:7:1: primary.topics: has no effect: settings under a cluster prefix configure its connections, not flows\n  hint: write it per flow, as primary-><target>.topics or <source>->primary.topics, or at the top level for every flow',
        'mm2.properties:8:37: emit.checkpoints.interval.seconds: must be a whole number',
        'mm2.properties:9:22: replication.factor: is out of range for a Java int (-2147483648 to 2147483647)',
        'mm2.properties:10:26: primary->backup.topics[0]: invalid regular expression "[bad": unclosed character class (at index 0)',
        'mm2.properties:11:1: primary.consumer.isolation.levl: unknown consumer setting\n  hint: did you mean "primary.consumer.isolation.level"?',
        'mm2.properties:12:36: backup.producer.compression.type: must be one of: none, gzip, snappy, lz4, zstd',
      ],
    );
  });

  it('reads errors.tolerance = all with a dead-letter topic, and refuses it without one', () => {
    const parsed = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'sync.topic.acls.enabled = false',
      'errors.tolerance = all',
      'primary->backup.errors.deadletterqueue.topic.name = primary-dlq',
    ]);
    assert.deepEqual(flow(parsed, 'primary->backup').errors, { tolerance: 'all', deadletterqueue: { topic_name: 'primary-dlq', replication_factor: 3 } });
    assert.deepEqual(problems([...BASE, 'primary->backup.enabled = true', 'sync.topic.acls.enabled = false', 'primary->backup.errors.tolerance = all']), [
      'mm2.properties:6:36: primary->backup.errors.tolerance: "all" needs a dead-letter topic: records that fail would otherwise be skipped without a trace\n  hint: set errors.deadletterqueue.topic_name (MM2: errors.deadletterqueue.topic.name), or tolerance: none to stop at the first failing record',
    ]);
    assert.deepEqual(problems([...BASE, 'primary->backup.enabled = true', 'errors.tolerance = skip']), [
      'mm2.properties:5:20: errors.tolerance: must be one of: none, all',
    ]);
  });

  it('checks values the pipeline schema bounds, at the property that set them', () => {
    assert.deepEqual(
      problems([...BASE, 'primary->backup.enabled = true', 'primary->backup.emit.heartbeats.interval.seconds = 0', 'primary.bootstrap.servers = nohost']).slice(
        0,
        2,
      ),
      [
        'mm2.properties:5:52: primary->backup.emit.heartbeats.interval.seconds: must be at least 1',
        'mm2.properties:6:29: primary.bootstrap.servers[0]: must be host:port, e.g. 127.0.0.1:9092',
      ],
    );
  });

  it('refuses a cluster without bootstrap servers and a flow of the identity policy both ways', () => {
    assert.deepEqual(problems(['clusters = a, b', 'a.bootstrap.servers = h:1', 'a->b.enabled = true']), [
      'mm2.properties:1:1: clusters: cluster "b" has no bootstrap servers\n  hint: add b.bootstrap.servers = host:9092',
    ]);
    const loop = problems([
      ...BASE,
      'primary->backup.enabled = true',
      'backup->primary.enabled = true',
      'replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy',
    ]);
    assert.equal(loop.length, 1);
    assert.match(
      loop[0]!,
      /^mm2\.properties:4:1: primary->backup \(provenance\.enabled\): flows primary->backup, backup->primary would copy topic "x" around without end\n {2}hint: the identity policy keeps topic names, so a copy looks like an original: turn on provenance headers on primary->backup, backup->primary \(provenance\.enabled: true, or in mm2\.properties provenance\.header\.enable = true\)/,
    );
  });

  it("reads Confluent Replicator's provenance.header.enable, at the top or per flow, which lets the identity policy run both ways", () => {
    const identity = 'replication.policy.class = org.apache.kafka.connect.mirror.IdentityReplicationPolicy';
    const both = [...BASE, 'primary->backup.enabled = true', 'backup->primary.enabled = true', identity];
    const parsed = parse([...both, 'provenance.header.enable = true']);
    assert.deepEqual(
      parsed.config.flows.map((f) => [f.name, f.provenance.enabled]),
      [
        ['primary->backup', true],
        ['backup->primary', true],
      ],
    );
    // One direction without it is still a loop, reported at the key that would end it.
    const half = problems([...both, 'primary->backup.provenance.header.enable = true']);
    assert.equal(half.length, 1);
    assert.match(half[0]!, /^mm2\.properties:5:1: backup->primary \(provenance\.enabled\): flows primary->backup, backup->primary would copy/);
    // Off, as Replicator's default: records stay as they are.
    assert.equal(flow(parse([...BASE, 'primary->backup.enabled = true']), 'primary->backup').provenance.enabled, false);
    assert.equal(problems([...both, 'provenance.header.enable = sometimes']).length, 1);
  });
});

describe('parseMm2Properties: --set', () => {
  it('takes MM2 keys (like a line added at the end) and pipeline paths', () => {
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'sync.topic.acls.enabled = false'], {
      set: ['primary->backup.topics=orders', 'backup.bootstrap.servers=127.0.0.1:9999', 'flows.0.batching.max_records=5', 'clusters.primary.client_id=mf'],
    });
    const f = flow(parsed, 'primary->backup');
    assert.deepEqual(f.topics, ['orders']);
    assert.equal(f.batching.max_records, 5);
    assert.deepEqual(parsed.config.clusters['backup']!.bootstrap_servers, ['127.0.0.1:9999']);
    assert.equal(parsed.config.clusters['primary']!.client_id, 'mf');
  });

  it('says a problem came from --set', () => {
    assert.deepEqual(
      problems([...BASE, 'primary->backup.enabled = true'], { set: ['primary->backup.emit.checkpoints.interval.seconds=x', 'flows.0.batchng.max_records=5'] }),
      [
        'mm2.properties: primary->backup.emit.checkpoints.interval.seconds: must be a whole number\n  hint: set by --set primary->backup.emit.checkpoints.interval.seconds',
        'mm2.properties: flows[0].batchng: --set flows.0.batchng.max_records: there is no "batchng" here\n  hint: did you mean "batching"?',
      ],
    );
  });
});

describe('parseMm2Properties: secrets', () => {
  it('never quotes a value that came from a reference, not even a bad pattern in a list', () => {
    const lines = problems(
      [
        ...BASE,
        'config.providers = env',
        'config.providers.env.class = org.apache.kafka.common.config.provider.EnvVarConfigProvider',
        'primary->backup.enabled = true',
        'primary->backup.topics = ok, ${env:TOPICS}',
      ],
      { env: { TOPICS: '[hidden-secret' } },
    );
    assert.deepEqual(lines, ['mm2.properties:7:26: primary->backup.topics[1]: invalid regular expression: unclosed character class (at index 0)']);
  });
});

describe('parseMm2Properties: legacy mode (KIP-382, "emulate legacy mirror-maker")', () => {
  const LEGACY = [
    'clusters = source, target',
    'source.bootstrap.servers = 127.0.0.1:9092',
    'target.bootstrap.servers = 127.0.0.1:9093',
    'source->target.enabled = true',
    '# emulate legacy mirror-maker',
    'replication.policy.class = org.apache.kafka.mirror.LegacyReplicationPolicy',
    'refresh.topics.enabled = false',
    'refresh.groups.enabled = false',
    'emit.checkpoints.enabled = false',
    'emit.heartbeats.enabled = false',
    'sync.topic.configs.enabled = false',
    'sync.topic.acls.enabled = false',
  ];

  it('runs one flow that keeps topic names, fixes topics and groups at start, and writes no checkpoints, heartbeats or offset syncs', () => {
    const parsed = parse(LEGACY);
    assert.deepEqual(
      parsed.config.flows.map((f) => f.name),
      ['source->target'],
    );
    const f = flow(parsed, 'source->target');
    assert.equal(f.replication_policy.type, 'identity');
    assert.equal(f.topic_sync.refresh_enabled, false);
    assert.equal(f.checkpoints.refresh_groups_enabled, false);
    assert.equal(f.checkpoints.enabled, false);
    assert.equal(f.heartbeats.enabled, false);
    assert.equal(f.offset_syncs.enabled, false);
    assert.equal(f.topic_sync.sync_configs, false);
    assert.equal(f.topic_sync.acls.enabled, false);
    assert.deepEqual(
      parsed.warnings.map((issue) => formatConfigIssue(issue)),
      [
        "mm2.properties:6:1: replication.policy.class: org.apache.kafka.mirror.LegacyReplicationPolicy is KIP-382's name for what Kafka ships as org.apache.kafka.connect.mirror.IdentityReplicationPolicy: topics keep their names (identity policy)\n  hint: write org.apache.kafka.connect.mirror.IdentityReplicationPolicy, which MM2 itself can load",
      ],
    );
  });

  it('refreshes topics and groups by default, and keeps offset syncs when the file asks for them', () => {
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'emit.checkpoints.enabled = false', 'emit.offset-syncs.enabled = true']);
    const f = flow(parsed, 'primary->backup');
    assert.equal(f.topic_sync.refresh_enabled, true);
    assert.equal(f.checkpoints.refresh_groups_enabled, true);
    assert.equal(f.offset_syncs.enabled, true);
  });

  it('takes max.in.flight.requests.per.connection above 5 as 5, as an idempotent producer keeps at most 5, with a warning naming the key and line', () => {
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'backup.producer.max.in.flight.requests.per.connection = 10']);
    assert.equal(flow(parsed, 'primary->backup').producer.max_in_flight, 5);
    assert.deepEqual(
      parsed.warnings.map((issue) => formatConfigIssue(issue)),
      [
        "mm2.properties:5:1: backup.producer.max.in.flight.requests.per.connection: primary->backup keeps 5 writes in flight, not 10: an idempotent producer keeps at most 5 (the broker deduplicates a producer's last 5 batches per partition)\n  hint: write 5 or less",
      ],
    );
    // Not idempotent: one write in flight anyway, nothing to warn about.
    const plain = parse([
      ...BASE,
      'primary->backup.enabled = true',
      'backup.producer.enable.idempotence = false',
      'backup.producer.max.in.flight.requests.per.connection = 10',
    ]);
    assert.deepEqual(
      plain.warnings.map((issue) => formatConfigIssue(issue)),
      [],
    );
  });

  it('names the key and line of a refresh flag that is not a boolean', () => {
    assert.deepEqual(problems([...BASE, 'primary->backup.enabled = true', 'refresh.topics.enabled = sometimes']), [
      'mm2.properties:5:26: refresh.topics.enabled: must be true or false',
    ]);
  });
});

describe('parseMm2Properties: exactly-once source support', () => {
  const flowOf = (parsed: ParsedPipeline): FlowConfig => parsed.config.flows.find((f) => f.name === 'primary->backup')!;

  it('enabled for the target cluster is delivery exactly_once, tasks.max the slot count, and the source is read read_committed', () => {
    const flow = flowOf(parse([...BASE, 'primary->backup.enabled = true', 'backup.exactly.once.source.support = enabled', 'tasks.max = 4']));
    assert.equal(flow.delivery, 'exactly_once');
    assert.equal(flow.tasks, 4);
    assert.equal(flow.consumer.isolation_level, 'read_committed');
  });

  it('at the top level it has no effect, as in MM2 (whose workers take only storage and converter keys from there): said so', () => {
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'exactly.once.source.support = enabled']);
    assert.equal(flowOf(parsed).delivery, 'at_least_once');
    assert.deepEqual(
      parsed.warnings.map((issue) => formatConfigIssue(issue)),
      [
        'mm2.properties:5:1: exactly.once.source.support: has no effect at the top level: MM2 reads it only per target cluster\n  hint: write it as <cluster>.exactly.once.source.support',
      ],
    );
  });

  it("MM2's defaults: at least once, one task", () => {
    const flow = flowOf(parse([...BASE, 'primary->backup.enabled = true']));
    assert.equal(flow.delivery, 'at_least_once');
    assert.equal(flow.tasks, 1);
  });

  it('preparing replicates at least once, with a note', () => {
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'backup.exactly.once.source.support = preparing']);
    assert.equal(flowOf(parsed).delivery, 'at_least_once');
    assert.match(
      parsed.warnings.map((issue) => formatConfigIssue(issue)).join('\n'),
      /mm2\.properties:5:1: backup\.exactly\.once\.source\.support: primary->backup replicates at least once: preparing .*/,
    );
  });

  it('reads read_committed unless the file asks for read_uncommitted, which it keeps with a warning about aborted records', () => {
    assert.equal(flow(parse([...BASE, 'primary->backup.enabled = true']), 'primary->backup').consumer.isolation_level, 'read_committed');
    const parsed = parse([...BASE, 'primary->backup.enabled = true', 'primary.consumer.isolation.level = read_uncommitted']);
    assert.equal(flow(parsed, 'primary->backup').consumer.isolation_level, 'read_uncommitted');
    assert.deepEqual(
      parsed.warnings.map((issue) => formatConfigIssue(issue)),
      [
        "mm2.properties:5:1: primary.consumer.isolation.level: primary->backup copies the records of aborted source transactions: on backup they are committed records, which read_committed consumers read\n  hint: remove it to read read_committed (mirrorflow's default); read_uncommitted is MM2's default behaviour",
      ],
    );
  });

  it('a file that contradicts exactly-once is refused, naming the key and its line', () => {
    assert.deepEqual(
      problems([
        ...BASE,
        'primary->backup.enabled = true',
        'backup.exactly.once.source.support = enabled',
        'primary->backup.consumer.isolation.level = read_uncommitted',
        'primary->backup.producer.enable.idempotence = false',
      ]),
      [
        'mm2.properties:6:44: primary->backup.consumer.isolation.level: delivery exactly_once reads the source read_committed: records of aborted source transactions must not be copied\n  hint: remove consumer.isolation_level: read_uncommitted (MM2: consumer.isolation.level), or use delivery: at_least_once',
        'mm2.properties:7:47: primary->backup.producer.enable.idempotence: delivery exactly_once writes with transactional producers, which are idempotent\n  hint: remove producer.idempotent: false, or use delivery: at_least_once (MM2: producer.enable.idempotence=false contradicts exactly.once.source.support=enabled)',
      ],
    );
    assert.match(
      problems([...BASE, 'primary->backup.enabled = true', 'backup.exactly.once.source.support = sometimes']).join('\n'),
      /exactly\.once\.source\.support/,
    );
  });
});
