/**
 * The shape every transform definition must have, checked once in one place: by the registry
 * for built-ins and by the loader for plugins, whose default export could be anything.
 */

/** `insert_header`, `drop`, `mask_json_field`: what a pipeline writes as `type:`. */
const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

export function isSnakeCase(name: string): boolean {
  return SNAKE_CASE.test(name);
}

/**
 * What is wrong with `value` as a transform definition; empty when nothing is.
 *
 * The schema is recognised by duck typing, not `instanceof`: a plugin folder outside this repo
 * may bring its own copy of zod. It must be a zod 4 schema (it carries `_zod`), because the
 * config schema is exported as JSON Schema through zod 4.
 */
export function checkTransformDefinition(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) {
    return [`expected an object made by defineTransform(), got ${describeValue(value)}`];
  }
  const problems: string[] = [];
  const candidate = value as Record<string, unknown>;
  const { name, summary, configSchema, create } = candidate;
  if (typeof name !== 'string') {
    problems.push(`"name" must be a string, got ${describeValue(name)}`);
  } else if (!isSnakeCase(name)) {
    problems.push(`"name" must be snake_case (like "mask_json_field"), got "${name}"`);
  }
  if (typeof summary !== 'string' || summary.trim() === '') {
    problems.push(`"summary" must be a non-empty string, got ${describeValue(summary)}`);
  }
  if (!isZod4Schema(configSchema)) {
    problems.push(`"configSchema" must be a zod 4 schema (use z from the plugin API), got ${describeValue(configSchema)}`);
  }
  if (typeof create !== 'function') {
    problems.push(`"create" must be a function, got ${describeValue(create)}`);
  }
  return problems;
}

function isZod4Schema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_zod' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const looksLikeZod3 = '_def' in value && !('_zod' in value) && 'safeParse' in value;
    return looksLikeZod3 ? 'a zod 3 schema' : 'an object';
  }
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value;
}
