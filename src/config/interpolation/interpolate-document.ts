/**
 * Resolves `${…}` in every string value of a parsed YAML document, in place, before it becomes
 * plain data. Keys are left alone: a key decides what a value means and must be readable in the
 * file. Also reports aliases that name no anchor, which `toJS` would otherwise throw on.
 */
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Scalar } from '#yaml';
import type { PathSegment } from '../config-path';
import { interpolate, type ReferenceResolver } from './interpolate';
import type { SchemaNavigator } from '../json-schema/schema-navigator';

export interface DocumentProblem {
  /** `alias`: an alias names no anchor, and the document cannot become data. */
  readonly kind: 'alias' | 'reference';
  readonly offset: number;
  readonly path: PathSegment[];
  readonly message: string;
  readonly hint?: string;
}

export interface InterpolateDocumentResult {
  /** Scalars whose value now holds resolved text: never quote them in a message. */
  readonly resolvedNodes: ReadonlySet<Node>;
  /** Where those scalars are. */
  readonly resolvedPaths: readonly PathSegment[][];
  readonly problems: DocumentProblem[];
}

export function interpolateDocument(
  doc: Document,
  /** The text `doc` was parsed from, to point at the exact column of a bad reference. */
  text: string,
  resolve: ReferenceResolver,
  navigator: SchemaNavigator,
): InterpolateDocumentResult {
  const resolvedNodes = new Set<Node>();
  const resolvedPaths: PathSegment[][] = [];
  const problems: DocumentProblem[] = [];

  const visit = (node: unknown, path: PathSegment[]): void => {
    if (isAlias(node)) {
      if (node.resolve(doc) === undefined) {
        problems.push({
          kind: 'alias',
          offset: node.range?.[0] ?? 0,
          path,
          message: `alias *${node.source} names no anchor`,
          hint: 'define &name before using *name',
        });
      }
      return;
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        // `<<: *base` is a merge key; its value is an alias, checked above when visited.
        const key = typeof pair.key.value === 'symbol' ? undefined : String(pair.key.value);
        visit(pair.value, key === undefined ? path : [...path, key]);
      }
      return;
    }
    if (isSeq(node)) {
      node.items.forEach((item, index) => visit(item, [...path, index]));
      return;
    }
    if (isScalar(node) && typeof node.value === 'string' && node.value.includes('$')) {
      interpolateScalar(node as Scalar<string>, path);
    }
  };

  const interpolateScalar = (node: Scalar<string>, path: PathSegment[]): void => {
    const result = interpolate(node.value, resolve);
    const base = valueStartOffset(text, node);
    for (const problem of result.problems) {
      problems.push({
        kind: 'reference',
        offset: base.exact ? base.offset + problem.offset : base.offset,
        path,
        message: problem.message,
        ...(problem.hint === undefined ? {} : { hint: problem.hint }),
      });
    }
    if (!result.changed) return;
    if (result.resolved) {
      resolvedNodes.add(node);
      resolvedPaths.push(path);
    }
    // `${BATCH:500}` where the schema wants a number reads as YAML would read `500`, quoted or
    // not (values in [ ] and { } must be quoted). Where a string fits (a password `0123`) the text
    // stays exactly as resolved. Where the schema does not say (plugin options), quotes decide.
    const kind = navigator.valueKind(path);
    const retype = result.value !== '' && (kind === 'other' || (kind === 'any' && node.type === 'PLAIN'));
    (node as Scalar<unknown>).value = retype ? yamlScalar(result.value) : result.value;
  };

  visit(doc.contents, []);
  return { resolvedNodes, resolvedPaths, problems };
}

/** The offset of the value's first character, and whether value index = source index from there. */
function valueStartOffset(text: string, node: Scalar<string>): { offset: number; exact: boolean } {
  const start = node.range?.[0] ?? 0;
  const end = node.range?.[1] ?? start;
  const source = text.slice(start, end);
  if (node.type === 'PLAIN' && source === node.value) return { offset: start, exact: true };
  if ((node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE') && source.slice(1, -1) === node.value) {
    return { offset: start + 1, exact: true };
  }
  return { offset: start, exact: false };
}

/** `500` → 500, `true` → true; anything that is not a plain number, boolean or null stays text. */
function yamlScalar(text: string): unknown {
  const parsed = parseDocument(text, { prettyErrors: false });
  if (parsed.errors.length > 0 || !isScalar(parsed.contents)) return text;
  const value: unknown = parsed.contents.value;
  return typeof value === 'number' || typeof value === 'boolean' || value === null ? value : text;
}
