/**
 * An mm2.properties file (its entries, values already resolved, or with opaque placeholders for
 * `mirrorflow convert`) as a pipeline document: every key checked, the clusters, and a flow for
 * every herder MM2 would run (MirrorMakerConfig.clusterPairs), including the heartbeats-only ones (`enabled: false`).
 * Problems are collected, never thrown, so a file's problems are all reported at once.
 */
import type { PropertyEntry } from './java-properties';
import { mapCluster } from './mm2-cluster-mapping';
import { Mm2Document, type Mm2Problem, type Mm2Property, type Provenance } from './mm2-document';
import { Mm2DriverConfig } from './mm2-driver-config';
import { mapFlow } from './mm2-flow-mapping';
import { checkKey } from './mm2-key-check';
import { splitList } from './mm2-providers';
import { Mm2Values, type UnknownKeys } from './mm2-values';
import { clusterAliasPattern } from '../schema/clusters';

export interface Mm2Input {
  /** The file's entries in order, with the value to use for each (after `--set` ones were added). */
  readonly properties: readonly Mm2Property[];
  /** Keys whose value held a `${…}` reference (or came from `--set`): never quote them. */
  readonly resolvedKeys: ReadonlySet<string>;
  /** Keys whose `${…}` failed; their problems are reported already. */
  readonly failedKeys: ReadonlySet<string>;
  readonly isOpaque: (value: string) => boolean;
  /** Where relative TLS paths start. */
  readonly cwd: string;
  /** `--unknown-keys`: an unknown key is a problem (default) or a warning. */
  readonly unknownKeys?: UnknownKeys;
}

export interface Mm2Mapping {
  readonly document: Mm2Document;
  readonly problems: readonly Mm2Problem[];
  readonly warnings: readonly Mm2Problem[];
}

export function mm2ToPipeline(input: Mm2Input): Mm2Mapping {
  const document = new Mm2Document();
  const values = new Mm2Values({
    failedKeys: input.failedKeys,
    isOpaque: input.isOpaque,
    ...(input.unknownKeys === undefined ? {} : { unknownKeys: input.unknownKeys }),
  });
  const result = { document, problems: values.problems, warnings: values.warnings };

  const props = new Map<string, Mm2Property>();
  for (const prop of input.properties) {
    const earlier = props.get(prop.key);
    if (earlier?.entry !== undefined && prop.entry !== undefined) {
      values.warn(prop, `is set twice; the later value wins (line ${prop.entry.line}, not ${earlier.entry.line}), as in MM2`);
    }
    props.set(prop.key, prop);
  }

  const clustersProp = props.get('clusters');
  if (clustersProp === undefined) {
    values.problems.push({ key: 'clusters', message: 'missing required key', hint: 'name the clusters, e.g. clusters = primary, backup' });
    return result;
  }
  const clusters = readClusters(clustersProp, values);
  if (clusters === undefined) return result;

  for (const prop of props.values()) checkKey(prop, { clusters, values });
  warnAboutFlowsNotEnabled(props, clusters, values);

  const provenance = (prop: Mm2Property): Provenance =>
    prop.entry === undefined && !input.resolvedKeys.has(prop.key)
      ? { kind: 'default', key: prop.key }
      : { kind: 'property', key: prop.key, ...(prop.entry === undefined ? {} : { entry: prop.entry }), resolved: input.resolvedKeys.has(prop.key) };
  const driver = new Mm2DriverConfig(props, clusters);
  for (const alias of clusters) mapCluster(alias, driver.clusterProps(alias), clustersProp, { document, values, provenance, cwd: input.cwd });

  // Which herders exist is decided by these values; convert must know them.
  const deciding = [...props.values()].filter((p) => /(^|->[^.]*\.)(enabled|emit\.heartbeats\.enabled)$/.test(p.key) && values.isOpaque(p));
  for (const prop of deciding) values.literal(prop, 'to know which flows exist');
  if (deciding.length > 0) return result;

  const pairs = driver.herderPairs();
  if (pairs.length === 0) {
    values.report(
      clustersProp,
      'No source->target replication flows.',
      'enable one, e.g. primary->backup.enabled = true (MM2 also runs heartbeats-only flows unless emit.heartbeats.enabled = false)',
      false,
    );
    return result;
  }
  for (const [index, pair] of pairs.entries()) {
    mapFlow(pair, index, props.get(`${pair.source}->${pair.target}.enabled`) ?? clustersProp, { driver, document, values, provenance });
  }
  return result;
}

/**
 * Settings of a flow that its heartbeats-only herder still reads when the flow does not replicate,
 * and its SMTs and predicates, whose own warning says they have no effect there.
 */
const NOT_IDLE_IN_HEARTBEAT_FLOW = /^(enabled|emit\.heartbeats\..+|heartbeats\.topic\..+|(target\.)?(producer|admin)\..+|transforms(\..+)?|predicates(\..+)?)$/;

/**
 * MM2 leaves a flow off unless `A->B.enabled = true`, whatever else the file says of it, so Kafka's
 * own example (`primary->backup.topics = .*` and no `enabled` line) replicates nothing: said, per
 * flow, at its first line that has no effect, with the line that turns it on.
 */
function warnAboutFlowsNotEnabled(props: ReadonlyMap<string, Mm2Property>, clusters: readonly string[], values: Mm2Values): void {
  for (const source of clusters) {
    for (const target of clusters) {
      const prefix = `${source}->${target}.`;
      if (source === target || props.has(`${prefix}enabled`)) continue;
      const idle = [...props.values()].filter(
        (p) => p.entry !== undefined && p.key.startsWith(prefix) && !NOT_IDLE_IN_HEARTBEAT_FLOW.test(p.key.slice(prefix.length)),
      );
      if (idle.length === 0) continue;
      const lines = idle.map((p) => p.entry!.line).sort((a, b) => a - b);
      const which = lines.length === 1 ? `line ${lines[0]} has` : `lines ${lines.join(', ')} have`;
      const first = idle.find((p) => p.entry!.line === lines[0])!;
      values.warn(first, `${source}->${target} is not enabled (MM2's default); ${which} no effect`, `to replicate, add ${source}->${target}.enabled = true`);
    }
  }
}

function readClusters(prop: Mm2Property, values: Mm2Values): string[] | undefined {
  if (values.isOpaque(prop)) {
    values.literal(prop, 'to know the clusters');
    return undefined;
  }
  const aliases = splitList(prop.value);
  if (aliases.length === 0) {
    values.report(prop, 'clusters is empty', 'name the clusters, e.g. clusters = primary, backup');
    return undefined;
  }
  const seen = new Set<string>();
  let ok = true;
  for (const alias of aliases) {
    if (alias === '') {
      values.report(prop, 'clusters has an empty name', 'remove the extra comma');
      ok = false;
    } else if (seen.has(alias)) {
      values.report(prop, `cluster "${alias}" is listed twice in clusters`, 'list each alias once');
      ok = false;
    } else if (!clusterAliasPattern.test(alias)) {
      values.report(prop, `cluster alias "${alias}" may only contain letters, digits, "_" and "-"`, 'an alias becomes part of topic names (alias.topic)');
      ok = false;
    }
    seen.add(alias);
  }
  return ok ? aliases : undefined;
}

export type { PropertyEntry };
