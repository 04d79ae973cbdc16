/**
 * The pipeline document built from an mm2.properties file, and where each of its values came
 * from: the property that set it (with its line), or MM2's default for a key the file leaves out.
 * Problems found later at a document path (schema, cross-field rules) point at that property,
 * and `mirrorflow convert` writes it as a comment beside the value.
 */
import { formatPath, isPlainObject, type ConfigPath, type PathSegment } from '../config-path';
import type { PropertyEntry } from './java-properties';

/** An entry of the file; from a connector config (several files make one pipeline), with its file and the key as written there. */
export interface Mm2Entry extends PropertyEntry {
  readonly file?: string;
  /** How a connector config is written, for hints that show a setting (a driver file is properties). */
  readonly format?: 'json' | 'properties';
}

/** Where a connector config declared a cluster alias, and as which side, for problems about that cluster. */
export interface AliasDeclaration {
  readonly entry: Mm2Entry;
  readonly side: 'source' | 'target';
}

/** One effective property: the key as written, its value, and where (synthesised values have no entry). */
export interface Mm2Property {
  readonly key: string;
  readonly value: string;
  readonly entry?: Mm2Entry;
  /** Given as `--set key=value` rather than written in the file. */
  readonly viaSet?: boolean;
  /** `clusters` made of connector configs: where each alias was named. */
  readonly aliases?: ReadonlyMap<string, AliasDeclaration>;
}

export type Provenance =
  /** Set by a property of the file. `resolved`: its value held a `${…}` reference. */
  | { readonly kind: 'property'; readonly key: string; readonly entry?: Mm2Entry; readonly resolved: boolean }
  /** MM2's default for a key the file does not set. */
  | { readonly kind: 'default'; readonly key: string };

/** A problem or note about one property of the file. */
export interface Mm2Problem {
  readonly key: string;
  readonly entry?: Mm2Entry;
  /** Point at the value rather than the key. */
  readonly atValue?: boolean;
  readonly message: string;
  readonly hint?: string;
  readonly viaSet?: boolean;
}

export class Mm2Document {
  readonly data: Record<string, unknown> = {};
  /** Paths whose value could not be read (a problem is reported): what is missing there is no news. */
  readonly failedPaths: PathSegment[][] = [];
  private readonly origins = new Map<string, Provenance>();

  fail(path: readonly PathSegment[]): void {
    this.failedPaths.push([...path]);
  }

  set(path: readonly PathSegment[], value: unknown, provenance?: Provenance): void {
    let container: Record<string, unknown> | unknown[] = this.data;
    path.forEach((segment, index) => {
      const last = index === path.length - 1;
      const record = container as Record<string | number, unknown>;
      if (last) {
        record[segment] = value;
        return;
      }
      if (record[segment] === undefined) record[segment] = typeof path[index + 1] === 'number' ? [] : {};
      container = record[segment] as Record<string, unknown> | unknown[];
    });
    if (provenance !== undefined) this.origins.set(formatPath(path), provenance);
  }

  /** Marks where a whole subtree (a flow, a cluster) was declared. */
  declare(path: readonly PathSegment[], provenance: Provenance): void {
    this.origins.set(formatPath(path), provenance);
  }

  /** The provenance of `path` or of its nearest ancestor that has one. */
  provenanceOf(path: ConfigPath): Provenance | undefined {
    for (let length = path.length; length >= 0; length--) {
      const found = this.origins.get(formatPath(path.slice(0, length)));
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The provenance recorded for exactly `path`. */
  exactProvenance(path: ConfigPath): Provenance | undefined {
    return this.origins.get(formatPath(path));
  }

  /** Every leaf path with a value, in document order. */
  leaves(): PathSegment[][] {
    const out: PathSegment[][] = [];
    const visit = (value: unknown, path: PathSegment[]): void => {
      if (isPlainObject(value)) for (const [key, child] of Object.entries(value)) visit(child, [...path, key]);
      else if (Array.isArray(value) && value.some((item) => isPlainObject(item))) value.forEach((item, index) => visit(item, [...path, index]));
      else out.push(path);
    };
    visit(this.data, []);
    return out;
  }
}
