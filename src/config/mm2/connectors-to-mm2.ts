/**
 * MM2 connector configs (see `connector-file.ts`) as the driver-file properties that mean the
 * same, so that one mapping (`mm2-to-pipeline.ts`) reads both: `source.cluster.X` becomes
 * `<source alias>.X`, `target.cluster.X` `<target alias>.X`, the connector's own keys
 * `<source>-><target>.X`; converter and config-provider keys stay top-level (they are checked
 * there). The connectors given for one source->target pair make one flow: a source connector
 * replicates, a checkpoint connector adds checkpoints, a heartbeat connector heartbeats; what no
 * connector asks for is off. A value implied by a connector (`enabled = true` for a source
 * connector, as MM2's connector defaults it) points at that file's `connector.class` line.
 * Every entry keeps its file, line and the key as written, for problems and `convert`'s comments.
 */
import type { ConfigIssue } from '../../core/errors';
import type { ConnectorFile, ConnectorRole } from './connector-file';
import type { AliasDeclaration, Mm2Entry, Mm2Property } from './mm2-document';
import { clusterAliasPattern } from '../schema/clusters';
import { mm2Key } from './mm2-keys';
import { writtenAs } from './written-as';

/** MirrorConnectorConfig's default target alias. */
const TARGET_ALIAS_DEFAULT = 'target';
const TOP_LEVEL_PREFIXES = ['config.providers', 'key.converter', 'value.converter', 'header.converter'];
const CONNECTOR_NAMES: Readonly<Record<ConnectorRole, string>> = {
  source: 'MirrorSourceConnector',
  checkpoint: 'MirrorCheckpointConnector',
  heartbeat: 'MirrorHeartbeatConnector',
};
/** Keys that only one connector reads, and which switch its part of the flow on or off. */
const OWN_SWITCHES: Readonly<Record<string, ConnectorRole>> = {
  enabled: 'source',
  'emit.checkpoints.enabled': 'checkpoint',
  'emit.heartbeats.enabled': 'heartbeat',
};

/**
 * Keys that both the source and the checkpoint connector of a flow read, each for itself, and
 * what a difference does. In Connect each connector takes its own value (MM2's default where its
 * file has none); a mirrorflow flow has one, so the two files must agree, default included: a
 * checkpoint connector with IdentityReplicationPolicy beside a source connector without it would
 * otherwise give the whole flow identity names, and copy every topic again under other names.
 * `checkpointOnly`: only a checkpoint connector's own value can change what the flow copies; a
 * narrower topic filter on the source connector is harmless, as no other topic has offset syncs.
 */
const SHARED_KEYS: Readonly<Record<string, { readonly consequence: string; readonly checkpointOnly?: boolean }>> = {
  'replication.policy.class': { consequence: 'the remote topics and the checkpoints would name topics differently' },
  'replication.policy.separator': { consequence: 'the remote topics and the checkpoints would name topics differently' },
  'replication.policy.internal.topic.separator.enabled': { consequence: 'the two would name the internal topics differently' },
  topics: { consequence: 'the flow would copy the topics the checkpoint connector names', checkpointOnly: true },
  'topics.exclude': { consequence: 'the flow would leave out the topics the checkpoint connector excludes', checkpointOnly: true },
  'offset-syncs.topic.location': { consequence: 'the checkpoints would read offset syncs where the source connector does not write them' },
};

export interface ConnectorMapping {
  readonly properties: Mm2Property[];
  readonly problems: ConfigIssue[];
  readonly warnings: ConfigIssue[];
}

interface Pair {
  readonly source: string;
  readonly target: string;
  readonly roles: Map<ConnectorRole, Mm2Entry>;
  readonly connectors: Map<ConnectorRole, ConnectorFile>;
}

const at = (entry: Mm2Entry, value = false): Pick<ConfigIssue, 'file' | 'line' | 'column' | 'path'> => ({
  file: entry.file!,
  line: value ? entry.valueLine : entry.line,
  column: value ? entry.valueColumn : entry.column,
  path: entry.key,
});

export function connectorsToMm2(connectors: readonly ConnectorFile[]): ConnectorMapping {
  const problems: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const properties: Mm2Property[] = [];
  const aliases = new Map<string, AliasDeclaration>();
  let aliasEntry: Mm2Entry | undefined;
  const pairs = new Map<string, Pair>();
  /** Synthesised key → the entry that set it, to find two files disagreeing. */
  const written = new Map<string, Mm2Entry>();

  const put = (key: string, entry: Mm2Entry): void => {
    const earlier = written.get(key);
    if (earlier !== undefined && earlier.file !== entry.file) {
      if (!sameValue(earlier.value, entry.value)) {
        problems.push({
          ...at(entry, true),
          message: `differs from ${earlier.file}:${earlier.line} (${earlier.key} = ${earlier.value.trim()})`,
          hint: 'the connectors of one flow, and of one cluster, share one value of each setting in mirrorflow',
        });
      }
      return;
    }
    written.set(key, entry);
    properties.push({ key, value: entry.value, entry });
  };

  for (const connector of connectors) {
    const { file, role, entries, classEntry } = connector;
    const last = (key: string): Mm2Entry | undefined => entries.findLast((e) => e.key === key);
    const sourceEntry = last('source.cluster.alias');
    const targetEntry = last('target.cluster.alias');
    if (sourceEntry === undefined) {
      problems.push({
        file,
        path: 'source.cluster.alias',
        message: 'missing required key',
        hint: 'name the source cluster, e.g. source.cluster.alias = primary',
      });
      continue;
    }
    const source = sourceEntry.value.trim();
    const target = targetEntry?.value.trim() ?? TARGET_ALIAS_DEFAULT;
    let ok = true;
    for (const [alias, entry] of [
      [source, sourceEntry],
      [target, targetEntry],
    ] as const) {
      if (!clusterAliasPattern.test(alias)) {
        problems.push({
          ...(entry === undefined ? { file } : at(entry, true)),
          message: `cluster alias "${alias}" may only contain letters, digits, "_" and "-"`,
          hint: 'an alias becomes part of topic names (alias.topic)',
        });
        ok = false;
      }
    }
    if (ok && source === target) {
      problems.push({
        ...at(targetEntry ?? sourceEntry, true),
        message: `source and target are both "${source}"`,
        hint: 'a flow copies between two different clusters',
      });
      ok = false;
    }
    if (!ok) continue;
    aliasEntry ??= sourceEntry;
    if (!aliases.has(source)) aliases.set(source, { entry: sourceEntry, side: 'source' });
    // An alias left to MM2's default is named by the connector itself.
    if (!aliases.has(target)) aliases.set(target, { entry: targetEntry ?? classEntry, side: 'target' });
    const pairKey = `${source}->${target}`;
    const pair = pairs.get(pairKey) ?? { source, target, roles: new Map<ConnectorRole, Mm2Entry>(), connectors: new Map<ConnectorRole, ConnectorFile>() };
    pairs.set(pairKey, pair);
    if (pair.roles.has(role)) {
      const earlier = pair.roles.get(role)!;
      problems.push({
        ...at(classEntry, true),
        message: `a second ${CONNECTOR_NAMES[role]} for ${pairKey} (the first is in ${earlier.file})`,
        hint: 'give each connector of a flow once',
      });
      continue;
    }
    pair.roles.set(role, classEntry);
    pair.connectors.set(role, connector);

    for (const entry of entries) {
      const { key } = entry;
      // Connect's name for the connector, and the aliases read above.
      if (key === 'name' || key === 'source.cluster.alias' || key === 'target.cluster.alias') continue;
      const owner = OWN_SWITCHES[key];
      if (owner !== undefined && owner !== role) {
        warnings.push({ ...at(entry), message: `has no effect in a ${CONNECTOR_NAMES[role]}: only the ${CONNECTOR_NAMES[owner]} reads it` });
        continue;
      }
      if (key.startsWith('source.cluster.')) put(`${source}.${key.slice('source.cluster.'.length)}`, entry);
      else if (key.startsWith('target.cluster.')) put(`${target}.${key.slice('target.cluster.'.length)}`, entry);
      else if (TOP_LEVEL_PREFIXES.some((prefix) => key.startsWith(prefix))) put(key, entry);
      else put(`${pairKey}.${key}`, entry);
    }
  }

  // Each flow runs the parts its connectors ask for, and nothing else.
  const switches: Mm2Property[] = [];
  for (const [pairKey, pair] of pairs) {
    const anyConnector = [...pair.roles.values()][0]!;
    if (pair.roles.has('checkpoint') && !pair.roles.has('source')) {
      problems.push({
        ...at(pair.roles.get('checkpoint')!, true),
        message: `a MirrorCheckpointConnector without the MirrorSourceConnector of ${pairKey} is not supported yet: mirrorflow checkpoints as part of a replicating flow`,
        hint: `give the source connector's config of ${pairKey} too`,
      });
    }
    problems.push(...sharedKeyProblems(pair));
    for (const [key, role] of Object.entries(OWN_SWITCHES)) {
      const own = pair.roles.get(role);
      if (own !== undefined && written.has(`${pairKey}.${key}`)) continue;
      // A connector's own switch defaults to on (MirrorConnectorConfig); a missing connector's part is off.
      switches.push({ key: `${pairKey}.${key}`, value: own === undefined ? 'false' : 'true', entry: own ?? anyConnector });
    }
  }
  const clusters: Mm2Property = { key: 'clusters', value: [...aliases.keys()].join(', '), aliases, ...(aliasEntry === undefined ? {} : { entry: aliasEntry }) };
  // No heartbeats for pairs no connector names (MM2's driver would run them for every pair).
  const noOtherHeartbeats: Mm2Property = { key: 'emit.heartbeats.enabled', value: 'false' };
  return { properties: [clusters, noOtherHeartbeats, ...properties, ...switches], problems, warnings };
}

/**
 * A key of `SHARED_KEYS` that one of the pair's source and checkpoint connectors sets and the
 * other leaves to a different default, at the line that sets it, naming the other file. (Two
 * values that both files write are compared as every key is, by `put`.)
 */
function sharedKeyProblems(pair: Pair): ConfigIssue[] {
  const source = pair.connectors.get('source');
  const checkpoint = pair.connectors.get('checkpoint');
  if (source === undefined || checkpoint === undefined) return [];
  const problems: ConfigIssue[] = [];
  for (const [key, { consequence, checkpointOnly }] of Object.entries(SHARED_KEYS)) {
    const inSource = source.entries.findLast((e) => e.key === key);
    const inCheckpoint = checkpoint.entries.findLast((e) => e.key === key);
    if ((inSource === undefined) === (inCheckpoint === undefined) || (checkpointOnly === true && inCheckpoint === undefined)) continue;
    const [set, other] = inSource !== undefined ? [inSource, checkpoint] : [inCheckpoint!, source];
    const fallback = mm2Key(key)?.default ?? '';
    if (sameValue(set.value, fallback)) continue;
    const value = set.value.trim();
    problems.push({
      ...at(set, true),
      message: `is ${value} here, but ${other.file}:${other.classEntry.line} (the ${CONNECTOR_NAMES[other.role]} of the same flow) leaves it at MM2's default, ${fallback}: ${consequence}`,
      hint: `the connectors of one flow agree on it: write ${writtenAs(other.classEntry, key, value)} in ${other.file} too, or remove it here`,
    });
  }
  return problems;
}

/** Two values of a key as MM2 reads them: a class with or without its package, a list with any spaces around its commas. */
function sameValue(a: string, b: string): boolean {
  const normal = (value: string): string =>
    value
      .split(',')
      .map((item) => item.trim().replace(/^org\.apache\.kafka\.connect\.mirror\./, ''))
      .join(',');
  return normal(a) === normal(b);
}
