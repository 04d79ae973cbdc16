/**
 * `links:`: one entry for replication both ways between two clusters, as the two flows it stands
 * for (`a->b`, then `b->a`), each with the link's settings over `flow_defaults`, and provenance
 * headers on unless the link turns them off (docs/active-active.md). Works on unvalidated data:
 * the flows go through the schema and the checks like written ones, and `writtenAt` says where
 * each of their values was written, so every problem points at the link.
 */
import { hasPath, isPlainObject, type ConfigPath, type PathSegment } from './config-path';
import { mergeFlowDefaults } from './merge-flow-defaults';

/** What a link sets before its own keys: loop prevention on, since keeping topic names both ways needs it. */
export const LINK_DEFAULTS = { provenance: { enabled: true } } as const;

/** Where an expanded flow came from: its link, and which way it goes (`reversed`: the second cluster to the first). */
export interface LinkDirection {
  readonly link: number;
  readonly reversed: boolean;
}

export interface ExpandedLinks {
  /** The flows of the links, merged over `flow_defaults`: each link's first direction, then its second. */
  readonly flows: unknown[];
  readonly directions: LinkDirection[];
}

/** Reports a problem of the links' own shape (the rest is the flows' to report). */
export type LinkProblem = (path: PathSegment[], message: string, hint?: string) => void;

export function expandLinks(links: unknown, defaults: unknown, report: LinkProblem): ExpandedLinks {
  const expanded: ExpandedLinks = { flows: [], directions: [] };
  if (links === undefined) return expanded;
  if (!Array.isArray(links)) {
    report(['links'], 'must be a list of links', 'links: [{ clusters: [west, east] }]');
    return expanded;
  }
  links.forEach((link, index) => {
    const path: PathSegment[] = ['links', index];
    if (!isPlainObject(link)) {
      report(path, 'a link is a map with its two clusters', 'e.g. { clusters: [west, east], topics: [orders] }');
      return;
    }
    for (const key of ['source', 'target'] as const) {
      if (key in link)
        report(
          [...path, key],
          'a link has no source and target: it names both clusters in clusters, and replicates both ways',
          `remove ${key}; use a flow for one direction`,
        );
    }
    const clusters = link['clusters'];
    if (!Array.isArray(clusters) || clusters.length !== 2 || !clusters.every((c) => typeof c === 'string' && c !== '')) {
      report(
        [...path, 'clusters'],
        clusters === undefined ? 'missing required key' : 'must name two clusters',
        'clusters: [west, east] replicates west -> east and east -> west',
      );
      return;
    }
    const [first, second] = clusters as [string, string];
    if (first === second) {
      report([...path, 'clusters', 1], 'the two clusters of a link must differ', 'a link copies between two different clusters');
      return;
    }
    const { clusters: _clusters, source: _source, target: _target, ...settings } = link;
    const base = mergeFlowDefaults(mergeFlowDefaults(defaults ?? {}, LINK_DEFAULTS), settings) as Record<string, unknown>;
    for (const reversed of [false, true]) {
      const [source, target] = reversed ? [second, first] : [first, second];
      expanded.flows.push({ ...base, source, target });
      expanded.directions.push({ link: index, reversed });
    }
  });
  return expanded;
}

/**
 * Where the value at `rest` of an expanded flow was written: its cluster in `clusters`, the link's
 * own key, `flow_defaults` when the link does not set it, else the link (the nearest written place).
 */
export function linkPathOf(direction: LinkDirection, rest: ConfigPath, link: unknown, defaults: unknown): PathSegment[] {
  const at: PathSegment[] = ['links', direction.link];
  if (rest[0] === 'source') return [...at, 'clusters', direction.reversed ? 1 : 0];
  if (rest[0] === 'target') return [...at, 'clusters', direction.reversed ? 0 : 1];
  if (rest.length > 0 && !hasPath(link, rest) && hasPath(defaults, rest)) return ['flow_defaults', ...rest];
  return [...at, ...rest];
}
