import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, formatConfigIssue, type ConfigIssue } from '../core/errors';
import { parsePipeline, type ParsePipelineOptions } from './parse-pipeline';

/** A valid pipeline, one key per line, so each case below knows its line numbers. */
const base = [
  'clusters:', //                               1
  '  primary:', //                              2
  '    bootstrap_servers: 127.0.0.1:9092', //   3
  '  backup:', //                               4
  '    bootstrap_servers: 127.0.0.1:9093', //   5
  'flows:', //                                  6
  '  - source: primary', //                     7
  '    target: backup', //                      8
];
/** The base pipeline with lines added to its flow, from line 9 on. */
const withFlowLines = (...lines: string[]): string => [...base, ...lines].join('\n');

function issuesOf(text: string, options: ParsePipelineOptions = {}): readonly ConfigIssue[] {
  try {
    parsePipeline(text, 'pipelines/test.yaml', { env: {}, ...options });
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.issues;
  }
  assert.fail('expected the pipeline to be rejected');
}

interface Expected {
  readonly path?: string;
  readonly message: RegExp;
  readonly line?: number;
  readonly column?: number;
  readonly hint?: RegExp;
}

/** Asserts that one issue matches on every given field, and that every issue names the file. */
function expectIssue(text: string, expected: Expected, options: ParsePipelineOptions = {}): ConfigIssue {
  const issues = issuesOf(text, options);
  for (const issue of issues) assert.equal(issue.file, 'pipelines/test.yaml');
  const found = issues.find((issue) => issue.path === expected.path && expected.message.test(issue.message));
  assert.ok(found, `no issue at ${String(expected.path)} matching ${expected.message}; got:\n${issues.map((issue) => formatConfigIssue(issue)).join('\n')}`);
  if (expected.line !== undefined) assert.equal(found.line, expected.line, formatConfigIssue(found));
  if (expected.column !== undefined) assert.equal(found.column, expected.column, formatConfigIssue(found));
  if (expected.hint !== undefined) assert.match(found.hint ?? '', expected.hint, formatConfigIssue(found));
  return found;
}

describe('parsePipeline rejects broken input with file, line, path and a useful message', () => {
  it('1. YAML syntax error: only the first, with its position', () => {
    const issues = issuesOf('clusters:\n  a: [x\nflows: []\n');
    assert.equal(issues.length, 1);
    assert.match(issues[0]!.message, /flow sequence/i);
    assert.equal(issues[0]!.line, 3);
  });

  it('2. an unquoted ${…} inside { } breaks YAML; the hint says to quote it', () => {
    expectIssue(withFlowLines('    batching: { max_records: ${N} }'), { message: /unexpected/i, line: 9, hint: /quote values that use \$\{…\}/ });
  });

  it('3. duplicate key', () => {
    expectIssue(withFlowLines('    target: primary'), { path: 'flows[0].target', message: /^duplicate key "target"$/, line: 9, column: 5 });
  });

  it('4. empty file', () => {
    expectIssue('# nothing here\n', { message: /^the file is empty$/, line: 1 });
  });

  it('5. top level is a list', () => {
    expectIssue('- clusters\n- flows\n', { message: /top level must be a map/, line: 1 });
  });

  it('6. unknown top-level key, with did-you-mean', () => {
    expectIssue([...base, 'loging: { level: debug }'].join('\n'), {
      path: 'loging',
      message: /^unknown key$/,
      line: 9,
      column: 1,
      hint: /did you mean "logging"\?/,
    });
  });

  it('7. unknown nested key, with did-you-mean', () => {
    expectIssue(withFlowLines('    batching:', '      max_record: 5'), {
      path: 'flows[0].batching.max_record',
      message: /^unknown key$/,
      line: 10,
      column: 7,
      hint: /did you mean "max_records"\?/,
    });
  });

  it('8. MM2 spelling of a key suggests ours', () => {
    const text = base.join('\n').replace('    bootstrap_servers: 127.0.0.1:9093', '    bootstrap.servers: 127.0.0.1:9093');
    expectIssue(text, { path: 'clusters.backup["bootstrap.servers"]', message: /unknown key/, line: 5, hint: /did you mean "bootstrap_servers"\?/ });
    expectIssue(text, { path: 'clusters.backup.bootstrap_servers', message: /^missing required key$/, line: 5 });
  });

  it('9. unknown key with nothing close lists the allowed ones', () => {
    expectIssue(withFlowLines('    zzz: 1'), { path: 'flows[0].zzz', message: /unknown key/, line: 9, hint: /expected one of: source, target, enabled/ });
  });

  it('10. missing top-level section', () => {
    expectIssue('flows:\n  - source: a\n    target: b\n', { path: 'clusters', message: /^missing required key$/, line: 1 });
  });

  it('11. missing source points at the flow', () => {
    const text = [...base.slice(0, 6), '  - target: backup'].join('\n');
    expectIssue(text, { path: 'flows[0].source', message: /^missing required key$/, line: 7, column: 5 });
  });

  it('12. wrong type', () => {
    expectIssue(withFlowLines('    batching:', '      max_records: many'), {
      path: 'flows[0].batching.max_records',
      message: /^expected a (whole )?number, got a string$/,
      line: 10,
      column: 20,
    });
  });

  it('13. a quoted number says why it is a string', () => {
    expectIssue(withFlowLines('    enabled: "false"'), {
      path: 'flows[0].enabled',
      message: /expected true or false, got a string/,
      line: 9,
      hint: /quotes make a string/,
    });
  });

  it('14. not a whole number', () => {
    expectIssue(withFlowLines('    batching: { max_records: 1.5 }'), {
      path: 'flows[0].batching.max_records',
      message: /^must be a whole number$/,
      line: 9,
      column: 30,
    });
  });

  it('15. below the minimum', () => {
    expectIssue(withFlowLines('    topic_sync: { refresh_interval_ms: 10 }'), {
      path: 'flows[0].topic_sync.refresh_interval_ms',
      message: /^must be at least 1000$/,
      line: 9,
    });
  });

  it('16. negative wait', () => {
    expectIssue(withFlowLines('    batching: { max_wait_ms: -1 }'), { path: 'flows[0].batching.max_wait_ms', message: /^must be at least 0$/, line: 9 });
  });

  it('17. replication factor 0', () => {
    expectIssue(withFlowLines('    topic_sync: { replication_factor: 0 }'), {
      path: 'flows[0].topic_sync.replication_factor',
      message: /must be -1 \(the target broker's default\) or at least 1/,
      line: 9,
    });
  });

  it('18. value not in an enum lists the choices', () => {
    expectIssue(withFlowLines('    producer: { compression: brotli }'), {
      path: 'flows[0].producer.compression',
      message: /^must be one of: none, gzip, snappy, lz4, zstd$/,
      line: 9,
    });
  });

  it('19. unknown protocol lists each choice once, in lower case', () => {
    const text = base.join('\n').replace('    bootstrap_servers: 127.0.0.1:9093', '    bootstrap_servers: 127.0.0.1:9093\n    security: { protocol: TLS }');
    expectIssue(text, { path: 'clusters.backup.security.protocol', message: /^must be one of: plaintext, ssl, sasl_plaintext, sasl_ssl$/, line: 6 });
  });

  it('20. bad regex names the pattern and the reason', () => {
    expectIssue(withFlowLines("    topics: ['orders', '(payments']"), {
      path: 'flows[0].topics[1]',
      message: /^invalid regular expression "\(payments": unterminated group$/,
      line: 9,
      column: 24,
    });
  });

  it('21. Java regex syntax JavaScript cannot express is rejected; what MM2 users write is accepted', () => {
    expectIssue(withFlowLines("    topics_exclude: ['test.*+']"), {
      path: 'flows[0].topics_exclude[0]',
      message: /^invalid regular expression "test\.\*\+": possessive quantifiers/,
      line: 9,
    });
    const accepted = parsePipeline(withFlowLines("    topics: ['(?i)orders.*', '\\Qa.b\\E']"), 'pipelines/test.yaml', { env: {} });
    assert.deepEqual(accepted.flows[0]!.topics, ['(?i)orders.*', '\\Qa.b\\E']);
  });

  it('22. unknown cluster alias, with did-you-mean', () => {
    const text = withFlowLines().replace('  - source: primary', '  - source: primray');
    expectIssue(text, { path: 'flows[0].source', message: /^unknown cluster "primray"$/, line: 7, column: 13, hint: /did you mean "primary"\?/ });
  });

  it('23. source equal to target', () => {
    const text = withFlowLines().replace('    target: backup', '    target: primary');
    expectIssue(text, { path: 'flows[0].target', message: /^target is the same cluster as source$/, line: 8, column: 13 });
  });

  it('24. the same flow twice', () => {
    expectIssue(withFlowLines('  - source: primary', '    target: backup'), {
      path: 'flows[1]',
      message: /^same source and target as flows\[0\]$/,
      line: 9,
      column: 5,
    });
  });

  it('25. a SASL protocol without sasl', () => {
    const text = base
      .join('\n')
      .replace('    bootstrap_servers: 127.0.0.1:9093', '    bootstrap_servers: 127.0.0.1:9093\n    security: { protocol: SASL_SSL }');
    expectIssue(text, { path: 'clusters.backup.security.sasl', message: /needs a "sasl" block/, line: 6, hint: /mechanism, username, password/ });
  });

  it('26. sasl without a SASL protocol (the default is plaintext)', () => {
    const text = base
      .join('\n')
      .replace(
        '    bootstrap_servers: 127.0.0.1:9093',
        '    bootstrap_servers: 127.0.0.1:9093\n    security:\n      sasl: { mechanism: plain, username: u, password: p }',
      );
    expectIssue(text, { path: 'clusters.backup.security.sasl', message: /protocol is not SASL \(protocol defaults to plaintext\)/, line: 7, column: 13 });
  });

  it('27. undefined variable, at its exact column', () => {
    expectIssue(withFlowLines('    topics: [orders, "pre-${TOPIC_PREFIX}.*"]'), {
      path: 'flows[0].topics[1]',
      message: /^variable TOPIC_PREFIX is not set$/,
      line: 9,
      column: 27,
      hint: /\$\{TOPIC_PREFIX:default\}/,
    });
  });

  it('28. ${env:NAME} that is not set', () => {
    const text = base.join('\n').replace('127.0.0.1:9093', '${env:BACKUP_BOOTSTRAP}');
    expectIssue(text, { path: 'clusters.backup.bootstrap_servers', message: /^environment variable BACKUP_BOOTSTRAP is not set/, line: 5, column: 24 });
  });

  it('29. ${file:…} whose file is missing names the file and key', () => {
    const text = base.join('\n').replace('127.0.0.1:9093', '${file:no-such.properties:backup.servers}');
    const issue = expectIssue(text, { path: 'clusters.backup.bootstrap_servers', message: /cannot read properties file .*no-such\.properties/, line: 5 });
    assert.match(issue.message, /backup\.servers/);
    assert.match(issue.message, /no such file/);
  });

  it('30. invalid reference syntax', () => {
    expectIssue(withFlowLines('    topics: ["${9lives}"]'), {
      path: 'flows[0].topics[0]',
      message: /^invalid reference "\$\{9lives\}"$/,
      line: 9,
      hint: /\$\$\{ for a literal/,
    });
  });

  it('31. unterminated reference', () => {
    expectIssue(withFlowLines('    topics: ["${OPEN"]'), { path: 'flows[0].topics[0]', message: /^unterminated "\$\{"$/, line: 9 });
  });

  it('32. --set to a key that does not exist, with did-you-mean', () => {
    expectIssue(
      base.join('\n'),
      {
        path: 'flows[0].batching.max_record',
        message: /--set flows\.0\.batching\.max_record: there is no "max_record" here/,
        hint: /did you mean "max_records"\?/,
      },
      {
        set: ['flows.0.batching.max_record=5'],
      },
    );
  });

  it('33. --set without "="', () => {
    expectIssue(base.join('\n'), { message: /^--set needs path=value$/ }, { set: ['flows.0.enabled'] });
  });

  it('34. --set value of the wrong type says where it came from', () => {
    const issue = expectIssue(
      base.join('\n'),
      { path: 'flows[0].batching.max_records', message: /expected a (whole )?number, got a string/, hint: /set by --set flows\.0\.batching\.max_records/ },
      {
        set: ['flows.0.batching.max_records=lots'],
      },
    );
    assert.equal(issue.line, undefined);
  });

  it('35. bootstrap server without a port', () => {
    const text = base.join('\n').replace('127.0.0.1:9093', 'localhost');
    expectIssue(text, { path: 'clusters.backup.bootstrap_servers[0]', message: /^must be host:port/, line: 5, column: 24 });
  });

  it('36. port out of range', () => {
    const text = base.join('\n').replace('127.0.0.1:9093', 'h1:9092, h2:99999');
    expectIssue(text, { path: 'clusters.backup.bootstrap_servers[1]', message: /port must be between 1 and 65535/, line: 5 });
  });

  it('37. empty bootstrap list', () => {
    const text = base.join('\n').replace('127.0.0.1:9093', '[]');
    expectIssue(text, { path: 'clusters.backup.bootstrap_servers', message: /^must not be empty$/, line: 5 });
  });

  it('38. bad cluster alias points at the key', () => {
    const text = base.join('\n').replace('  backup:', '  back.up:').replace('target: backup', 'target: primary');
    expectIssue(text, { path: 'clusters["back.up"]', message: /cluster alias may only contain/, line: 4, column: 3 });
  });

  it('39. identity policy does not take internal_topic_separator_enabled', () => {
    expectIssue(withFlowLines('    replication_policy: { type: identity, internal_topic_separator_enabled: false }'), {
      path: 'flows[0].replication_policy.internal_topic_separator_enabled',
      message: /unknown key/,
      line: 9,
      hint: /expected one of: type, separator/,
    });
  });

  it('40. unknown policy type', () => {
    expectIssue(withFlowLines('    replication_policy: { type: prefixless }'), {
      path: 'flows[0].replication_policy.type',
      message: /^must be one of: default, identity$/,
      line: 9,
      column: 33,
    });
  });

  it('41. no flows', () => {
    expectIssue([...base.slice(0, 5), 'flows: []'].join('\n'), { path: 'flows', message: /^must not be empty$/, line: 6, column: 8 });
  });

  it('42. only one cluster', () => {
    const text = ['clusters:', '  primary: { bootstrap_servers: "h:1" }', 'flows:', '  - { source: primary, target: primary }'].join('\n');
    expectIssue(text, { path: 'clusters', message: /at least two clusters/, line: 2 });
  });

  it('43. alias with no anchor', () => {
    expectIssue(withFlowLines('    batching: *defaults'), { path: 'flows[0].batching', message: /alias \*defaults names no anchor/, line: 9, column: 15 });
  });

  it('44. empty value where a map is expected', () => {
    expectIssue(withFlowLines('    batching:'), {
      path: 'flows[0].batching',
      message: /^expected a map, got an empty value$/,
      line: 9,
      hint: /leave the key out/,
    });
  });

  it('45. a file name that cannot be a pipeline name, and no name:', () => {
    const issues = (() => {
      try {
        parsePipeline(base.join('\n'), 'pipelines/my pipeline.yaml', { env: {} });
      } catch (error) {
        return error instanceof ConfigError ? error.issues : [];
      }
      return [];
    })();
    assert.equal(issues.length, 1);
    assert.equal(issues[0]!.path, 'name');
    assert.match(issues[0]!.message, /file name is not a valid pipeline name/);
  });

  it('46. source in flow_defaults', () => {
    expectIssue([...base, 'flow_defaults: { source: primary }'].join('\n'), {
      path: 'flow_defaults.source',
      message: /unknown key/,
      line: 9,
      hint: /belong in each flow/,
    });
  });

  it('47. a bad value in flow_defaults is reported once, where it is written', () => {
    const text = [...base, '  - source: backup', '    target: primary', 'flow_defaults:', '  batching: { max_records: 0 }'].join('\n');
    const issues = issuesOf(text);
    assert.deepEqual(
      issues.map((i) => [i.path, i.message, i.line]),
      [['flow_defaults.batching.max_records', 'must be at least 1', 12]],
    );
  });

  it('48. a transform without type', () => {
    expectIssue(withFlowLines('    transforms:', '      - { header: x }'), {
      path: 'flows[0].transforms[0].type',
      message: /^missing required key$/,
      line: 10,
      column: 9,
    });
  });

  it('49. problems from the injected transform validator get a line', () => {
    const issue = expectIssue(
      withFlowLines('    transforms:', '      - type: insert_header', '        header: x'),
      { path: 'flows[0].transforms[0].header', message: /^bad header$/, line: 11, column: 17 },
      { validateTransforms: (steps) => steps.map((step) => ({ path: `${step.path}.header`, message: 'bad header' })) },
    );
    assert.equal(issue.file, 'pipelines/test.yaml');
  });

  it('39b. a consumer group pattern that does not compile, as the group filter compiles it', () => {
    expectIssue(withFlowLines('    checkpoints:', "      groups_exclude: ['ok', '(unclosed']"), {
      path: 'flows[0].checkpoints.groups_exclude[1]',
      message: /^invalid regular expression "\(unclosed": unterminated group$/,
      line: 10,
    });
  });

  it('50. cert_file without key_file', () => {
    const text = base
      .join('\n')
      .replace(
        '    bootstrap_servers: 127.0.0.1:9093',
        '    bootstrap_servers: 127.0.0.1:9093\n    security:\n      protocol: ssl\n      ssl: { cert_file: client.pem }',
      );
    expectIssue(text, { path: 'clusters.backup.security.ssl.key_file', message: /a client certificate and its key go together/, line: 8 });
  });

  it('50b. an inline client certificate and a certificate file at once', () => {
    const text = base
      .join('\n')
      .replace(
        '    bootstrap_servers: 127.0.0.1:9093',
        '    bootstrap_servers: 127.0.0.1:9093\n    security:\n      protocol: ssl\n      ssl: { cert_file: client.pem, cert: x, key: y }',
      );
    expectIssue(text, { path: 'clusters.backup.security.ssl.cert', message: /"cert_file" and "cert" are both set/, line: 8 });
  });

  it('50c. a keystore without its password, and a keystore besides a PEM client certificate', () => {
    const withSsl = (ssl: string): string =>
      base
        .join('\n')
        .replace('    bootstrap_servers: 127.0.0.1:9093', `    bootstrap_servers: 127.0.0.1:9093\n    security:\n      protocol: ssl\n      ssl: ${ssl}`);
    expectIssue(withSsl('{ keystore_file: client.p12 }'), {
      path: 'clusters.backup.security.ssl.keystore_password',
      message: /a keystore is read with its password/,
      line: 8,
    });
    expectIssue(withSsl('{ keystore_file: client.p12, keystore_password: p, cert_file: c.pem }'), {
      path: 'clusters.backup.security.ssl.cert_file',
      message: /"keystore_file" and "cert_file" are both set/,
      line: 8,
    });
  });

  it('20. errors.tolerance all without a dead-letter topic, which would skip records without a trace', () => {
    expectIssue(withFlowLines('    errors:', '      tolerance: all'), {
      path: 'flows[0].errors.tolerance',
      message: /"all" needs a dead-letter topic/,
      line: 10,
      hint: /set errors\.deadletterqueue\.topic_name/,
    });
  });

  it('21. errors.tolerance other than none or all', () => {
    expectIssue(withFlowLines('    errors: { tolerance: some }'), { path: 'flows[0].errors.tolerance', message: /^must be one of: none, all$/, line: 9 });
  });

  it('22. offsets: preserve with a transform that may drop records, with start: latest, without idempotence, or with exactly-once', () => {
    expectIssue(withFlowLines('    offsets: preserve', '    transforms:', '      - { type: drop, if: { header: x } }'), {
      path: 'flows[0].transforms[0].type',
      message: /transform "drop" may drop records or send them to another topic/,
      hint: /only drop_headers and insert_header keep every record/,
    });
    expectIssue(withFlowLines('    offsets: preserve', '    start: latest'), { path: 'flows[0].start', message: /copies each partition from its log start/ });
    expectIssue(withFlowLines('    offsets: preserve', '    producer: { idempotent: false }'), {
      path: 'flows[0].producer.idempotent',
      message: /needs the idempotent producer/,
    });
    expectIssue(withFlowLines('    offsets: preserve', '    delivery: exactly_once'), {
      path: 'flows[0].offsets',
      message: /cannot be combined with delivery: exactly_once/,
      hint: /use delivery: at_least_once/,
    });
    const headersOnly = withFlowLines('    offsets: preserve', '    transforms:', '      - { type: drop_headers, headers: [a] }');
    assert.doesNotThrow(() => parsePipeline(headersOnly, 'pipelines/test.yaml', { env: {} }), 'a transform that keeps every record is accepted');
  });

  it("23. a group's heartbeat as long as its session, or longer; a session the default heartbeat does not fit", () => {
    expectIssue(withFlowLines('    consumer: { session_timeout_ms: 6000, heartbeat_interval_ms: 6000 }'), {
      path: 'flows[0].consumer.heartbeat_interval_ms',
      message: /the heartbeat interval \(6000 ms\) must be below the session timeout \(6000 ms\)/,
      line: 9,
      hint: /heartbeat_interval_ms 2000 or less/,
    });
    expectIssue(withFlowLines('    consumer: { session_timeout_ms: 800 }'), {
      path: 'flows[0].consumer.session_timeout_ms',
      message: /the heartbeat interval \(1000 ms\) must be below the session timeout \(800 ms\)/,
    });
    expectIssue(withFlowLines('    consumer: { rebalance_timeout_ms: 0 }'), {
      path: 'flows[0].consumer.rebalance_timeout_ms',
      message: /at least 1|>=1|too small/i,
    });
    const fine = withFlowLines('    consumer: { session_timeout_ms: 30000, heartbeat_interval_ms: 3000, rebalance_timeout_ms: 300000, client_rack: use1-az1 }');
    assert.doesNotThrow(() => parsePipeline(fine, 'pipelines/test.yaml', { env: {} }));
  });

  it('24. continuous verification without offset syncs to find the copies by, or with a budget that is not a positive whole number', () => {
    expectIssue(withFlowLines('    offset_syncs: { enabled: false }', '    checkpoints: { enabled: false }', '    verify: { enabled: true }'), {
      path: 'flows[0].verify.enabled',
      message: /finds a window's copy on the target through the offset syncs, which this flow does not write/,
      line: 11,
      hint: /set offset_syncs\.enabled: true .* or remove verify\.enabled/,
    });
    expectIssue(withFlowLines('    verify: { enabled: true, records_per_interval: 0 }'), { path: 'flows[0].verify.records_per_interval', message: /./ });
    expectIssue(withFlowLines('    verify: { enabled: true, interval_ms: 1.5 }'), { path: 'flows[0].verify.interval_ms', message: /./ });
    expectIssue(withFlowLines('    verify: { enabled: true, budget: 5 }'), {
      path: 'flows[0].verify.budget',
      message: /unknown key/,
      hint: /enabled, interval_ms, records_per_interval/,
    });
    const preserved = withFlowLines(
      '    offsets: preserve',
      '    offset_syncs: { enabled: false }',
      '    checkpoints: { enabled: false }',
      '    verify: { enabled: true }',
    );
    assert.doesNotThrow(() => parsePipeline(preserved, 'pipelines/test.yaml', { env: {} }), 'offsets: preserve places windows offset for offset');
  });

  it('reports every problem of a file at once, in file order', () => {
    const text = [
      'clusters:',
      '  primary: { bootstrap_servers: "h:1" }',
      '  backup: { bootstrap_servers: "h:2", client_idd: x }',
      'flows:',
      '  - source: primary',
      '    target: backkup',
      '    batching: { max_records: -1 }',
      '    topics: ["[x"]',
      'logging: { level: verbose }',
    ].join('\n');
    const issues = issuesOf(text, { set: ['flows.0.enabled=maybe'] });
    assert.deepEqual(
      issues.map((i) => [i.line, i.path]),
      [
        [3, 'clusters.backup.client_idd'],
        [6, 'flows[0].target'],
        [7, 'flows[0].batching.max_records'],
        [8, 'flows[0].topics[0]'],
        [9, 'logging.level'],
        [undefined, 'flows[0].enabled'],
      ],
    );
  });
});
