/**
 * What Connect's `SchemaBuilder`, `ConnectSchema.validateValue`, `Struct.put` and `SchemaUtil`
 * do with schemas, with Connect's messages: building struct schemas field by field (a repeated
 * name is refused), copying a schema's name, version, doc and parameters, checking that a value
 * fits a schema (Java's classes: an int32 field takes an Integer, a Timestamp a java.util.Date),
 * and comparing schemas as `ConnectSchema.equals` does.
 */
import {
  ConnectDataError,
  ConnectDate,
  ConnectDecimal,
  ConnectFloat,
  ConnectInt,
  ConnectSchema,
  JavaHashMap,
  javaClassName,
  SchemaAndValue,
  Struct,
  type ConnectField,
  type ConnectValue,
  type SchemaType,
} from './connect-value';

export const DECIMAL = 'org.apache.kafka.connect.data.Decimal';
export const DATE = 'org.apache.kafka.connect.data.Date';
export const TIME = 'org.apache.kafka.connect.data.Time';
export const TIMESTAMP = 'org.apache.kafka.connect.data.Timestamp';

export type SchemaMeta = ConnectSchema['meta'];

/** A primitive schema (`Schema.STRING_SCHEMA`, `Schema.OPTIONAL_INT64_SCHEMA`, …). */
export function primitive(type: SchemaType, optional: boolean, meta: SchemaMeta = {}): ConnectSchema {
  return new ConnectSchema(type, optional, meta);
}

/** `Timestamp.SCHEMA` / `Timestamp.builder().optional()`, and Date's and Time's. */
export function logicalSchema(name: typeof TIMESTAMP | typeof DATE | typeof TIME, optional: boolean): ConnectSchema {
  return new ConnectSchema(name === TIMESTAMP ? 'int64' : 'int32', optional, { name, version: 1 });
}

/** `SchemaBuilder.struct()` with fields added in order; `basics` are `SchemaUtil.copySchemaBasics` of a schema (name, version, doc, parameters). */
export function structSchema(
  fields: readonly (readonly [string, ConnectSchema])[],
  options: { basics?: SchemaMeta; optional?: boolean; defaultValue?: ConnectValue } = {},
): ConnectSchema {
  const built: ConnectField[] = [];
  for (const [name, schema] of fields) {
    if (built.some((f) => f.name === name)) throw new ConnectDataError(`Cannot create field because of field name duplication ${name}`);
    built.push({ name, index: built.length, schema });
  }
  return new ConnectSchema('struct', options.optional ?? false, { ...options.basics, fields: built, defaultValue: options.defaultValue });
}

/** `SchemaUtil.copySchemaBasics`: name, version, doc and parameters (not optional, not the default). */
export function basicsOf(schema: ConnectSchema): SchemaMeta {
  const { name, version, doc, parameters } = schema.meta;
  return { name, version, doc, parameters };
}

/** `SchemaUtil.copySchemaBasics(schema)` then `optional()` / `defaultValue(…)` as asked: the same type (and element schemas). */
export function withFlags(schema: ConnectSchema, optional: boolean, defaultValue?: ConnectValue): ConnectSchema {
  const { keySchema, valueSchema, fields } = schema.meta;
  return new ConnectSchema(schema.type, optional, { ...basicsOf(schema), keySchema, valueSchema, fields, defaultValue });
}

/** Java's `Schema.toString()` for messages: `Schema{name:TYPE}` or `Schema{TYPE}`. */
export function describeSchema(schema: ConnectSchema): string {
  const type = schema.type.toUpperCase();
  return schema.name !== undefined ? `Schema{${schema.name}:${type}}` : `Schema{${type}}`;
}

/** `Struct.put(name, value)`: validated against the field's schema. */
export function put(struct: Struct, name: string, value: ConnectValue): void {
  const field = struct.requireField(name);
  validateValue(field.name, field.schema, value);
  struct.values[field.index] = value;
}

/** A new Struct of `schema` filled from `[name, value]` pairs through `put`. */
export function structOf(schema: ConnectSchema, values: Iterable<readonly [string, ConnectValue]>): Struct {
  const struct = new Struct(schema);
  for (const [name, value] of values) put(struct, name, value);
  return struct;
}

/** `ConnectSchema.validateValue(field, schema, value)`. */
export function validateValue(field: string | undefined, schema: ConnectSchema, value: ConnectValue): void {
  if (value === null) {
    if (!schema.optional) throw new ConnectDataError(`Invalid value: null used for required field: "${field}", schema type: ${schema.type.toUpperCase()}`);
    return;
  }
  if (!fits(schema, value)) {
    const named = schema.name !== undefined ? ` "${schema.name}"` : '';
    const where = field !== undefined ? ` for field: "${field}"` : '';
    throw new ConnectDataError(`Invalid Java object for schema${named} with type ${schema.type.toUpperCase()}: class ${javaClassName(value)}${where}`);
  }
  if (schema.type === 'struct') {
    const struct = value as Struct;
    if (!schemasEqual(struct.schema, schema)) throw new ConnectDataError('Struct schemas do not match.');
    validateStruct(struct);
  } else if (schema.type === 'array') {
    for (const element of value as readonly ConnectValue[]) validateValue(undefined, schema.meta.valueSchema!, element);
  } else if (schema.type === 'map') {
    for (const [key, element] of value as JavaHashMap<ConnectValue>) {
      validateValue(undefined, schema.meta.keySchema!, key);
      validateValue(undefined, schema.meta.valueSchema!, element);
    }
  }
}

/** `Struct.validate()`: every required field without a default has a value. */
export function validateStruct(struct: Struct): void {
  for (const field of struct.schema.fields) {
    const value = struct.values[field.index] ?? null;
    if (value === null && (field.schema.optional || field.schema.meta.defaultValue !== undefined)) continue;
    validateValue(field.name, field.schema, value);
  }
}

function fits(schema: ConnectSchema, value: ConnectValue): boolean {
  switch (schema.name) {
    case DECIMAL:
      return value instanceof ConnectDecimal;
    case DATE:
    case TIME:
    case TIMESTAMP:
      return value instanceof ConnectDate;
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return value instanceof ConnectInt && value.type === schema.type;
    case 'float32':
    case 'float64':
      return value instanceof ConnectFloat && value.type === schema.type;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'bytes':
      return Buffer.isBuffer(value);
    case 'array':
      return Array.isArray(value);
    case 'map':
      return value instanceof JavaHashMap;
    case 'struct':
      return value instanceof Struct;
  }
}

/** `ConnectSchema.equals`: type, optional, default, name, version, doc, parameters, fields, key and value schemas. */
export function schemasEqual(a: ConnectSchema | undefined, b: ConnectSchema | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const [ma, mb] = [a.meta, b.meta];
  return (
    a.type === b.type &&
    a.optional === b.optional &&
    ma.name === mb.name &&
    ma.version === mb.version &&
    ma.doc === mb.doc &&
    sameParameters(ma.parameters, mb.parameters) &&
    valuesEqual(ma.defaultValue ?? null, mb.defaultValue ?? null) &&
    (ma.fields?.length ?? -1) === (mb.fields?.length ?? -1) &&
    (ma.fields ?? []).every((f, i) => f.name === mb.fields![i]!.name && schemasEqual(f.schema, mb.fields![i]!.schema)) &&
    schemasEqual(ma.keySchema, mb.keySchema) &&
    schemasEqual(ma.valueSchema, mb.valueSchema)
  );
}

function sameParameters(a: ReadonlyMap<string, string> | undefined, b: ReadonlyMap<string, string> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/** Java's `Objects.equals` of two values (`Arrays.equals` for byte arrays in structs is not Java's, but for defaults it is what counts). */
export function valuesEqual(a: ConnectValue, b: ConnectValue): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (a instanceof ConnectInt || a instanceof ConnectFloat)
    return b instanceof a.constructor && (b as ConnectInt).type === a.type && (b as ConnectInt).value === a.value;
  if (a instanceof ConnectDecimal) return b instanceof ConnectDecimal && a.unscaled === b.unscaled && a.scale === b.scale;
  if (a instanceof ConnectDate) return b instanceof ConnectDate && a.epochMs === b.epochMs;
  if (Buffer.isBuffer(a)) return Buffer.isBuffer(b) && a.equals(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => valuesEqual(x, (b as ConnectValue[])[i]!));
  if (a instanceof JavaHashMap)
    return b instanceof JavaHashMap && a.size === b.size && [...a].every(([k, v]) => b.has(k) && valuesEqual(v as ConnectValue, b.get(k) as ConnectValue));
  if (a instanceof Struct) return b instanceof Struct && schemasEqual(a.schema, b.schema) && a.values.every((x, i) => valuesEqual(x, b.values[i]!));
  if (a instanceof SchemaAndValue) return b instanceof SchemaAndValue && schemasEqual(a.schema, b.schema) && valuesEqual(a.value, b.value);
  return false;
}
