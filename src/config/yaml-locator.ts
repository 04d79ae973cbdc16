/**
 * Maps document paths to line and column in the YAML source, so every problem can point at the
 * text to fix. Follows aliases and `<<` merge keys, because a value may be written far from the
 * place it is used.
 */
import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from '#yaml';
import type { ConfigPath, PathSegment } from './config-path';

export interface SourcePosition {
  readonly line: number;
  readonly column: number;
  /** When the document was read from several files (connector configs). */
  readonly file?: string;
}

interface Step {
  /** The value node; null for `key:` with nothing after it. */
  readonly value: Node | null;
  /** The key node, when the step went through a map. */
  readonly key?: Node;
}

export class YamlLocator {
  constructor(
    private readonly doc: Document,
    private readonly lineCounter: LineCounter,
  ) {}

  position(offset: number): SourcePosition {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }

  /** The node written at exactly `path`, through aliases and merge keys. */
  nodeAt(path: ConfigPath): Node | undefined {
    const found = this.walk(path);
    return found.length === path.length ? (found.steps.at(-1)?.value ?? undefined) : undefined;
  }

  /**
   * Where to point for a problem at `path`: the value (or, with `key`, the key) when the path is
   * written, else the deepest written ancestor, e.g. the flow that lacks a required key.
   */
  positionOf(path: ConfigPath, options: { key?: boolean } = {}): SourcePosition | undefined {
    const found = this.walk(path);
    const last = found.steps.at(-1);
    const exact = found.length === path.length;
    const node = last === undefined ? this.root() : exact && options.key && last.key ? last.key : (last.value ?? last.key);
    const start = node?.range?.[0];
    return start === undefined ? undefined : this.position(start);
  }

  /** The path of the innermost node at `offset`, e.g. to name the key a duplicate-key error points at. */
  pathAtOffset(offset: number): PathSegment[] {
    const path: PathSegment[] = [];
    let node: Node | null | undefined = this.root();
    for (;;) {
      if (isMap(node)) {
        const pair: Pair<unknown, unknown> | undefined = node.items.find((p) => contains(p.key, offset) || contains(p.value, offset));
        if (pair === undefined || !isScalar(pair.key)) return path;
        path.push(String(pair.key.value));
        if (contains(pair.key, offset)) return path;
        node = pair.value as Node | null;
      } else if (isSeq(node)) {
        const index = node.items.findIndex((item) => contains(item, offset));
        if (index < 0) return path;
        path.push(index);
        node = node.items[index] as Node | null;
      } else {
        return path;
      }
    }
  }

  private root(): Node | undefined {
    return (this.doc.contents as Node | null) ?? undefined;
  }

  private walk(path: ConfigPath): { steps: Step[]; length: number } {
    const steps: Step[] = [];
    let node: Node | null | undefined = this.root();
    for (const segment of path) {
      const step: Step | undefined = node ? this.step(node, segment, 0) : undefined;
      if (step === undefined) break;
      steps.push(step);
      node = step.value;
    }
    return { steps, length: steps.length };
  }

  private step(node: Node, segment: PathSegment, depth: number): Step | undefined {
    // Guard against alias cycles (`a: &x [*x]`); a real document is never this deep.
    if (depth > 64) return undefined;
    const target = this.resolve(node);
    if (isMap(target)) {
      // From the end: with a duplicate key, the later value is the one that counts.
      for (const pair of [...target.items].reverse()) {
        if (isScalar(pair.key) && !isMergeKey(pair.key) && String(pair.key.value) === String(segment)) {
          return { value: (pair.value as Node | null) ?? null, key: pair.key };
        }
      }
      for (const pair of target.items) {
        if (!isScalar(pair.key) || !isMergeKey(pair.key)) continue;
        const sources: unknown[] = isSeq(pair.value) ? pair.value.items : [pair.value];
        for (const source of sources) {
          const found = isNode(source) ? this.step(source, segment, depth + 1) : undefined;
          if (found) return found;
        }
      }
      return undefined;
    }
    if (isSeq(target)) {
      const index = Number(segment);
      const item: unknown = Number.isInteger(index) ? target.items[index] : undefined;
      return isNode(item) ? { value: item } : undefined;
    }
    return undefined;
  }

  private resolve(node: Node): Node | undefined {
    return isAlias(node) ? (node.resolve(this.doc) as Node | undefined) : node;
  }
}

function isMergeKey(key: { value: unknown; source?: string }): boolean {
  return typeof key.value === 'symbol' || key.source === '<<';
}

function isNode(value: unknown): value is Node {
  return isScalar(value) || isMap(value) || isSeq(value) || isAlias(value);
}

function contains(node: unknown, offset: number): boolean {
  if (!isNode(node) || !node.range) return false;
  return offset >= node.range[0] && offset < Math.max(node.range[1], node.range[0] + 1);
}
