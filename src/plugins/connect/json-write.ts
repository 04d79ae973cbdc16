/**
 * The JSON text Connect's JsonConverter writes (its `convertToJson`, then Jackson's generator):
 * no whitespace, Double and Float as Java prints them, NaN and infinities as quoted strings, byte
 * arrays as base64, control characters and surrogates escaped as `\uXXXX` (upper-case hex) but
 * for `\b \t \n \f \r`.
 *
 * - `jsonText`: without a schema, maps in their iteration order.
 * - `typedJsonText`: with a schema: structs in their schema's field order, a null replaced by
 *   the schema's default, logical types as JsonConverter writes them (Decimal as base64 of the
 *   unscaled value, `decimal.format=BASE64`; Date as days, Time as milliseconds of the day,
 *   Timestamp as epoch milliseconds).
 * - `schemaJsonText`: a schema as the envelope's `schema` (`asJsonSchema`): `type`, then
 *   `items` / `keys`, `values` / `fields`, then `optional`, `name`, `version`, `doc`,
 *   `parameters`, `default`; a struct field is its schema with `field` last.
 */
import {
  ConnectDataError,
  ConnectDate,
  ConnectDecimal,
  ConnectFloat,
  ConnectInt,
  JavaHashMap,
  javaClassName,
  Struct,
  type ConnectSchema,
  type ConnectValue,
} from './connect-value';
import { DATE, DECIMAL, schemasEqual, TIME, TIMESTAMP } from './connect-schema';
import { javaDoubleToString, javaFloatToString } from './java-number-format';

const MILLIS_PER_DAY = 86_400_000;

/** The JSON text Jackson writes for a schemaless value (`null` for a null one, as inside a map or list). */
export function jsonText(value: ConnectValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return quote(value);
  if (Buffer.isBuffer(value)) return `"${value.toString('base64')}"`;
  if (value instanceof ConnectInt) return value.value.toString();
  if (value instanceof ConnectFloat) return floatText(value);
  if (value instanceof JavaHashMap) {
    const parts: string[] = [];
    for (const [key, field] of value) parts.push(`${quote(key)}:${jsonText(field)}`);
    return `{${parts.join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map((element) => jsonText(element)).join(',')}]`;
  // A Struct without its schema: JsonConverter compares its schema with none.
  if (value instanceof Struct) throw new ConnectDataError('Mismatching schema.');
  throw new ConnectDataError(`Java class class ${javaClassName(value)} does not have corresponding schema type.`);
}

/** `convertToJson(schema, value)`. */
export function typedJsonText(schema: ConnectSchema, value: ConnectValue): string {
  if (value === null) {
    const fallback = schema.meta.defaultValue;
    if (fallback !== undefined && fallback !== null) return typedJsonText(schema, fallback);
    if (schema.optional) return 'null';
    throw new ConnectDataError('Conversion error: null value for field that is required and has no default value');
  }
  const invalid = (): never => {
    throw new ConnectDataError(`Invalid type for ${schema.type.toUpperCase()}: class ${javaClassName(value)}`);
  };
  // JsonConverter's logical converters: `Invalid type for Decimal, expected BigDecimal but was …`.
  const notLogical = (name: string, expected: string): never => {
    throw new ConnectDataError(`Invalid type for ${name}, expected ${expected} but was class ${javaClassName(value)}`);
  };
  switch (schema.name) {
    case DECIMAL: {
      if (!(value instanceof ConnectDecimal)) return notLogical('Decimal', 'BigDecimal');
      const scale = Number(schema.meta.parameters?.get('scale'));
      if (value.scale !== scale) {
        throw new ConnectDataError(`Decimal value has mismatching scale for given Decimal schema. Schema has scale ${scale}, value has scale ${value.scale}.`);
      }
      return `"${twosComplement(value.unscaled).toString('base64')}"`;
    }
    case DATE:
      if (!(value instanceof ConnectDate)) return notLogical('Date', 'Date');
      if (value.epochMs % MILLIS_PER_DAY !== 0) throw new ConnectDataError('Kafka Connect Date type should not have any time fields set to non-zero values.');
      return String(Math.trunc(value.epochMs / MILLIS_PER_DAY));
    case TIME:
      if (!(value instanceof ConnectDate)) return notLogical('Time', 'Date');
      if (value.epochMs < 0 || value.epochMs > MILLIS_PER_DAY)
        throw new ConnectDataError('Kafka Connect Time type should not have any date fields set to non-zero values.');
      return String(value.epochMs);
    case TIMESTAMP:
      if (!(value instanceof ConnectDate)) return notLogical('Timestamp', 'Date');
      return String(value.epochMs);
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
      return value instanceof ConnectInt && value.type === schema.type ? value.value.toString() : invalid();
    case 'float32':
    case 'float64':
      return value instanceof ConnectFloat && value.type === schema.type ? floatText(value) : invalid();
    case 'boolean':
      return typeof value === 'boolean' ? String(value) : invalid();
    case 'string':
      return typeof value === 'string' ? quote(value) : invalid();
    case 'bytes':
      return Buffer.isBuffer(value) ? `"${value.toString('base64')}"` : invalid();
    case 'array':
      if (!Array.isArray(value)) return invalid();
      return `[${(value as readonly ConnectValue[]).map((element) => typedJsonText(schema.meta.valueSchema!, element)).join(',')}]`;
    case 'map': {
      if (!(value instanceof JavaHashMap)) return invalid();
      const parts: string[] = [];
      for (const [key, element] of value as JavaHashMap<ConnectValue>) parts.push(`${quote(key)}:${typedJsonText(schema.meta.valueSchema!, element)}`);
      return `{${parts.join(',')}}`;
    }
    case 'struct': {
      if (!(value instanceof Struct)) return invalid();
      if (!schemasEqual(value.schema, schema)) throw new ConnectDataError('Mismatching schema.');
      return `{${schema.fields.map((field) => `${quote(field.name)}:${typedJsonText(field.schema, value.values[field.index] ?? null)}`).join(',')}}`;
    }
  }
}

const TYPE_NAMES: Readonly<Record<ConnectSchema['type'], string>> = { float32: 'float', float64: 'double' } as Record<ConnectSchema['type'], string>;

/** A schema is immutable, and records read with the same schema text share one (json-envelope.ts): its text is made once. */
const written = new WeakMap<ConnectSchema, string>();

/** `asJsonSchema(schema)`. */
export function schemaJsonText(schema: ConnectSchema): string {
  let text = written.get(schema);
  if (text === undefined) written.set(schema, (text = `{${schemaParts(schema).join(',')}}`));
  return text;
}

function schemaParts(schema: ConnectSchema): string[] {
  const { meta } = schema;
  const parts = [`"type":${quote(TYPE_NAMES[schema.type] ?? schema.type)}`];
  if (schema.type === 'array') parts.push(`"items":${schemaJsonText(meta.valueSchema!)}`);
  if (schema.type === 'map') parts.push(`"keys":${schemaJsonText(meta.keySchema!)}`, `"values":${schemaJsonText(meta.valueSchema!)}`);
  if (schema.type === 'struct') {
    parts.push(`"fields":[${schema.fields.map((field) => `{${[...schemaParts(field.schema), `"field":${quote(field.name)}`].join(',')}}`).join(',')}]`);
  }
  parts.push(`"optional":${schema.optional}`);
  if (meta.name !== undefined) parts.push(`"name":${quote(meta.name)}`);
  if (meta.version !== undefined) parts.push(`"version":${meta.version}`);
  if (meta.doc !== undefined) parts.push(`"doc":${quote(meta.doc)}`);
  if (meta.parameters !== undefined) parts.push(`"parameters":{${[...meta.parameters].map(([k, v]) => `${quote(k)}:${quote(v)}`).join(',')}}`);
  if (meta.defaultValue !== undefined && meta.defaultValue !== null) parts.push(`"default":${typedJsonText(schema, meta.defaultValue)}`);
  return parts;
}

/** `BigInteger.toByteArray()`: the shortest big-endian two's complement. */
export function twosComplement(value: bigint): Buffer {
  let bytes = 1;
  while (value < -(1n << BigInt(8 * bytes - 1)) || value >= 1n << BigInt(8 * bytes - 1)) bytes++;
  const out = Buffer.alloc(bytes);
  let v = BigInt.asUintN(8 * bytes, value);
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** A float as Jackson writes a Java float or double: non-finite values as strings. */
export function floatText(value: ConnectFloat): string {
  const v = value.value;
  const text = value.type === 'float32' ? javaFloatToString(v) : javaDoubleToString(v);
  return Number.isFinite(v) ? text : `"${text}"`;
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };

export function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += s[i];
  }
  return `${out}"`;
}
