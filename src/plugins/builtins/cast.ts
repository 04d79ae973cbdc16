/**
 * `cast`: casts fields of a map key or value, or the whole key or value, to another primitive
 * type (Kafka Connect's Cast, schemaless), with Java's conversions: whole numbers wrap
 * (`300` as int8 is `44`), floating-point numbers are truncated (saturating, as Java's `(int)`),
 * strings are parsed strictly (`Integer.parseInt`, `Double.parseDouble`, `Boolean.parseBoolean`),
 * booleans are 1 / 0, a number is true when it is not 0, and anything becomes its Java string. A
 * field in the spec that the record lacks is set to null, as Connect does.
 */
import { PluginError, z } from '../api';
import {
  ConnectDataError,
  ConnectFloat,
  ConnectInt,
  JavaHashMap,
  requireMap,
  requireSchemaless,
  type ConnectValue,
  type IntType,
} from '../connect/connect-value';
import { javaToString } from '../connect/converters';
import { defineFieldTransform, onSide } from '../connect/field-transform';

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
  summary: "Casts fields of the record's key or value (a JSON object), or the whole key or value, to int8 … int64, float32, float64, boolean or string.",
  configSchema: z.strictObject({
    on: onSide,
    spec: specSchema.describe(
      `Casts: \`field:type\` entries, or one bare \`type\` for the whole key or value; types: ${CAST_TYPES.join(', ')} (Connect: \`spec\`, comma-separated).`,
    ),
  }),
  sides: (config) => [config.on],
  createField({ on, spec }) {
    const whole = spec.length === 1 && spec[0]![0] === undefined ? spec[0]![1] : undefined;
    return {
      applyData(record) {
        const data = record.side(on);
        if (data === null) return record;
        requireSchemaless(data, 'cast types');
        if (whole !== undefined) return record.with(on, castValue(data, whole, undefined));
        const map = requireMap(data, 'cast types');
        const updated = JavaHashMap.copyOf(map);
        for (const [field, type] of spec) updated.set(field!, castValue(map.get(field!) ?? null, type, field));
        return record.with(on, updated);
      },
    };
  },
});

const INT_BITS: Readonly<Record<IntType, number>> = { int8: 8, int16: 16, int32: 32, int64: 64 };

function castValue(value: ConnectValue, type: CastType, field: string | undefined): ConnectValue {
  if (value === null) return null;
  if (!(typeof value === 'string' || typeof value === 'boolean' || value instanceof ConnectInt || value instanceof ConnectFloat)) {
    const from = value instanceof JavaHashMap ? 'MAP' : Buffer.isBuffer(value) ? 'BYTES' : 'ARRAY';
    throw new ConnectDataError(`Cast transformation does not support casting from ${from}; supported types are ${SUPPORTED}`);
  }
  switch (type) {
    case 'string':
      return javaToString(value);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string') return value.toLowerCase() === 'true';
      return toLong(value) !== 0n;
    case 'float32':
    case 'float64': {
      let number: number;
      if (typeof value === 'boolean') number = value ? 1 : 0;
      else if (typeof value === 'string') number = parseJavaDouble(value, type, field);
      else number = value instanceof ConnectInt ? Number(value.value) : value.value;
      return new ConnectFloat(type, type === 'float32' ? Math.fround(number) : number);
    }
    default: {
      const bits = INT_BITS[type];
      let long: bigint;
      if (typeof value === 'boolean') long = value ? 1n : 0n;
      else if (typeof value === 'string') long = parseJavaInteger(value, bits, type, field);
      else long = toLong(value);
      // Java's Number.byteValue()/shortValue()/intValue() of a Long: the low bits. Of a Double:
      // (int) d, saturating, then the low bits for byte and short.
      if (value instanceof ConnectFloat && bits <= 32) long = saturate(value.value, 32);
      return new ConnectInt(type, BigInt.asIntN(bits, long));
    }
  }
}

/** `longValue()`: a Double truncated toward zero, saturating; NaN is 0. */
function toLong(value: ConnectInt | ConnectFloat): bigint {
  return value instanceof ConnectInt ? value.value : saturate(value.value, 64);
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
