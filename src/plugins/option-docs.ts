/**
 * A transform's options as a person reads them — name, type, default, whether it is required
 * and its description — taken from its config schema (zod 4, exported as JSON Schema), for
 * `mirrorflow plugins list` and the transform reference in docs/transforms.md. Nested objects are
 * listed by dotted path (`when.topic_matches`).
 */
import { z } from '#zod';
import type { TransformDefinition } from './api';

export interface OptionDoc {
  /** Dotted path of the option, e.g. `when.topic_matches`. */
  readonly name: string;
  /** `string`, `boolean`, `integer`, `list of string`, `"mask" | "remove"`, … */
  readonly type: string;
  readonly required: boolean;
  /** The default as JSON text, when there is one. */
  readonly default?: string;
  readonly description: string;
}

interface Schema {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly additionalProperties?: boolean | Schema;
}

/**
 * The options of `definition`; throws when its schema cannot be shown as JSON Schema (a
 * `z.custom`, say), which callers report as the plugin's problem.
 */
export function transformOptions(definition: TransformDefinition): OptionDoc[] {
  const schema = z.toJSONSchema(definition.configSchema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as Schema;
  const rows: OptionDoc[] = [];
  collect('', schema, rows);
  return rows;
}

function collect(prefix: string, schema: Schema, rows: OptionDoc[]): void {
  const required = new Set(schema.required ?? []);
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    const nested = objectOf(property);
    rows.push({
      name,
      type: nested === undefined ? typeOf(property) : 'map',
      required: required.has(key),
      ...(property.default === undefined ? {} : { default: JSON.stringify(property.default) }),
      description: (property.description ?? nested?.description ?? '').replace(/\s*\n\s*/g, ' '),
    });
    if (nested !== undefined) collect(name, nested, rows);
  }
}

/** The object schema of an option that holds named options itself (maybe optional or nullable). */
function objectOf(schema: Schema): Schema | undefined {
  if (schema.properties !== undefined) return schema;
  const objects = (schema.anyOf ?? []).filter((s) => s.properties !== undefined);
  return objects.length === 1 ? objects[0] : undefined;
}

function typeOf(schema: Schema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) return [...new Set(alternatives.map(typeOf))].join(' | ');
  if (schema.type === 'array') return `list of ${schema.items === undefined ? 'values' : typeOf(schema.items)}`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (typeof schema.type === 'string') return schema.type;
  return 'value';
}
