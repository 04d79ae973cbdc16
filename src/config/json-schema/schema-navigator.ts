/**
 * Answers questions about the pipeline schema at a path: does the path exist, which keys are
 * allowed there, does it take a string. It walks the generated JSON Schema rather than zod's
 * internals: that is plain, documented data, and it is the very schema editors validate with.
 */
import type { ConfigPath, PathSegment } from '../config-path';

/** The part of JSON Schema that zod emits for the pipeline schema. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly default?: unknown;
  readonly description?: string;
}

/** What a value at a path may be, as far as interpolation and `--set` care. */
export type ValueKind = 'string' | 'other' | 'any';

export class SchemaNavigator {
  private schema: JsonSchema | (() => JsonSchema);

  /**
   * `root`, or a function that makes it, called at the first question: the pipeline's schema is
   * generated from zod (tens of milliseconds), which a file without `${…}` or `--set` never asks.
   */
  constructor(root: JsonSchema | (() => JsonSchema)) {
    this.schema = root;
  }

  private get root(): JsonSchema {
    if (typeof this.schema === 'function') this.schema = this.schema();
    return this.schema;
  }

  /** The schema alternatives at `path`; empty when the path cannot exist. */
  at(path: ConfigPath): JsonSchema[] {
    let current = expand(this.root);
    for (const segment of path) {
      current = current.flatMap((schema) => expand(child(schema, segment)));
      if (current.length === 0) return [];
    }
    return current;
  }

  exists(path: ConfigPath): boolean {
    return this.at(path).length > 0;
  }

  /**
   * The keys a map at `path` may have; undefined when any key is allowed (cluster aliases, plugin
   * options). Given the map itself, alternatives whose `const` keys it contradicts are skipped, so
   * an identity policy is not offered the default policy's keys.
   */
  allowedKeys(path: ConfigPath, value?: unknown): string[] | undefined {
    const keys = new Set<string>();
    const all = this.at(path);
    const matching = all.filter((schema) => !contradicts(schema, value));
    for (const schema of matching.length > 0 ? matching : all) {
      if (isOpenMap(schema)) return undefined;
      for (const key of Object.keys(schema.properties ?? {})) keys.add(key);
    }
    return [...keys];
  }

  /** True when the value at `path` is a list, so a numeric segment after it is an index. */
  isList(path: ConfigPath): boolean {
    return this.at(path).some((schema) => hasType(schema, 'array') || schema.items !== undefined);
  }

  /**
   * `string` when a string is acceptable at `path` (then `${…}` and `--set` values stay text, so
   * a password `0123` is not turned into the number 123), `any` when the schema does not say
   * (plugin options), `other` when only numbers, booleans or collections fit.
   */
  valueKind(path: ConfigPath): ValueKind {
    const schemas = this.at(path);
    if (schemas.length === 0) return 'any';
    if (schemas.some((schema) => hasType(schema, 'string') || typeof schema.const === 'string')) return 'string';
    if (schemas.some(isUnconstrained)) return 'any';
    return 'other';
  }
}

function contradicts(schema: JsonSchema, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return Object.entries(schema.properties ?? {}).some(([key, property]) => property.const !== undefined && key in record && record[key] !== property.const);
}

function expand(schema: JsonSchema | undefined): JsonSchema[] {
  if (schema === undefined) return [];
  const alternatives = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  if (alternatives.length === 0) return [schema];
  return alternatives.flatMap(expand);
}

function child(schema: JsonSchema, segment: PathSegment): JsonSchema | undefined {
  const isIndex = typeof segment === 'number' || /^\d+$/.test(segment);
  if (isIndex && schema.items !== undefined) return schema.items;
  if (isUnconstrained(schema)) return {};
  const key = String(segment);
  if (schema.properties && Object.hasOwn(schema.properties, key)) return schema.properties[key];
  if (schema.additionalProperties === true) return {};
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties;
  return undefined;
}

function hasType(schema: JsonSchema, type: string): boolean {
  return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}

function isOpenMap(schema: JsonSchema): boolean {
  return schema.additionalProperties === true || typeof schema.additionalProperties === 'object' || isUnconstrained(schema);
}

/** `{}` (possibly with a description): anything goes. */
function isUnconstrained(schema: JsonSchema): boolean {
  return (
    schema.type === undefined &&
    schema.properties === undefined &&
    schema.items === undefined &&
    schema.enum === undefined &&
    schema.const === undefined &&
    schema.additionalProperties === undefined
  );
}
