/**
 * `cast`: casts fields of the key or value, or the whole key or value, to another primitive type
 * (Kafka Connect's Cast), with Java's conversions: whole numbers wrap (`300` as int8 is `44`),
 * floating-point numbers and decimals are truncated (a double saturating, as Java's `(int)`),
 * strings are parsed strictly (`Integer.parseInt`, `Double.parseDouble`, `Boolean.parseBoolean`),
 * booleans are 1 / 0, a number is true when its whole part is not 0, and anything becomes its
 * Java string (bytes base64). Schemaless, a field in the spec that the record lacks is set to
 * null. With a schema (json_envelope), the cast fields get the plain schema of their new type
 * (optional and with their default cast, as they had them) and the rest keep theirs, under the
 * old schema's name, version, doc and parameters (built once per schema); Date, Time and Timestamp
 * are cast as their days, milliseconds of the day and epoch milliseconds, and to a string as
 * Connect's `Values.dateFormatFor` writes them (in UTC, as a worker in UTC does); a Decimal is
 * cast as Java's BigDecimal. A whole value keeps its schema's name, as in Connect, so a logical
 * one fails when it is written.
 */
import { PluginError, z } from '../api';
import {
  ConnectDataError,
  ConnectDate,
  ConnectDecimal,
  ConnectFloat,
  ConnectInt,
  JavaHashMap,
  requireMap,
  requireStruct,
  SchemaAndValue,
  Struct,
  type ConnectSchema,
  type ConnectValue,
  type IntType,
  type SchemaType,
} from '../connect/connect-value';
import { basicsOf, DATE, primitive, put, structSchema, TIME } from '../connect/connect-schema';
import { bigDecimalToString, javaToString } from '../connect/converters';
import { defineFieldTransform, onSide } from '../connect/field-transform';
import { JavaDateFormat } from '../java-date-format';
const CAST_TYPES = ['int8', 'int16', 'int32', 'int64', 'float32', 'float64', 'boolean', 'string'] as const;
type CastType = (typeof CAST_TYPES)[number];
const SUPPORTED = '[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]';

/** `field:type` pairs, or one bare type for the whole key or value. */
const specSchema = z
  .array(z.string())
  .min(1, 'give at least one field:type, or one type')
  .transform((entries, ctx) => {
    const casts: [string | undefined, CastType][] = [];
    for (const entry of entries) {
      const parts = entry.split(':');
      const type = parts.at(-1)!.trim().toLowerCase() as CastType;
      if (parts.length > 2 || !CAST_TYPES.includes(type)) {
        ctx.addIssue({ code: 'custom', message: `Invalid cast "${entry}": give field:type or a type, the type one of ${CAST_TYPES.join(', ')}` });
        return z.NEVER;
      }
      casts.push([parts.length === 2 ? parts[0]!.trim() : undefined, type]);
    }
    if (casts.some(([field]) => field === undefined) && casts.length > 1) {
      ctx.addIssue({ code: 'custom', message: 'A cast of the whole key or value (a bare type) must be the only entry of the spec' });
      return z.NEVER;
    }
    return casts;
  });

export const cast = defineFieldTransform({
  name: 'cast',
  connectClass: 'Cast',
  summary:
    "Casts fields of the record's key or value (a JSON object or struct), or the whole key or value, to int8 … int64, float32, float64, boolean or string.",
  configSchema: z.strictObject({
    on: onSide,
    spec: specSchema.describe(
      `Casts: \`field:type\` entries, or one bare \`type\` for the whole key or value; types: ${CAST_TYPES.join(', ')} (Connect: \`spec\`, comma-separated).`,
    ),
  }),
  sides: (config) => [config.on],
  createField({ on, spec }) {
    const whole = spec.length === 1 && spec[0]![0] === undefined ? spec[0]![1] : undefined;
    // Connect's HashMap of casts: a field named twice gets the last type.
    const casts = new Map(spec.filter((entry): entry is [string, CastType] => entry[0] !== undefined));

    // Connect's `getOrBuildSchema`. (A struct schema's own default cannot come from JsonConverter.)
    const updatedSchema = (schema: ConnectSchema): ConnectSchema => {
      const castDefault = (from: ConnectSchema, type: CastType, field: string | undefined): ConnectValue | undefined => {
        const fallback = from.meta.defaultValue;
        return fallback === undefined || fallback === null ? undefined : castValue(fallback, type, field, from);
      };
      if (whole !== undefined) return primitive(whole, schema.optional, { ...basicsOf(schema), defaultValue: castDefault(schema, whole, undefined) });
      const fields = schema.fields.map((f) => {
        const type = casts.get(f.name);
        return [f.name, type === undefined ? f.schema : primitive(type, f.schema.optional, { defaultValue: castDefault(f.schema, type, f.name) })] as const;
      });
      return structSchema(fields, { basics: basicsOf(schema), optional: schema.optional });
    };
    const cache = new WeakMap<ConnectSchema, ConnectSchema>();

    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        if (data instanceof SchemaAndValue) {
          if (data.value === null) return record;
          let schema = cache.get(data.schema);
          if (schema === undefined) cache.set(data.schema, (schema = updatedSchema(data.schema)));
          if (whole !== undefined) return record.with(on, new SchemaAndValue(schema, castValue(data.value, whole, undefined, data.schema)));
          const struct = requireStruct(data.value, 'cast types');
          const updated = new Struct(schema);
          for (const field of struct.schema.fields) {
            // `Struct.get`: a null takes the field's default.
            const value = struct.get(field.name);
            const type = casts.get(field.name);
            put(updated, field.name, type === undefined ? value : castValue(value, type, field.name, field.schema));
          }
          return record.with(on, new SchemaAndValue(schema, updated));
        }
        if (whole !== undefined) return record.with(on, castValue(data, whole, undefined, undefined));
        const map = requireMap(data, 'cast types');
        const updated = JavaHashMap.copyOf(map);
        for (const [field, type] of spec) updated.set(field!, castValue(map.get(field!) ?? null, type, field, undefined));
        return record.with(on, updated);
      },
    };
  },
});

const INT_BITS: Readonly<Record<IntType, number>> = { int8: 8, int16: 16, int32: 32, int64: 64 };
const INPUT_TYPES: readonly SchemaType[] = [...CAST_TYPES, 'bytes'];
const MILLIS_PER_DAY = 86_400_000;
// Connect's `Values.dateFormatFor`: a time under a day, a date at midnight, a timestamp otherwise.
const TIME_FORMAT = JavaDateFormat.parse("HH:mm:ss.SSS'Z'");
const DATE_FORMAT = JavaDateFormat.parse('yyyy-MM-dd');
const TIMESTAMP_FORMAT = JavaDateFormat.parse("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

/** Connect's `castValueToType`: `schema` is the value's own, or undefined schemaless (its type then inferred from the value). */
function castValue(value: ConnectValue, type: CastType, field: string | undefined, schema: ConnectSchema | undefined): ConnectValue {
  if (value === null) return null;
  const from = schema?.type ?? inferredType(value);
  if (!INPUT_TYPES.includes(from)) {
    throw new ConnectDataError(`Cast transformation does not support casting from ${from.toUpperCase()}; supported types are ${SUPPORTED}`);
  }
  // Logical types as their Connect representation, except for a cast to string.
  if (value instanceof ConnectDate && type !== 'string') {
    const ms = value.epochMs;
    value = schema?.name === DATE ? int32(Math.trunc(ms / MILLIS_PER_DAY)) : schema?.name === TIME ? int32(ms) : new ConnectInt('int64', BigInt(ms));
  }
  if (Buffer.isBuffer(value) && type !== 'string') throw new ConnectDataError('Unexpected type in Cast transformation: class [B');
  switch (type) {
    case 'string':
      if (Buffer.isBuffer(value)) return value.toString('base64');
      if (value instanceof ConnectDate) return dateText(value.epochMs);
      return javaToString(value);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string') return value.toLowerCase() === 'true';
      return toLong(value as Numeric) !== 0n;
    case 'float32':
    case 'float64': {
      let number: number;
      if (typeof value === 'boolean') number = value ? 1 : 0;
      else if (typeof value === 'string') number = parseJavaDouble(value, type, field);
      else if (value instanceof ConnectDecimal) number = Number(bigDecimalToString(value));
      else number = value instanceof ConnectInt ? Number(value.value) : (value as ConnectFloat).value;
      return new ConnectFloat(type, type === 'float32' ? Math.fround(number) : number);
    }
    default: {
      const bits = INT_BITS[type];
      let long: bigint;
      if (typeof value === 'boolean') long = value ? 1n : 0n;
      else if (typeof value === 'string') long = parseJavaInteger(value, bits, type, field);
      else long = toLong(value as Numeric);
      // Java's Number.byteValue()/shortValue()/intValue() of a Long: the low bits. Of a Double:
      // (int) d, saturating, then the low bits for byte and short.
      if (value instanceof ConnectFloat && bits <= 32) long = saturate(value.value, 32);
      return new ConnectInt(type, BigInt.asIntN(bits, long));
    }
  }
}

type Numeric = ConnectInt | ConnectFloat | ConnectDecimal;

/** Connect's `ConnectSchema.schemaType(value.getClass())` for what a schemaless converter reads. */
function inferredType(value: ConnectValue): SchemaType {
  if (value instanceof JavaHashMap) return 'map';
  if (Array.isArray(value)) return 'array';
  if (Buffer.isBuffer(value)) return 'bytes';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (value instanceof ConnectInt || value instanceof ConnectFloat) return value.type;
  return 'struct';
}

function int32(n: number): ConnectInt {
  return new ConnectInt('int32', BigInt(n));
}

function dateText(ms: number): string {
  if (ms < MILLIS_PER_DAY) return TIME_FORMAT.format(ms);
  return ms % MILLIS_PER_DAY === 0 ? DATE_FORMAT.format(ms) : TIMESTAMP_FORMAT.format(ms);
}

/** `longValue()`: a Double truncated toward zero, saturating (NaN is 0); a BigDecimal's whole part, its low 64 bits. */
function toLong(value: Numeric): bigint {
  if (value instanceof ConnectInt) return value.value;
  if (value instanceof ConnectFloat) return saturate(value.value, 64);
  const whole = value.scale >= 0 ? value.unscaled / 10n ** BigInt(value.scale) : value.unscaled * 10n ** BigInt(-value.scale);
  return BigInt.asIntN(64, whole);
}

function saturate(value: number, bits: 32 | 64): bigint {
  if (Number.isNaN(value)) return 0n;
  const max = (1n << BigInt(bits - 1)) - 1n;
  const min = -(1n << BigInt(bits - 1));
  if (value >= Number(max)) return max;
  if (value <= Number(min)) return min;
  return BigInt(Math.trunc(value));
}

/** `Integer.parseInt` and friends: an optional sign and decimal digits, in range. */
function parseJavaInteger(text: string, bits: number, type: CastType, field: string | undefined): bigint {
  if (/^[+-]?\d+$/.test(text)) {
    const parsed = BigInt(text);
    if (BigInt.asIntN(bits, parsed) === parsed) return parsed;
  }
  throw castFailed(type, field);
}

/** `Double.parseDouble`: surrounding whitespace, an optional f/d suffix, NaN and Infinity allowed. */
function parseJavaDouble(text: string, type: CastType, field: string | undefined): number {
  const trimmed = text.replace(/^[\0- ]+|[\0- ]+$/g, '');
  const match = /^([+-]?)(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?$/.exec(trimmed);
  if (match === null || (match[2] === 'NaN' && match[1] !== '')) throw castFailed(type, field);
  return Number(`${match[1]}${match[2]}`);
}

function castFailed(type: CastType, field: string | undefined): PluginError {
  const what = field === undefined ? 'the string' : `the string in field "${field}"`;
  return new PluginError('cast', `${what} is not a ${type.startsWith('int') ? `whole number within ${type}` : 'number'}, so it cannot be cast to ${type}`);
}
