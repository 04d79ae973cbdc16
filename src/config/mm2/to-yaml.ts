/**
 * Writes the pipeline document read from an mm2.properties file as a YAML pipeline a person can
 * read and keep: defaults that MM2 and mirrorflow share are left out, values every flow shares go
 * to `flow_defaults`, and each value carries a comment naming the MM2 key (and line) it came from,
 * or saying it is MM2's default where that differs from mirrorflow's.
 */
import { basename } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isScalar, isSeq, type Node } from '#yaml';
import { formatPath, isPlainObject, valueAtPath, type PathSegment } from '../config-path';
import { CLIENT_DEFAULTS } from './mm2-client-keys';
import type { Mm2Document, Provenance } from './mm2-document';
import { mm2Key } from './mm2-keys';
import { pipelineSchemaNavigator } from '../json-schema/pipeline-schema-navigator';

export interface WriteYamlOptions {
  readonly name: string;
  /** The properties file, for the header. */
  readonly sourceFile: string;
  /** Text of string values as they should appear (references restored). */
  readonly restore: (text: string) => string;
  /** More lines for the header comment. */
  readonly notes?: readonly string[];
}

interface Leaf {
  readonly path: PathSegment[];
  readonly value: unknown;
  readonly provenance: Provenance | undefined;
}

export function mm2DocumentToYaml(document: Mm2Document, options: WriteYamlOptions): string {
  const kept = document
    .leaves()
    .map((path): Leaf => ({ path, value: restoreAll(valueAtPath(document.data, path), options.restore), provenance: document.exactProvenance(path) }))
    // What the file says stays, with its key; a default that mirrorflow shares with MM2 goes.
    .filter((leaf) => leaf.value !== undefined && (leaf.provenance?.kind === 'property' || !isSchemaDefault(leaf.path, leaf.value)));
  // `type: default` alone is the default policy; with a separator beside it, the type must stay.
  const policyOf = (path: PathSegment[]): string => formatPath(path.slice(0, path.indexOf('replication_policy') + 1));
  const leaves = kept.filter(
    (leaf) =>
      !(leaf.path.at(-1) === 'type' && leaf.path.at(-2) === 'replication_policy' && leaf.value === 'default') ||
      kept.some((other) => other !== leaf && other.path.includes('replication_policy') && policyOf(other.path) === policyOf(leaf.path)),
  );

  const flows = (document.data['flows'] as unknown[] | undefined) ?? [];
  const flowLeaves = leaves.filter((leaf) => leaf.path[0] === 'flows');
  const shared = flows.length < 2 ? [] : sharedFlowLeaves(flowLeaves, flows.length);
  const sharedKeys = new Set(shared.map((s) => formatPath(s.relative)));
  const sharedValue = (relative: PathSegment[]): unknown => shared.find((entry) => formatPath(entry.relative) === formatPath(relative))?.value;

  const out: Record<string, unknown> = { name: options.name, clusters: {} };
  const comments: [PathSegment[], string][] = [];
  const put = (path: PathSegment[], value: unknown, comment: string | undefined): void => {
    setIn(out, path, value);
    if (comment !== undefined) comments.push([path, comment]);
  };
  for (const leaf of leaves.filter((l) => l.path[0] === 'clusters')) put(leaf.path, leaf.value, describe(leaf.provenance));
  if (shared.length > 0) {
    for (const entry of shared) put(['flow_defaults', ...entry.relative], entry.value, joinDescriptions(entry.provenances.map(describe)));
  }
  // Both directions between two clusters with the same settings: one link. The rest stay flows.
  const ownLeaves = (index: number): Leaf[] =>
    flowLeaves.filter((leaf) => {
      const relative = leaf.path.slice(2);
      return leaf.path[1] === index && !sharedKeys.has(formatPath(relative)) && relative[0] !== 'source' && relative[0] !== 'target';
    });
  const links = linkPairs(flows, ownLeaves);
  const linked = new Set(links.flatMap(([a, b]) => [a, b]));
  const flowPlace = new Map<number, number>();
  flows.forEach((_, index) => {
    if (!linked.has(index)) flowPlace.set(index, flowPlace.size);
  });
  if (flowPlace.size > 0) out['flows'] = [];
  for (const [index, place] of flowPlace) {
    const record = flows[index] as Record<string, unknown>;
    put(['flows', place, 'source'], record['source'], undefined);
    put(['flows', place, 'target'], record['target'], undefined);
    for (const leaf of ownLeaves(index)) put(['flows', place, ...leaf.path.slice(2)], leaf.value, describe(leaf.provenance));
  }
  links.forEach(([a, b], place) => {
    const first = flows[a] as Record<string, unknown>;
    put(['links', place, 'clusters'], [first['source'], first['target']], undefined);
    const own = ownLeaves(a);
    for (const leaf of own) {
      if (leaf.path.at(-1) === 'enabled' && leaf.path.length === 3) continue;
      put(
        ['links', place, ...leaf.path.slice(2)],
        leaf.value,
        joinDescriptions([describe(leaf.provenance), describe(document.exactProvenance(['flows', b, ...leaf.path.slice(2)]))]),
      );
    }
    // A link turns provenance headers on; MM2 writes none unless the file asks (Replicator's key).
    const provenance = ['provenance', 'enabled'];
    const shared = sharedValue(provenance);
    if (!own.some((leaf) => formatPath(leaf.path.slice(2)) === formatPath(provenance)) && shared !== true)
      put(['links', place, ...provenance], false, 'provenance.header.enable is not set: MM2 writes records as they are, without a provenance header');
  });

  const doc = new Document(out);
  doc.commentBefore = [
    ` Converted from ${options.sourceFile} by mirrorflow convert.`,
    ' Each value names the MM2 key it came from; "MM2 default" marks a default of MM2 that differs',
    " from mirrorflow's own, kept so that this pipeline behaves as the properties file did.",
    ' Defaults that MM2 and mirrorflow share are left out. Check it with: mirrorflow validate FILE',
    ...(options.notes ?? []),
  ].join('\n');
  for (const [path, comment] of comments) {
    const node = doc.getIn(path, true) as Node | undefined;
    if (node !== undefined) node.comment = ` ${comment}`;
  }
  const flowsNode = doc.get('flows', true);
  if (isSeq(flowsNode)) {
    for (const [index, place] of flowPlace) {
      const item = flowsNode.items[place];
      const flow = flows[index] as Record<string, unknown>;
      if (isMap(item)) item.commentBefore = ` ${flowSummary(flow, document.exactProvenance(['flows', index, 'enabled']))}`;
    }
  }
  const linksNode = doc.get('links', true);
  if (isSeq(linksNode)) {
    links.forEach(([a, b], place) => {
      const item = linksNode.items[place];
      const [first, second] = [flows[a], flows[b]] as Record<string, unknown>[];
      const enabledBy = [a, b].map((index) => document.exactProvenance(['flows', index, 'enabled'])).filter((p) => p?.kind === 'property');
      const by = enabledBy.length === 0 ? undefined : enabledBy.map(describe).join(' and ');
      if (isMap(item))
        item.commentBefore = ` ${String(first!['source'])}->${String(first!['target'])} and ${String(second!['source'])}->${String(second!['target'])}: replication both ways${by === undefined ? '' : `, enabled by ${by}`}`;
    });
  }
  const defaultsNode = doc.get('flow_defaults', true);
  if (isMap(defaultsNode)) defaultsNode.commentBefore = " Shared by every flow; a flow's own value wins.";
  // Short lists of patterns read best on one line.
  const visit = (node: unknown): void => {
    if (isMap(node)) for (const pair of node.items) visit(pair.value);
    else if (isSeq(node)) {
      if (node.items.every((item) => isScalar(item))) node.flow = true;
      else for (const item of node.items) visit(item);
    }
  };
  visit(doc.contents);
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/**
 * Pairs of flows (indexes) that make a link: `a->b` and `b->a`, both replicating, with the same
 * settings of their own. Each flow is in one pair at most; the pair is in the order of its first flow.
 */
function linkPairs(flows: readonly unknown[], ownLeaves: (index: number) => Leaf[]): [number, number][] {
  const settings = (index: number): Map<string, unknown> => new Map(ownLeaves(index).map((leaf) => [formatPath(leaf.path.slice(2)), leaf.value] as const));
  const replicates = (flow: Record<string, unknown>): boolean => flow['enabled'] === true || flow['enabled'] === undefined;
  const pairs: [number, number][] = [];
  const taken = new Set<number>();
  flows.forEach((flow, a) => {
    const one = flow as Record<string, unknown>;
    if (taken.has(a) || !replicates(one)) return;
    const b = flows.findIndex((other, index) => {
      const two = other as Record<string, unknown>;
      return index > a && !taken.has(index) && replicates(two) && two['source'] === one['target'] && two['target'] === one['source'];
    });
    if (b < 0 || !isDeepStrictEqual(settings(a), settings(b))) return;
    taken.add(a).add(b);
    pairs.push([a, b]);
  });
  return pairs;
}

function restoreAll(value: unknown, restore: (text: string) => string): unknown {
  if (typeof value === 'string') return restore(value);
  if (Array.isArray(value)) return value.map((item) => restoreAll(item, restore));
  return value;
}

function isSchemaDefault(path: PathSegment[], value: unknown): boolean {
  const schemas = pipelineSchemaNavigator().at(path);
  return schemas.some((schema) => schema.default !== undefined && isDeepStrictEqual(schema.default, value));
}

interface SharedLeaf {
  readonly relative: PathSegment[];
  readonly value: unknown;
  readonly provenances: (Provenance | undefined)[];
}

/** Flow leaves (other than source and target) that every flow has, with the same value. */
function sharedFlowLeaves(leaves: readonly Leaf[], flowCount: number): SharedLeaf[] {
  const byRelative = new Map<string, Leaf[]>();
  for (const leaf of leaves) {
    const key = formatPath(leaf.path.slice(2));
    byRelative.set(key, [...(byRelative.get(key) ?? []), leaf]);
  }
  const shared: SharedLeaf[] = [];
  for (const group of byRelative.values()) {
    const relative = group[0]!.path.slice(2);
    if (relative[0] === 'source' || relative[0] === 'target' || relative[0] === 'enabled') continue;
    if (group.length !== flowCount || !group.every((leaf) => isDeepStrictEqual(leaf.value, group[0]!.value))) continue;
    shared.push({ relative, value: group[0]!.value, provenances: group.map((leaf) => leaf.provenance) });
  }
  return shared;
}

function describe(provenance: Provenance | undefined): string | undefined {
  if (provenance === undefined) return undefined;
  if (provenance.kind === 'default') {
    const value = mm2Key(provenance.key)?.default ?? CLIENT_DEFAULTS[provenance.key];
    return value === undefined ? `MM2 default of ${provenance.key}` : `MM2 default: ${provenance.key} = ${value}`;
  }
  if (provenance.entry === undefined) return `${provenance.key} (--set)`;
  const { file, key, line } = provenance.entry;
  return file === undefined ? `${provenance.key} (line ${line})` : `${key} (${basename(file)} line ${line})`;
}

function joinDescriptions(descriptions: (string | undefined)[]): string | undefined {
  const unique = [...new Set(descriptions.filter((d): d is string => d !== undefined))];
  return unique.length === 0 ? undefined : unique.join('; ');
}

function flowSummary(flow: Record<string, unknown>, enabledBy: Provenance | undefined): string {
  const name = `${String(flow['source'])}->${String(flow['target'])}`;
  if (flow['enabled'] === true || flow['enabled'] === undefined) {
    return `${name}: replication${enabledBy?.kind === 'property' ? `, enabled by ${describe(enabledBy)}` : ''}`;
  }
  return `${name}: heartbeats only (MM2 runs heartbeats for every pair of clusters unless emit.heartbeats.enabled = false)`;
}

function setIn(target: Record<string, unknown>, path: readonly PathSegment[], value: unknown): void {
  let container: Record<string | number, unknown> = target;
  path.forEach((segment, index) => {
    if (index === path.length - 1) {
      container[segment] = value;
      return;
    }
    if (!isPlainObject(container[segment]) && !Array.isArray(container[segment])) container[segment] = typeof path[index + 1] === 'number' ? [] : {};
    container = container[segment] as Record<string | number, unknown>;
  });
}
