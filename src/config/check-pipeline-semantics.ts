/**
 * Rules that span several keys: flows name declared clusters, a flow never copies a cluster onto
 * itself and is written once, `sasl`/`ssl` blocks match the protocol, topic regexes work. They run
 * on unvalidated data, next to the schema check, so that one run reports everything; where the
 * shape is wrong they stay quiet and leave that to the schema.
 */
import { didYouMean } from '../plugins';
import { formatPath, isPlainObject, type ConfigPath, type PathSegment } from './config-path';
import { regexListProblems } from './check-topic-pattern';

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
        checkSecurity(['clusters', alias, 'security'], cluster['security'], reporter);
      }
    }
  }
  if (isPlainObject(data['flow_defaults'])) checkPatterns(['flow_defaults'], data['flow_defaults'], reporter);
  if (Array.isArray(data['flows'])) checkFlows(data['flows'], clusters, reporter);
}

function checkSecurity(path: PathSegment[], security: Record<string, unknown>, reporter: SemanticReporter): void {
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
  if (usesSasl && isPlainObject(security['sasl'])) checkSasl([...path, 'sasl'], security['sasl'], reporter);
  const ssl = security['ssl'];
  if (isPlainObject(ssl)) checkClientCertificate(ssl, [...path, 'ssl'], reporter);
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

/** OAUTHBEARER takes an `oauth` block and no user or password; the other mechanisms the reverse. */
function checkSasl(path: PathSegment[], sasl: Record<string, unknown>, reporter: SemanticReporter): void {
  const mechanism = sasl['mechanism'];
  // A missing or unknown mechanism is the schema's to report.
  if (typeof mechanism !== 'string' || !['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer'].includes(mechanism.toLowerCase())) return;
  if (mechanism.toLowerCase() === 'oauthbearer') {
    if (sasl['oauth'] === undefined) {
      reporter.report([...path, 'oauth'], 'mechanism oauthbearer needs an "oauth" block', 'add oauth: { token_endpoint_url, client_id, client_secret }');
    }
    for (const key of ['username', 'password']) {
      if (sasl[key] !== undefined) reporter.report([...path, key], `"${key}" is not used with mechanism oauthbearer`, 'the client id and secret go in oauth');
    }
    return;
  }
  for (const key of ['username', 'password']) {
    if (sasl[key] === undefined) reporter.report([...path, key], `mechanism ${mechanism.toLowerCase()} needs a "${key}"`);
  }
  if (sasl['oauth'] !== undefined)
    reporter.report([...path, 'oauth'], `"oauth" is used with mechanism oauthbearer only`, 'remove it, or set mechanism: oauthbearer');
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
  });
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

function checkPatterns(path: PathSegment[], flow: Record<string, unknown>, reporter: SemanticReporter): void {
  const lists: [PathSegment[], unknown][] = [
    [['topics'], flow['topics']],
    [['topics_exclude'], flow['topics_exclude']],
    [['topic_sync', 'configs_exclude'], isPlainObject(flow['topic_sync']) ? flow['topic_sync']['configs_exclude'] : undefined],
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
