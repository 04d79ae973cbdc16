/**
 * Every key of an mm2.properties file is looked at once, where it is written (top level,
 * `A.` cluster prefix, `A->B.` flow prefix), and ends up in one of four places: read with MM2's
 * meaning (mapped later), accepted without effect (a warning where a user would expect one),
 * refused with the reason (Java code, not supported yet), or unknown (with a did-you-mean).
 * Keys that MM2 itself drops without a word, such as a top-level `consumer.isolation.level`, get a
 * warning saying so: the file behaves as under MM2, and the user learns why.
 */
import { didYouMean } from '../../plugins';
import { suggestKey } from './suggest-key';
import { CLIENT_ROLES, CONNECTION_KEYS, clientKeyUse, isConnectionKey, isSharedClientKey, knownClientKeys, rolesOf, type ClientRole } from './mm2-client-keys';
import type { Mm2Property } from './mm2-document';
import { MM2_KEYS, WORKER_TOP_LEVEL_PREFIXES, isConnectorKey, mm2Key, type Mm2Support } from './mm2-keys';
import type { Mm2Values } from './mm2-values';

const CONVERTER_PREFIXES = ['key.converter.', 'value.converter.', 'header.converter.'];
/** A Connect transform's or predicate's own setting, `transforms.<alias>.<key>` / `predicates.<alias>.<key>`. */
const SMT_KEY = /^(transforms|predicates)\.[^.]+\../;

/** Where a key was written. */
export type KeyScope =
  { readonly kind: 'top' } | { readonly kind: 'cluster'; readonly alias: string } | { readonly kind: 'flow'; readonly source: string; readonly target: string };

export interface KeyCheckContext {
  readonly clusters: readonly string[];
  readonly values: Mm2Values;
}

/** Splits `A->B.rest` / `A.rest` / `rest` by the declared aliases. */
export function scopeOf(
  key: string,
  clusters: readonly string[],
): { scope: KeyScope; rest: string } | { flowKey: { source: string; target: string; rest: string } } {
  const arrow = key.indexOf('->');
  if (arrow >= 0) {
    const source = key.slice(0, arrow);
    const afterArrow = key.slice(arrow + 2);
    const dot = afterArrow.indexOf('.');
    const target = dot < 0 ? afterArrow : afterArrow.slice(0, dot);
    const rest = dot < 0 ? '' : afterArrow.slice(dot + 1);
    if (clusters.includes(source) && clusters.includes(target) && source !== target && rest !== '') {
      return { scope: { kind: 'flow', source, target }, rest };
    }
    return { flowKey: { source, target, rest } };
  }
  for (const alias of clusters) {
    if (key.startsWith(`${alias}.`)) return { scope: { kind: 'cluster', alias }, rest: key.slice(alias.length + 1) };
  }
  return { scope: { kind: 'top' }, rest: key };
}

export function checkKey(prop: Mm2Property, context: KeyCheckContext): void {
  const { values, clusters } = context;
  if (prop.key === 'clusters' || prop.key === 'config.providers' || prop.key.startsWith('config.providers.')) return;
  const split = scopeOf(prop.key, clusters);
  if ('flowKey' in split) {
    checkBadFlowKey(prop, split.flowKey, context);
    return;
  }
  const { scope, rest } = split;
  switch (scope.kind) {
    case 'top':
      return checkTopLevel(prop, rest, context);
    case 'cluster':
      return checkClusterKey(prop, scope.alias, rest, values);
    case 'flow':
      return checkFlowKey(prop, scope, rest, values);
  }
}

function checkBadFlowKey(prop: Mm2Property, flow: { source: string; target: string; rest: string }, context: KeyCheckContext): void {
  const { values, clusters } = context;
  for (const alias of [flow.source, flow.target]) {
    if (alias !== '' && !clusters.includes(alias)) {
      const suggestion = alias.length >= 3 ? didYouMean(alias, clusters) : undefined;
      values.unknown(
        prop,
        `names cluster "${alias}", which is not in clusters`,
        suggestion === undefined ? `clusters: ${clusters.join(', ') || 'none'}; MM2 would silently ignore this key` : `did you mean "${suggestion}"?`,
      );
      return;
    }
  }
  if (flow.source === flow.target && flow.source !== '') {
    values.report(prop, `is a flow from a cluster to itself`, 'a flow copies between two different clusters', false);
    return;
  }
  values.unknown(prop, `is not a flow setting`, 'flow settings are written <source>-><target>.<key>, e.g. primary->backup.topics');
}

function checkTopLevel(prop: Mm2Property, key: string, context: KeyCheckContext): void {
  const { values, clusters } = context;
  const spec = mm2Key(key);
  if (spec !== undefined) {
    if (spec.group === 'worker' && !WORKER_TOP_LEVEL_PREFIXES.some((prefix) => key.startsWith(prefix))) {
      values.warn(prop, `has no effect at the top level: MM2 reads it only per target cluster`, `write it as <cluster>.${key}`);
      return;
    }
    if (key === 'use.defaults.from') {
      values.warn(prop, `has no effect at the top level: MM2 drops it there`, `write it per flow, as <source>-><target>.${key}`);
      return;
    }
    checkSupport(prop, spec.support, values);
    return;
  }
  if (CONVERTER_PREFIXES.some((prefix) => key.startsWith(prefix))) return; // settings of ByteArrayConverter, which has none that matter
  if (SMT_KEY.test(key)) {
    values.warn(
      prop,
      `has no effect at the top level: MM2 hands a flow only the keys its connectors define, and drops this one`,
      `write it per flow, as <source>-><target>.${key}`,
    );
    return;
  }
  if (key.startsWith('replication.policy.')) {
    values.unknown(
      prop,
      'unknown replication policy setting',
      'the built-in policies read replication.policy.class, .separator and .internal.topic.separator.enabled',
    );
    return;
  }
  if (isSharedClientKey(key)) {
    checkClientSupport(prop, key, undefined, values);
    return;
  }
  if (isConnectionKey(key)) {
    values.warn(
      prop,
      `has no effect at the top level: MM2 passes only bootstrap.servers, security.protocol, ssl.* and sasl.* on to the clusters`,
      `write it per cluster, as <cluster>.${key}`,
    );
    return;
  }
  const role = CLIENT_ROLES.find((r) => key.startsWith(`${r}.`));
  if (role !== undefined) {
    values.warn(
      prop,
      `has no effect at the top level: MM2 drops client settings there`,
      `write it per cluster (<cluster>.${key}) or per flow (<source>-><target>.${key})`,
    );
    return;
  }
  const firstSegment = key.split('.')[0] ?? key;
  if (key.includes('.') && /^(bootstrap|security|ssl|sasl|consumer|producer|admin)\b/.test(key.slice(firstSegment.length + 1))) {
    const suggestion = suggestKey(key, everyKey(clusters));
    values.unknown(
      prop,
      `is set for cluster "${firstSegment}", which is not in clusters`,
      suggestion === undefined ? `clusters: ${clusters.join(', ') || 'none'}` : `did you mean "${suggestion}"?`,
    );
    return;
  }
  unknownKey(prop, key, everyKey(clusters), values);
}

function checkClusterKey(prop: Mm2Property, alias: string, key: string, values: Mm2Values): void {
  const role = CLIENT_ROLES.find((r) => key.startsWith(`${r}.`));
  if (role !== undefined) {
    checkClientSupport(prop, key.slice(role.length + 1), role, values);
    return;
  }
  if (isConnectionKey(key) || isSharedClientKey(key)) {
    checkClientSupport(prop, key, undefined, values);
    return;
  }
  const spec = mm2Key(key);
  if (spec?.group === 'worker' || key === 'forwarding.admin.class') {
    checkSupport(prop, spec!.support, values);
    return;
  }
  if (spec !== undefined && isConnectorKey(key)) {
    values.report(
      prop,
      `has no effect: settings under a cluster prefix configure its connections, not flows`,
      `write it per flow, as ${alias}-><target>.${key} or <source>->${alias}.${key}, or at the top level for every flow`,
      false,
    );
    return;
  }
  const roles = rolesOf(key);
  if (roles.length > 0) {
    values.report(
      prop,
      `has no effect: MM2 hands only connection settings from a cluster prefix to its clients`,
      `write it for the client: ${roles.map((r) => `${alias}.${r}.${key}`).join(' or ')}`,
      false,
    );
    return;
  }
  const workerKeys = MM2_KEYS.filter((s) => s.group === 'worker').map((s) => s.key);
  unknownKey(prop, key, [...knownClientKeys(undefined), ...workerKeys, ...CLIENT_ROLES.flatMap((r) => knownClientKeys(r).map((k) => `${r}.${k}`))], values);
}

function checkFlowKey(prop: Mm2Property, flow: { source: string; target: string }, key: string, values: Mm2Values): void {
  if (SMT_KEY.test(key)) return; // read, and checked, with the flow's transforms (mm2-transform-mapping.ts)
  const spec = mm2Key(key);
  if (spec !== undefined && (isConnectorKey(key) || key === 'use.defaults.from')) {
    checkSupport(prop, spec.support, values);
    return;
  }
  // Connect's per-connector client overrides: the producer's reach the producer that writes the
  // flow's records; MM2's connectors are source connectors, whose consumer Connect does not make.
  const override = /^(consumer|producer|admin)\.override\.(.+)$/.exec(key);
  if (override !== null) {
    if (override[1] === 'producer') checkClientSupport(prop, override[2]!, 'producer', values);
    else
      values.warn(
        prop,
        `has no effect, as in MM2: Connect applies ${override[1]}.override.* to sink connectors and exactly-once admin clients, and MM2's replication ${override[1]} reads ${override[1]}.*`,
        `write it as ${flow.source}->${flow.target}.${override[1]}.${override[2]!}`,
      );
    return;
  }
  // consumer.x, producer.x, admin.x and source.consumer.x … target.admin.x
  const clientMatch = /^(?:(source|target)\.)?(consumer|producer|admin)\.(.+)$/.exec(key);
  if (clientMatch !== null) {
    const role = clientMatch[2] as ClientRole;
    const setting = clientMatch[3]!;
    if (isConnectionKey(setting) || isSharedClientKey(setting)) {
      values.report(
        prop,
        `connection settings per flow are not supported yet`,
        `set it on the cluster, as ${clientMatch[1] === 'target' ? flow.target : flow.source}.${/^(sasl|ssl)\./.test(setting) ? `${role}.` : ''}${setting}`,
        false,
      );
      return;
    }
    checkClientSupport(prop, setting, role, values);
    return;
  }
  if (/^(source|target)\.cluster\./.test(key)) {
    values.report(prop, `cluster settings per flow are not supported yet`, 'set them on the cluster prefix', false);
    return;
  }
  if (spec !== undefined) {
    values.report(
      prop,
      `has no effect: ${key} is not a flow setting`,
      spec.group === 'worker' ? `write it per target cluster, as ${flow.target}.${key}` : 'write it at the top level',
      false,
    );
    return;
  }
  unknownKey(
    prop,
    key,
    MM2_KEYS.filter((s) => isConnectorKey(s.key)).map((s) => s.key),
    values,
  );
}

function checkClientSupport(prop: Mm2Property, key: string, role: ClientRole | undefined, values: Mm2Values): void {
  const use = clientKeyUse(key, role);
  switch (use.kind) {
    case 'connection':
    case 'flow':
      return;
    case 'support':
      checkSupport(prop, use.support, values);
      return;
    case 'unknown':
      unknownKey(prop, key, use.candidates, values, role === undefined ? 'Kafka client setting' : `${role} setting`);
  }
}

export function checkSupport(prop: Mm2Property, support: Mm2Support, values: Mm2Values): void {
  switch (support.kind) {
    case 'mapped':
      return;
    case 'alias':
      // Read in place of its key where a flow's value is chosen (mm2-flow-mapping.ts), as MM2 3.x does.
      values.warn(
        prop,
        `is MM2's name for ${support.of} before ${support.since}: read as ${support.of}, as MM2 3.x reads it (${support.of} wins where both are set)`,
        `rename it ${renamed(prop.key, support.of)}: Kafka 4.0 no longer reads the old name`,
      );
      return;
    case 'no-effect':
      if (support.warn) values.warn(prop, `has no effect in mirrorflow: ${support.why}`);
      return;
    case 'java':
    case 'unsupported': {
      if (!values.isOpaque(prop) && support.accepts.includes(prop.value.trim())) return;
      const accepted = support.accepts.filter((a) => a !== '');
      const hint = accepted.length === 0 ? undefined : `mirrorflow does what ${accepted.join(' or ')} does; set that or leave the key out`;
      values.report(
        prop,
        support.kind === 'java' ? `names Java code, which mirrorflow cannot run: ${support.why}` : `is not supported yet: ${support.why}`,
        hint,
      );
      return;
    }
  }
}

/** `primary->backup.topics.blacklist` renamed for `topics.exclude`: `primary->backup.topics.exclude`. */
function renamed(written: string, of: string): string {
  for (const old of MM2_KEYS.filter((s) => s.support.kind === 'alias').map((s) => s.key)) {
    if (written === old || written.endsWith(`.${old}`)) return `${written.slice(0, written.length - old.length)}${of}`;
  }
  return of;
}

function unknownKey(prop: Mm2Property, key: string, candidates: readonly string[], values: Mm2Values, what = 'MM2 setting'): void {
  const suggestion = suggestKey(key, candidates);
  values.unknown(
    prop,
    `unknown ${what}`,
    suggestion === undefined ? undefined : `did you mean "${prop.key.slice(0, prop.key.length - key.length)}${suggestion}"?`,
  );
}

/** Every key a file with these clusters may hold at the top level, for suggestions: MM2's, and each cluster's and flow's. */
function everyKey(clusters: readonly string[]): string[] {
  const clusterKeys = [...CONNECTION_KEYS, ...MM2_KEYS.filter((s) => s.group === 'worker').map((s) => s.key)];
  const flowKeys = MM2_KEYS.filter((s) => isConnectorKey(s.key)).map((s) => s.key);
  return [
    ...MM2_KEYS.map((s) => s.key),
    ...knownClientKeys(undefined),
    ...clusters.flatMap((alias) => clusterKeys.map((k) => `${alias}.${k}`)),
    ...clusters.flatMap((source) => clusters.filter((t) => t !== source).flatMap((target) => flowKeys.map((k) => `${source}->${target}.${k}`))),
  ];
}
