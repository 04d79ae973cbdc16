import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatConfigIssue } from '../core/errors';
import { ValuesNotResolved } from './validate-pipeline-data';
import { loadPipelineFile } from './load-pipeline-file';
import { parsePipeline, type ParsePipelineOptions } from './parse-pipeline';
import type { FlowConfig, TransformStep } from './pipeline-config';

const minimal = [
  'clusters:',
  '  primary: { bootstrap_servers: "127.0.0.1:9092" }',
  '  backup: { bootstrap_servers: "127.0.0.1:9093" }',
  'flows:',
  '  - { source: primary, target: backup }',
].join('\n');

function parse(text: string, options: ParsePipelineOptions = {}) {
  return parsePipeline(text, 'pipelines/primary-to-backup.yaml', { env: {}, ...options });
}

function rejection(text: string, options: ParsePipelineOptions = {}): ConfigError {
  try {
    parse(text, options);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  assert.fail('expected a ConfigError');
}

describe('parsePipeline: the happy path', () => {
  it('applies every default', () => {
    const config = parse(minimal);
    assert.equal(config.name, 'primary-to-backup');
    assert.deepEqual(config.logging, { level: 'info', format: 'text' });
    assert.deepEqual(config.clusters['primary'], {
      alias: 'primary',
      bootstrap_servers: ['127.0.0.1:9092'],
      security: { protocol: 'plaintext' },
      connection_timeout_ms: 10000,
      request_timeout_ms: 30000,
    });
    const expected: FlowConfig = {
      name: 'primary->backup',
      source: 'primary',
      target: 'backup',
      enabled: true,
      topics: ['.*'],
      topics_exclude: ['mm2.*\\.internal', '.*\\.replica', '__.*'],
      replication_policy: { type: 'default', separator: '.', internal_topic_separator_enabled: true },
      replicate_heartbeats: true,
      start: 'earliest',
      delivery: 'at_least_once',
      tasks: 8,
      offsets: 'translate',
      topic_sync: {
        refresh_enabled: true,
        refresh_interval_ms: 30000,
        replication_factor: -1,
        sync_configs: true,
        configs_interval_ms: 60000,
        use_defaults_from: 'target',
        configs_exclude: [
          'follower.replication.throttled.replicas',
          'leader.replication.throttled.replicas',
          'message.timestamp.difference.max.ms',
          'log.message.timestamp.before.max.ms',
          'log.message.timestamp.after.max.ms',
          'message.timestamp.type',
          'unclean.leader.election.enable',
          'min.insync.replicas',
        ],
        acls: { enabled: true, interval_ms: 60000, prefixed: true },
      },
      offset_syncs: { enabled: true, location: 'source', lag_max: 100 },
      progress: { flush_interval_ms: 5000 },
      batching: { max_records: 10000, max_bytes: 4194304, forward_batches: true, forward_compressed_min_bytes: 65536 },
      buffer: { max_bytes: 16777216 },
      consumer: {
        isolation_level: 'read_committed',
        max_wait_ms: 500,
        auto_offset_reset: 'earliest',
        min_bytes: 1,
        session_timeout_ms: 6000,
        heartbeat_interval_ms: 1000,
        rebalance_timeout_ms: 60000,
      },
      producer: { compression: 'none', max_request_bytes: 1048576, idempotent: true, max_in_flight: 5 },
      errors: { tolerance: 'none', deadletterqueue: { replication_factor: -1 } },
      provenance: { enabled: false, diamond_window: 100000 },
      checkpoints: {
        enabled: true,
        interval_ms: 60000,
        groups: ['.*'],
        groups_exclude: ['console-consumer-.*', 'connect-.*', '__.*'],
        refresh_groups_enabled: true,
        refresh_groups_interval_ms: 30000,
        replication_factor: -1,
        sync_group_offsets: { enabled: false, interval_ms: 60000 },
      },
      heartbeats: { enabled: true, interval_ms: 1000, replication_factor: -1 },
      verify: { enabled: false, interval_ms: 60_000, records_per_interval: 10_000 },
      converter: { key: 'bytes', value: 'bytes' },
      transforms: [],
    };
    assert.deepEqual(config.flows, [expected]);
  });

  it('gives each parse its own default lists', () => {
    const first = parse(minimal);
    (first.flows[0]!.topics_exclude as string[]).push('mutated');
    assert.deepEqual(parse(minimal).flows[0]!.topics_exclude, ['mm2.*\\.internal', '.*\\.replica', '__.*']);
  });

  it('normalises comma-separated servers, MM2 upper case and TLS paths', () => {
    const config = parsePipeline(
      [
        'name: dc1.dc2',
        'clusters:',
        '  primary:',
        '    bootstrap_servers: " a:9092 ,b:9093,[::1]:9094 "',
        '    security:',
        '      protocol: SASL_SSL',
        '      sasl: { mechanism: SCRAM-SHA-512, username: mirror, password: pw }',
        '      ssl: { ca_file: certs/ca.pem, cert_file: /etc/tls/c.pem, key_file: k.pem }',
        '  backup: { bootstrap_servers: [c:1] }',
        'flows: [{ source: primary, target: backup }]',
      ].join('\n'),
      '/srv/mirror/pipeline.yaml',
      { env: {} },
    );
    const primary = config.clusters['primary']!;
    assert.equal(config.name, 'dc1.dc2');
    assert.deepEqual(primary.bootstrap_servers, ['a:9092', 'b:9093', '[::1]:9094']);
    assert.equal(primary.security.protocol, 'sasl_ssl');
    assert.equal(primary.security.sasl?.mechanism, 'scram-sha-512');
    assert.deepEqual(primary.security.ssl, {
      ca_file: '/srv/mirror/certs/ca.pem',
      cert_file: '/etc/tls/c.pem',
      key_file: '/srv/mirror/k.pem',
      verify_hostname: true,
      reject_unauthorized: true,
    });
  });

  it("hands transforms over as { type, options, path }, and to the validator with the flow's converters", () => {
    const text = `${minimal.replace('  - { source: primary, target: backup }', '  - source: primary\n    target: backup')}\n    transforms:\n      - type: insert_header\n        key: origin\n        value: primary\n      - { type: drop }`;
    const seen: unknown[] = [];
    const config = parse(text, { validateTransforms: (steps) => (seen.push(...steps), []) });
    const expected = [
      { type: 'insert_header', options: { key: 'origin', value: 'primary' }, path: 'flows[0].transforms[0]' },
      { type: 'drop', options: {}, path: 'flows[0].transforms[1]' },
    ];
    assert.deepEqual(config.flows[0]!.transforms, expected);
    // The validator also learns the flow's converters, which field-level steps need.
    const converters = { key: 'bytes', value: 'bytes' };
    assert.deepEqual(
      seen,
      expected.map((step) => ({ ...step, converters })),
    );
  });

  it("hands the validator each flow's converters as written, the JSON envelope included", () => {
    for (const converter of ['string', 'json', 'json_envelope'] as const) {
      const text = `${minimal.replace('  - { source: primary, target: backup }', '  - source: primary\n    target: backup')}\n    converter: { key: ${converter}, value: json }\n    transforms: [{ type: flatten }]`;
      const seen: TransformStep[] = [];
      parse(text, { validateTransforms: (steps) => (seen.push(...steps), []) });
      assert.deepEqual(
        seen.map((step) => step.converters),
        [{ key: converter, value: 'json' }],
      );
    }
  });

  it("refuses an avro converter without the flow's schema_registry, or with the side missing from its on, naming the key", () => {
    const flow = (extra: string): string =>
      `${minimal.replace('  - { source: primary, target: backup }', '  - source: primary\n    target: backup')}\n    converter: { key: avro, value: avro }\n${extra}`;
    assert.deepEqual(
      rejection(flow('')).issues.map((issue) => `${issue.path}: ${issue.message}`),
      ['flows[0].converter.key', 'flows[0].converter.value'].map(
        (path) =>
          `${path}: the avro converter needs the flow's schema_registry: it reads writer schemas from the source registry and registers what it writes in the target's`,
      ),
    );
    const registry = '    schema_registry: { source: { url: "http://127.0.0.1:1" }, target: { url: "http://127.0.0.1:2" } }';
    assert.deepEqual(
      rejection(flow(registry)).issues.map((issue) => `${issue.path}: ${issue.message}`),
      ['flows[0].schema_registry.on: the key is read by the avro converter, so its schema ids must be moved too: key is missing here'],
    );
    const config = parse(flow(`${registry.slice(0, -2)}, on: [key, value] }`));
    assert.deepEqual(config.flows[0]!.converter, { key: 'avro', value: 'avro' });
  });

  it('allows anchors, aliases and merge keys', () => {
    const config = parse(
      [
        'clusters:',
        '  primary: &cluster',
        '    bootstrap_servers: [a:1]',
        '    request_timeout_ms: 5000',
        '  backup:',
        '    <<: *cluster',
        '    bootstrap_servers: [b:1]',
        'flows:',
        '  - source: primary',
        '    target: backup',
        '    batching: &fast { max_wait_ms: 0 }',
        '  - source: backup',
        '    target: primary',
        '    batching: *fast',
      ].join('\n'),
    );
    assert.equal(config.clusters['backup']!.request_timeout_ms, 5000);
    assert.deepEqual(config.clusters['backup']!.bootstrap_servers, ['b:1']);
    assert.equal(config.flows[1]!.batching.max_wait_ms, 0);
  });
});

describe('parsePipeline: flow_defaults', () => {
  const text = [
    'clusters:',
    '  a: { bootstrap_servers: "h:1" }',
    '  b: { bootstrap_servers: "h:2" }',
    'flow_defaults:',
    '  topics: [orders, payments]',
    '  batching: { max_records: 500, max_wait_ms: 50 }',
    '  replication_policy: { type: default, separator: _ }',
    '  transforms: [{ type: drop }]',
    'flows:',
    '  - source: a',
    '    target: b',
    '    topics: [audit]',
    '    batching: { max_records: 100 }',
    '  - source: b',
    '    target: a',
    '    replication_policy: { type: identity }',
    '    transforms: []',
  ].join('\n');

  it('merges maps key by key, replaces lists, and lets the flow win', () => {
    const [ab, ba] = parse(text).flows;
    assert.deepEqual(ab!.topics, ['audit']);
    assert.deepEqual(ab!.batching, { max_records: 100, max_bytes: 4194304, max_wait_ms: 50, forward_batches: true, forward_compressed_min_bytes: 65536 });
    assert.deepEqual(ab!.replication_policy, { type: 'default', separator: '_', internal_topic_separator_enabled: true });
    assert.deepEqual(ab!.transforms, [{ type: 'drop', options: {}, path: 'flows[0].transforms[0]' }]);
    assert.deepEqual(ba!.topics, ['orders', 'payments']);
    assert.deepEqual(ba!.batching, { max_records: 500, max_bytes: 4194304, max_wait_ms: 50, forward_batches: true, forward_compressed_min_bytes: 65536 });
    assert.deepEqual(ba!.transforms, []);
  });

  it('gives every flow the default error handling, with its own dead-letter topic where it names one', () => {
    const withErrors = text
      .replace(
        '  transforms: [{ type: drop }]\n',
        '  transforms: [{ type: drop }]\n  errors: { tolerance: all, deadletterqueue: { topic_name: mirror-dlq, replication_factor: 1 } }\n',
      )
      .replace('    transforms: []', '    transforms: []\n    errors: { deadletterqueue: { topic_name: b-to-a-dlq } }');
    const [ab, ba] = parse(withErrors).flows;
    assert.deepEqual(ab!.errors, { tolerance: 'all', deadletterqueue: { topic_name: 'mirror-dlq', replication_factor: 1 } });
    assert.deepEqual(ba!.errors, { tolerance: 'all', deadletterqueue: { topic_name: 'b-to-a-dlq', replication_factor: 1 } });
  });

  it('replaces a map of another `type` instead of merging into it', () => {
    assert.deepEqual(parse(text).flows[1]!.replication_policy, { type: 'identity', separator: '.' });
  });
});

describe('parsePipeline: interpolation', () => {
  const withTopics = (topics: string) =>
    `${minimal.replace('  - { source: primary, target: backup }', '  - source: primary\n    target: backup')}\n    topics: ${topics}`;

  it('replaces ${VAR}, ${VAR:default} and ${VAR:} and keeps $${ literal', () => {
    const text = withTopics('["${PREFIX}.*", "${MISSING:fallback:x}", "a${EMPTY:}b", "cost$"]').replace(
      '127.0.0.1:9092" }',
      // A function, because a replacement string would read `$$` as `$`.
      () => '127.0.0.1:9092", client_id: "$${NOT_A_VAR} and $$ and $" }',
    );
    const config = parse(text, { env: { PREFIX: 'orders' } });
    assert.deepEqual(config.flows[0]!.topics, ['orders.*', 'fallback:x', 'ab', 'cost$']);
    assert.equal(config.clusters['primary']!.client_id, '${NOT_A_VAR} and $$ and $');
  });

  it('prefers the variable to its default, even when it is empty', () => {
    assert.deepEqual(parse(withTopics('["${T:x}"]'), { env: { T: '' } }).flows[0]!.topics, ['']);
  });

  it('reads numbers and booleans where the schema wants them, and keeps text where it wants text', () => {
    const text = [
      'clusters:',
      '  primary:',
      '    bootstrap_servers: ${PRIMARY:127.0.0.1:9092}',
      '    security: { protocol: sasl_plaintext, sasl: { mechanism: plain, username: u, password: "${PASSWORD}" } }',
      '    request_timeout_ms: ${TIMEOUT:30000}',
      '  backup: { bootstrap_servers: "h:1" }',
      'flows:',
      '  - source: primary',
      '    target: backup',
      '    enabled: ${ENABLED:true}',
      '    batching: { max_records: "${BATCH}" }',
      '    transforms:',
      '      - type: t',
      '        plain: "${N}"',
      '        n: ${N}',
    ].join('\n');
    const config = parse(text, { env: { PASSWORD: '0123', BATCH: '500', N: '7', TIMEOUT: '1000' } });
    const primary = config.clusters['primary']!;
    assert.equal(primary.security.sasl?.password, '0123');
    assert.deepEqual(primary.bootstrap_servers, ['127.0.0.1:9092']);
    assert.equal(primary.request_timeout_ms, 1000);
    assert.equal(config.flows[0]!.enabled, true);
    assert.equal(config.flows[0]!.batching.max_records, 500);
    // Plugin options have no schema here: quotes decide, as in YAML.
    assert.deepEqual(config.flows[0]!.transforms[0]!.options, { plain: '7', n: 7 });
  });

  it('takes env from process.env by default', () => {
    process.env['MIRRORFLOW_SPEC_TOPIC'] = 'from-process';
    try {
      const config = parsePipeline(withTopics('["${MIRRORFLOW_SPEC_TOPIC}"]'), 'p.yaml');
      assert.deepEqual(config.flows[0]!.topics, ['from-process']);
    } finally {
      delete process.env['MIRRORFLOW_SPEC_TOPIC'];
    }
  });
});

describe('parsePipeline with resolve: false', () => {
  const text = (batch: string): string =>
    [
      'clusters:',
      '  a: { bootstrap_servers: "${A_SERVERS}" }',
      '  b: { bootstrap_servers: "${env:B_SERVERS}" }',
      'flows:',
      `  - { source: a, target: b, batching: { max_records: ${batch} } }`,
    ].join('\n');

  it('reads no variable, and checks the rest of the file', () => {
    const config = parsePipeline(text('"${BATCH:500}"'), 'p.yaml', { env: {}, resolve: false });
    assert.equal(config.flows[0]!.batching.max_records, 500, 'a default is a value of the file');
    assert.throws(() => parsePipeline(text('0'), 'p.yaml', { env: {}, resolve: false }), ConfigError);
  });

  it('says so, rather than guess, when the schema needed a value it did not read', () => {
    assert.throws(() => parsePipeline(text('"${BATCH}"'), 'p.yaml', { env: {}, resolve: false }), ValuesNotResolved);
  });
});

describe('parsePipeline: MM2 config providers', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorflow-config-'));
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'kafka.properties'), '# MM2 style\nprimary.password = s3cr\\\n    et\nprimary.user: mirror\n');
    writeFileSync(join(dir, 'secrets', 'bootstrap'), 'p1:9092,p2:9092\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const text = [
    'clusters:',
    '  primary:',
    '    bootstrap_servers: ${dir:secrets:bootstrap}',
    '    client_id: ${env:CLIENT}',
    '    security:',
    '      protocol: sasl_ssl',
    '      sasl:',
    '        mechanism: plain',
    '        username: ${file:secrets/kafka.properties:primary.user}',
    '        password: ${file:secrets/kafka.properties:primary.password}',
    '  backup: { bootstrap_servers: "h:1" }',
    'flows: [{ source: primary, target: backup }]',
  ].join('\n');

  it('resolves env:, file: (Java properties) and dir: relative to the pipeline file', () => {
    const config = parsePipeline(text, join(dir, 'pipeline.yaml'), { env: { CLIENT: 'mf' } });
    const primary = config.clusters['primary']!;
    assert.deepEqual(primary.bootstrap_servers, ['p1:9092', 'p2:9092']);
    assert.equal(primary.client_id, 'mf');
    assert.deepEqual(primary.security.sasl, { mechanism: 'plain', username: 'mirror', password: 's3cret' });
  });

  it('reports a key missing from the file and an unset env variable, naming them', () => {
    const broken = text.replace('primary.password}', 'backup.password}');
    const error = (() => {
      try {
        parsePipeline(broken, join(dir, 'pipeline.yaml'), { env: {} });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof ConfigError);
    const lines = error.issues.map((issue) => formatConfigIssue(issue));
    assert.ok(
      lines.some(
        (l) => l.includes(':10:19: clusters.primary.security.sasl.password: key "backup.password" is not in properties file') && l.includes('kafka.properties'),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => l.includes(':4:16: clusters.primary.client_id: environment variable CLIENT is not set')),
      lines.join('\n'),
    );
  });
});

describe('parsePipeline: secrets never reach a message', () => {
  const secret = 'hunter2-Sup3rSecret';
  const text = [
    'clusters:',
    '  primary:',
    '    bootstrap_servers: ${SECRET}', // not host:port
    '    client_id: ${SECRET}',
    '    security: { protocol: "${SECRET}" }', // not a protocol
    '  backup: { bootstrap_servers: "h:1" }',
    'flows:',
    '  - source: ${SECRET}', // not a cluster
    '    target: backup',
    '    topics: ["${SECRET}("]', // not a regex
    '    start: ${SECRET}', // not earliest/latest
    '    batching: { max_records: "${SECRET}" }', // not a number
    '    enabled: ${SECRET}', // not a boolean
  ].join('\n');

  it('describes interpolated values without quoting them', () => {
    const error = rejection(text, { env: { SECRET: secret } });
    assert.ok(error.issues.length >= 7, error.message);
    assert.ok(!error.message.includes(secret), error.message);
    assert.ok(!error.message.includes('hunter2'), error.message);
    for (const issue of error.issues) assert.ok(!JSON.stringify(issue).includes(secret), formatConfigIssue(issue));
    const source = error.issues.find((i) => i.path === 'flows[0].source');
    assert.equal(source?.message, 'unknown cluster');
    const pattern = error.issues.find((i) => i.path === 'flows[0].topics[0]');
    assert.equal(pattern?.message, 'invalid regular expression: unterminated group');
  });

  it('does not quote values given with --set either', () => {
    const error = rejection(minimal, { set: [`flows.0.source=${secret}`, `flows.0.topics=["${secret}("]`, `flows.0.batching.max_records=${secret}`] });
    assert.equal(error.issues.length, 3, error.message);
    assert.ok(!error.message.includes(secret), error.message);
  });

  it('still quotes values written in the file', () => {
    const error = rejection(minimal.replace('source: primary', 'source: primray'));
    assert.equal(error.issues[0]?.message, 'unknown cluster "primray"');
  });
});

describe('parsePipeline: --set', () => {
  it('overrides numbers, strings, lists and creates missing maps', () => {
    const config = parse(minimal, {
      set: [
        'flows.0.batching.max_records=5000',
        'clusters.primary.bootstrap_servers=h:1,h:2',
        'flows[0].topics=[orders, "pay.*"]',
        'clusters.backup.security.protocol=SSL',
        'clusters.backup.client_id=0123',
        'name=override',
      ],
    });
    assert.equal(config.name, 'override');
    assert.equal(config.flows[0]!.batching.max_records, 5000);
    assert.deepEqual(config.clusters['primary']!.bootstrap_servers, ['h:1', 'h:2']);
    assert.deepEqual(config.flows[0]!.topics, ['orders', 'pay.*']);
    assert.equal(config.clusters['backup']!.security.protocol, 'ssl');
    assert.equal(config.clusters['backup']!.client_id, '0123');
  });

  it('applies in order, so the last one wins, and reaches flow_defaults', () => {
    const text = `${minimal}\nflow_defaults: { start: latest }`;
    const config = parse(text, { set: ['flows.0.start=latest', 'flows.0.start=earliest', 'flow_defaults.batching.max_wait_ms=0'] });
    assert.equal(config.flows[0]!.start, 'earliest');
    assert.equal(config.flows[0]!.batching.max_wait_ms, 0);
  });

  it('changes one place even when the file shares it through an alias', () => {
    const text = [
      'clusters:',
      '  a: { bootstrap_servers: "h:1" }',
      '  b: { bootstrap_servers: "h:2" }',
      'flows:',
      '  - { source: a, target: b, batching: &x { max_records: 1 } }',
      '  - { source: b, target: a, batching: *x }',
    ].join('\n');
    const config = parse(text, { set: ['flows.1.batching.max_records=2'] });
    assert.deepEqual(
      config.flows.map((f) => f.batching.max_records),
      [1, 2],
    );
  });

  it('rejects an index past the end of a list, and a path into a scalar', () => {
    const error = rejection(minimal, { set: ['flows.3.enabled=false', 'flows.0.source.x=1'] });
    const lines = error.issues.map((issue) => formatConfigIssue(issue));
    assert.match(lines.join('\n'), /--set flows\.3\.enabled: flows has 1 entries/);
    assert.match(lines.join('\n'), /--set flows\.0\.source\.x: there is no "x" here/);
  });
});

describe('loadPipelineFile', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mirrorflow-load-'));
    writeFileSync(join(dir, 'east-west.yml'), minimal);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file and names the pipeline after it', async () => {
    const config = await loadPipelineFile(join(dir, 'east-west.yml'), { env: {} });
    assert.equal(config.name, 'east-west');
  });

  it('turns a missing file into a ConfigError naming it', async () => {
    const missing = join(dir, 'nope.yaml');
    await assert.rejects(loadPipelineFile(missing), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(error.issues, [{ file: missing, message: 'cannot read the pipeline file: no such file' }]);
      return true;
    });
  });
});
