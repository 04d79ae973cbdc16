/**
 * Rules that span several keys: flows name declared clusters, a flow never copies a cluster onto
 * itself and is written once, `sasl`/`ssl` blocks match the protocol, topic regexes work. They run
 * on unvalidated data, next to the schema check, so that one run reports everything; where the
 * shape is wrong they stay quiet and leave that to the schema.
 */
import { didYouMean, isRegistryConverterName } from '../../plugins';
import { formatPath, isPlainObject, type ConfigPath, type PathSegment } from '../config-path';
import { regexListProblems } from './check-topic-pattern';
import { mskIamRegion } from '../msk-iam-region';
import { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SESSION_TIMEOUT_MS } from '../schema/consumer';

export interface SemanticReporter {
  report(path: PathSegment[], message: string, hint?: string): void;
  /** Whether the value at `path` came from outside the file (`${…}`, `--set`) and so must not be quoted. */
  isSensitive(path: ConfigPath): boolean;
}

/** `data` is the document after interpolation, `--set` and `flow_defaults` merging. */
export function checkPipelineSemantics(data: unknown, reporter: SemanticReporter): void {
  if (!isPlainObject(data)) return;
  const clusters = isPlainObject(data['clusters']) ? data['clusters'] : undefined;
  if (clusters !== undefined) {
    if (Object.keys(clusters).length < 2) {
      reporter.report(['clusters'], 'declare at least two clusters', 'a flow copies topics from one cluster to another');
    }
    for (const [alias, cluster] of Object.entries(clusters)) {
      if (isPlainObject(cluster) && isPlainObject(cluster['security'])) {
        checkSecurity(['clusters', alias, 'security'], cluster['security'], bootstrapList(cluster['bootstrap_servers']), reporter);
      }
    }
  }
  if (isPlainObject(data['flow_defaults'])) checkPatterns(['flow_defaults'], data['flow_defaults'], reporter);
  if (Array.isArray(data['flows'])) checkFlows(data['flows'], clusters, reporter);
}

/** The bootstrap servers as written (a list, or one comma-separated string); the schema judges their shape. */
function bootstrapList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(',').map((s) => s.trim());
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
}

function checkSecurity(path: PathSegment[], security: Record<string, unknown>, bootstrap: readonly string[], reporter: SemanticReporter): void {
  const written = security['protocol'];
  // An invalid protocol is the schema's to report; judging sasl/ssl against it would only add noise.
  if (written !== undefined && typeof written !== 'string') return;
  const protocol = (written ?? 'plaintext').toLowerCase();
  if (!['plaintext', 'ssl', 'sasl_plaintext', 'sasl_ssl'].includes(protocol)) return;
  const usesSasl = protocol.startsWith('sasl_');
  const usesSsl = protocol === 'ssl' || protocol === 'sasl_ssl';
  const protocolNote = written === undefined ? ' (protocol defaults to plaintext)' : '';

  if (usesSasl && security['sasl'] === undefined) {
    reporter.report([...path, 'sasl'], 'a SASL protocol needs a "sasl" block', 'add sasl: { mechanism, username, password }');
  }
  if (!usesSasl && security['sasl'] !== undefined) {
    reporter.report([...path, 'sasl'], `"sasl" is set but the protocol is not SASL${protocolNote}`, 'set protocol: sasl_ssl or sasl_plaintext, or remove sasl');
  }
  if (!usesSsl && security['ssl'] !== undefined) {
    reporter.report([...path, 'ssl'], `"ssl" is set but the protocol does not use TLS${protocolNote}`, 'set protocol: ssl or sasl_ssl, or remove ssl');
  }
  if (usesSasl && isPlainObject(security['sasl'])) checkSasl([...path, 'sasl'], security['sasl'], bootstrap, reporter);
  const ssl = security['ssl'];
  if (isPlainObject(ssl)) checkClientCertificate(ssl, [...path, 'ssl'], reporter);
  const roles = security['roles'];
  if (!isPlainObject(roles)) return;
  // A role's blocks stand instead of the cluster's, under the cluster's protocol.
  for (const [role, own] of Object.entries(roles)) {
    if (!isPlainObject(own)) continue;
    const rolePath = [...path, 'roles', role];
    if (!usesSasl && own['sasl'] !== undefined) {
      reporter.report(
        [...rolePath, 'sasl'],
        `"sasl" is set but the protocol is not SASL${protocolNote}`,
        'set protocol: sasl_ssl or sasl_plaintext, or remove sasl',
      );
    }
    if (!usesSsl && own['ssl'] !== undefined) {
      reporter.report([...rolePath, 'ssl'], `"ssl" is set but the protocol does not use TLS${protocolNote}`, 'set protocol: ssl or sasl_ssl, or remove ssl');
    }
    if (usesSasl && isPlainObject(own['sasl'])) checkSasl([...rolePath, 'sasl'], own['sasl'], bootstrap, reporter);
    if (isPlainObject(own['ssl'])) checkClientCertificate(own['ssl'], [...rolePath, 'ssl'], reporter);
  }
}

/** A client certificate comes with its key, each from a file or inline, not both, or both from a keystore; a store's password with its store. */
function checkClientCertificate(ssl: Record<string, unknown>, path: PathSegment[], reporter: SemanticReporter): void {
  const has = (key: string): boolean => ssl[key] !== undefined;
  for (const [file, inline] of [
    ['cert_file', 'cert'],
    ['key_file', 'key'],
  ] as const) {
    if (has(file) && has(inline)) reporter.report([...path, inline], `"${file}" and "${inline}" are both set`, `keep one of them`);
  }
  if (has('truststore_password') && !has('truststore_file')) {
    reporter.report([...path, 'truststore_password'], '"truststore_password" is set without "truststore_file"', 'set truststore_file, or remove it');
  }
  if (has('keystore_file')) {
    for (const other of ['cert_file', 'cert', 'key_file', 'key']) {
      if (has(other))
        reporter.report([...path, other], `"keystore_file" and "${other}" are both set`, 'the keystore holds the client certificate and key; keep one of them');
    }
    if (!has('keystore_password'))
      reporter.report([...path, 'keystore_password'], 'missing "keystore_password": a keystore is read with its password', 'MM2: ssl.keystore.password');
    return;
  }
  if (has('keystore_password'))
    reporter.report([...path, 'keystore_password'], '"keystore_password" is set without "keystore_file"', 'set keystore_file, or remove it');
  const hasCert = has('cert_file') || has('cert');
  const hasKey = has('key_file') || has('key');
  if (hasCert !== hasKey) {
    const missing = hasCert ? (has('cert') ? 'key' : 'key_file') : has('key') ? 'cert' : 'cert_file';
    reporter.report(
      [...path, missing],
      `missing "${missing}": a client certificate and its key go together`,
      'mutual TLS needs both; for server verification alone, ca_file is enough',
    );
  }
}

const MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer', 'aws_msk_iam', 'gssapi'];
const AWS_KEYS = ['region', 'profile', 'role_arn', 'role_session_name'];

/**
 * OAUTHBEARER takes an `oauth` block, AWS MSK IAM its AWS keys and a region it can find, GSSAPI a
 * `kerberos` block, the other mechanisms a user and password; none takes another's keys.
 */
function checkSasl(path: PathSegment[], sasl: Record<string, unknown>, bootstrap: readonly string[], reporter: SemanticReporter): void {
  const written = sasl['mechanism'];
  // A missing or unknown mechanism is the schema's to report.
  if (typeof written !== 'string' || !MECHANISMS.includes(written.toLowerCase())) return;
  const mechanism = written.toLowerCase();
  const notUsed = (keys: readonly string[], hint: string): void => {
    for (const key of keys) if (sasl[key] !== undefined) reporter.report([...path, key], `"${key}" is not used with mechanism ${mechanism}`, hint);
  };
  if (sasl['kerberos'] !== undefined && mechanism !== 'gssapi')
    reporter.report([...path, 'kerberos'], `"kerberos" is used with mechanism gssapi only`, 'remove it, or set mechanism: gssapi');
  if (mechanism === 'gssapi') {
    if (sasl['kerberos'] === undefined) {
      reporter.report([...path, 'kerberos'], 'mechanism gssapi needs a "kerberos" block', 'add kerberos: { service_name: kafka, principal, keytab }');
    }
    notUsed(['username', 'password', 'oauth', ...AWS_KEYS], 'Kerberos logs in with a principal and a keytab (or the ticket cache), in kerberos');
    return;
  }
  if (mechanism === 'oauthbearer') {
    if (sasl['oauth'] === undefined) {
      reporter.report([...path, 'oauth'], 'mechanism oauthbearer needs an "oauth" block', 'add oauth: { token_endpoint_url, client_id, client_secret }');
    }
    notUsed(['username', 'password'], 'the client id and secret go in oauth');
    notUsed(AWS_KEYS, 'AWS keys go with mechanism aws_msk_iam');
    return;
  }
  if (mechanism === 'aws_msk_iam') {
    notUsed(['username', 'password', 'oauth'], 'AWS MSK IAM signs with AWS credentials: a profile, a role, or the default chain');
    checkMskIam(path, sasl, bootstrap, reporter);
    return;
  }
  for (const key of ['username', 'password']) {
    if (sasl[key] === undefined) reporter.report([...path, key], `mechanism ${mechanism} needs a "${key}"`);
  }
  if (sasl['oauth'] !== undefined)
    reporter.report([...path, 'oauth'], `"oauth" is used with mechanism oauthbearer only`, 'remove it, or set mechanism: oauthbearer');
  notUsed(AWS_KEYS, 'AWS keys go with mechanism aws_msk_iam');
}

function checkMskIam(path: PathSegment[], sasl: Record<string, unknown>, bootstrap: readonly string[], reporter: SemanticReporter): void {
  if (sasl['profile'] !== undefined && sasl['role_arn'] !== undefined) {
    reporter.report(
      [...path, 'role_arn'],
      '"profile" and "role_arn" are both set',
      'keep one: a profile can itself assume a role (role_arn and source_profile in ~/.aws/config)',
    );
  }
  if (sasl['role_session_name'] !== undefined && sasl['role_arn'] === undefined) {
    reporter.report([...path, 'role_session_name'], '"role_session_name" is used with "role_arn" only');
  }
  // A region written wrong is the schema's to report.
  if (sasl['region'] === undefined && mskIamRegion(undefined, bootstrap) === undefined) {
    reporter.report(
      [...path, 'region'],
      'mechanism aws_msk_iam needs an AWS region: none is set, the bootstrap servers do not name one (b-1.<cluster>.kafka.<region>.amazonaws.com), and AWS_REGION is not set',
      "add region: eu-west-1 (the MSK cluster's region)",
    );
  }
}

function checkFlows(flows: unknown[], clusters: Record<string, unknown> | undefined, reporter: SemanticReporter): void {
  const aliases = clusters === undefined ? undefined : Object.keys(clusters);
  const seen = new Map<string, number>();
  flows.forEach((flow, index) => {
    if (!isPlainObject(flow)) return;
    const path: PathSegment[] = ['flows', index];
    const source = flow['source'];
    const target = flow['target'];
    for (const [key, alias] of [
      ['source', source],
      ['target', target],
    ] as const) {
      if (typeof alias !== 'string' || alias === '' || aliases === undefined || aliases.includes(alias)) continue;
      const shown = reporter.isSensitive([...path, key]) ? '' : ` "${alias}"`;
      // One-letter aliases are all one edit apart; a suggestion there would be a guess.
      const suggestion = alias.length >= 3 ? didYouMean(alias, aliases) : undefined;
      reporter.report(
        [...path, key],
        `unknown cluster${shown}`,
        suggestion === undefined ? `declared clusters: ${aliases.join(', ') || 'none'}` : `did you mean "${suggestion}"?`,
      );
    }
    if (typeof source === 'string' && typeof target === 'string') {
      if (source === target) {
        reporter.report([...path, 'target'], 'target is the same cluster as source', 'a flow copies between two different clusters');
      } else {
        const key = JSON.stringify([source, target]);
        const first = seen.get(key);
        if (first === undefined) seen.set(key, index);
        else reporter.report(path, `same source and target as ${formatPath(['flows', first])}`, 'write each direction once; merge the two flows');
      }
    }
    checkPatterns(path, flow, reporter);
    checkErrors(path, flow, reporter);
    checkRegistryConverters(path, flow, reporter);
    checkDelivery(path, flow, reporter);
    checkPreservedOffsets(path, flow, reporter);
    checkGroupTimings(path, flow, reporter);
    checkVerify(path, flow, reporter);
  });
}

/**
 * Continuous verification finds where a window's copy begins on the target through the flow's
 * offset syncs, or at the same offset where offsets are preserved: without either it could not
 * place a single window.
 */
function checkVerify(path: PathSegment[], flow: Record<string, unknown>, reporter: SemanticReporter): void {
  const verify = flow['verify'];
  if (!isPlainObject(verify) || verify['enabled'] !== true || flow['enabled'] === false) return;
  const offsetSyncs = isPlainObject(flow['offset_syncs']) ? flow['offset_syncs'] : {};
  if (offsetSyncs['enabled'] !== false || flow['offsets'] === 'preserve') return;
  reporter.report(
    [...path, 'verify', 'enabled'],
    "continuous verification finds a window's copy on the target through the offset syncs, which this flow does not write (offset_syncs.enabled: false)",
    'set offset_syncs.enabled: true (MM2: emit.offset-syncs.enabled), use offsets: preserve, or remove verify.enabled; `mirrorflow verify` still works without them',
  );
}

/**
 * A member that heartbeats no more often than its session lasts drops out of its group between
 * two heartbeats (Kafka's Java consumer refuses to start so). Kafka recommends a third of the
 * session at most; `convert` and the MM2 mapping warn about that, and the source logs it.
 */
function checkGroupTimings(path: PathSegment[], flow: Record<string, unknown>, reporter: SemanticReporter): void {
  const consumer = flow['consumer'];
  if (!isPlainObject(consumer)) return;
  const session = consumer['session_timeout_ms'] ?? DEFAULT_SESSION_TIMEOUT_MS;
  const heartbeat = consumer['heartbeat_interval_ms'] ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  // Values out of range are the schema's to report.
  if (typeof session !== 'number' || typeof heartbeat !== 'number' || session < 1 || heartbeat < 1 || heartbeat < session) return;
  const at = consumer['heartbeat_interval_ms'] === undefined ? 'session_timeout_ms' : 'heartbeat_interval_ms';
  reporter.report(
    [...path, 'consumer', at],
    `the heartbeat interval (${heartbeat} ms) must be below the session timeout (${session} ms): a process would leave its group between two heartbeats`,
    `Kafka recommends at most a third of the session: heartbeat_interval_ms ${Math.floor(session / 3)} or less`,
  );
}

/** Built-in transforms that return every record they are given (headers changed only). */
const KEEPS_EVERY_RECORD: ReadonlySet<string> = new Set(['drop_headers', 'insert_header']);

/**
 * `offsets: preserve` holds only while every source record lands on the target once, in order,
 * from the first offset on: a transform that may drop or move a record, a start at the end, or a
 * producer that may append a resent batch twice would break it for every partition.
 */
function checkPreservedOffsets(path: PathSegment[], flow: Record<string, unknown>, reporter: SemanticReporter): void {
  if (flow['offsets'] !== 'preserve' || flow['enabled'] === false) return;
  const hint = 'or use offsets: translate (the default), which translates consumer offsets through offset syncs';
  if (flow['start'] === 'latest')
    reporter.report([...path, 'start'], 'offsets: preserve copies each partition from its log start, not from its end', `set start: earliest, ${hint}`);
  if (flow['delivery'] === 'exactly_once')
    reporter.report(
      [...path, 'offsets'],
      "offsets: preserve cannot be combined with delivery: exactly_once: each committed transaction puts a marker of the target's own into the partition, which takes an offset the source does not have",
      `use delivery: at_least_once (on a preserved partition a record copied twice cannot pass unnoticed: every acknowledgement is checked against the source offset), ${hint}`,
    );
  const provenance = flow['provenance'];
  if (isPlainObject(provenance) && provenance['enabled'] === true)
    reporter.report(
      [...path, 'provenance', 'enabled'],
      'offsets: preserve cannot be combined with provenance headers: a record a header keeps from the target (a loop, a second copy) leaves an offset the target does not have',
      `remove provenance.enabled, ${hint}`,
    );
  const producer = flow['producer'];
  if (isPlainObject(producer) && producer['idempotent'] === false)
    reporter.report(
      [...path, 'producer', 'idempotent'],
      'offsets: preserve needs the idempotent producer: without it a batch sent again after a lost answer is appended twice',
      `set producer.idempotent: true, ${hint}`,
    );
  const transforms = flow['transforms'];
  if (!Array.isArray(transforms)) return;
  transforms.forEach((step, index) => {
    const type = isPlainObject(step) ? step['type'] : undefined;
    if (typeof type !== 'string' || KEEPS_EVERY_RECORD.has(type)) return;
    reporter.report(
      [...path, 'transforms', index, 'type'],
      `transform "${type}" may drop records or send them to another topic, so target offsets could not match the source's under offsets: preserve`,
      `only ${[...KEEPS_EVERY_RECORD].join(' and ')} keep every record; remove the transform, ${hint}`,
    );
  });
}

/** Exactly-once writes transactionally (which is idempotent) and must not copy what the source's own transactions aborted. */
function checkDelivery(path: PathSegment[], flow: Record<string, unknown>, reporter: SemanticReporter): void {
  if (flow['delivery'] !== 'exactly_once') return;
  const producer = isPlainObject(flow['producer']) ? flow['producer'] : {};
  const consumer = isPlainObject(flow['consumer']) ? flow['consumer'] : {};
  if (producer['idempotent'] === false) {
    reporter.report(
      [...path, 'producer', 'idempotent'],
      'delivery exactly_once writes with transactional producers, which are idempotent',
      'remove producer.idempotent: false, or use delivery: at_least_once (MM2: producer.enable.idempotence=false contradicts exactly.once.source.support=enabled)',
    );
  }
  if (consumer['isolation_level'] === 'read_uncommitted') {
    reporter.report(
      [...path, 'consumer', 'isolation_level'],
      'delivery exactly_once reads the source read_committed: records of aborted source transactions must not be copied',
      'remove consumer.isolation_level: read_uncommitted (MM2: consumer.isolation.level), or use delivery: at_least_once',
    );
  }
}

/**
 * `tolerance: all` without a dead-letter topic would skip failing records silently, as Connect
 * does; mirrorflow never drops a record without keeping it somewhere, so it needs the topic.
 */
function checkErrors(path: PathSegment[], flow: Record<string, unknown>, reporter: SemanticReporter): void {
  const errors = flow['errors'];
  // A flow that is not enabled replicates nothing (heartbeats only): nothing can fail there.
  if (!isPlainObject(errors) || errors['tolerance'] !== 'all' || flow['enabled'] === false) return;
  const dlq = errors['deadletterqueue'];
  if (isPlainObject(dlq) && dlq['topic_name'] !== undefined) return;
  reporter.report(
    [...path, 'errors', 'tolerance'],
    '"all" needs a dead-letter topic: records that fail would otherwise be skipped without a trace',
    'set errors.deadletterqueue.topic_name (MM2: errors.deadletterqueue.topic.name), or tolerance: none to stop at the first failing record',
  );
}

/** A registry converter (`avro`, …) reads writer schemas from the flow's source registry and registers what it writes in the target's. */
function checkRegistryConverters(path: PathSegment[], flow: Record<string, unknown>, reporter: SemanticReporter): void {
  const converter = flow['converter'];
  if (!isPlainObject(converter)) return;
  const registry = flow['schema_registry'];
  const on = isPlainObject(registry) ? (Array.isArray(registry['on']) ? registry['on'] : registry['on'] === undefined ? ['value'] : undefined) : undefined;
  for (const side of ['key', 'value'] as const) {
    const name = converter[side];
    if (typeof name !== 'string' || !isRegistryConverterName(name)) continue;
    if (!isPlainObject(registry)) {
      reporter.report(
        [...path, 'converter', side],
        `the ${name} converter needs the flow's schema_registry: it reads writer schemas from the source registry and registers what it writes in the target's`,
        `set ${formatPath([...path, 'schema_registry'])} with source.url and target.url (they may be the same registry); in mm2.properties, ${side}.converter.schema.registry.url`,
      );
    } else if (on !== undefined && !on.includes(side)) {
      reporter.report(
        [...path, 'schema_registry', 'on'],
        `the ${side} is read by the ${name} converter, so its schema ids must be moved too: ${side} is missing here`,
        `add ${side} to ${formatPath([...path, 'schema_registry', 'on'])}`,
      );
    }
  }
}

function checkPatterns(path: PathSegment[], flow: Record<string, unknown>, reporter: SemanticReporter): void {
  const lists: [PathSegment[], unknown][] = [
    [['topics'], flow['topics']],
    [['topics_exclude'], flow['topics_exclude']],
    [['topic_sync', 'configs_exclude'], isPlainObject(flow['topic_sync']) ? flow['topic_sync']['configs_exclude'] : undefined],
    // The group filter compiles these when the flow is built; a bad one would stop `run`, not `validate`.
    [['checkpoints', 'groups'], isPlainObject(flow['checkpoints']) ? flow['checkpoints']['groups'] : undefined],
    [['checkpoints', 'groups_exclude'], isPlainObject(flow['checkpoints']) ? flow['checkpoints']['groups_exclude'] : undefined],
  ];
  for (const [relative, list] of lists) {
    // Non-strings are the schema's to report; the policy compiles strings only.
    if (!Array.isArray(list) || !list.every((pattern) => typeof pattern === 'string')) continue;
    const at = (index: number): PathSegment[] => [...path, ...relative, index];
    for (const problem of regexListProblems(list as string[], (index) => !reporter.isSensitive(at(index)))) {
      reporter.report(at(problem.index), problem.message);
    }
  }
}
