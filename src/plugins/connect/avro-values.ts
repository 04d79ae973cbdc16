/**
 * Avro data (as the avsc library reads and writes it, longs as bigints) ↔ Connect data, typed
 * by the Connect schema avro-schema.ts made of the Avro schema, as AvroData converts them: a
 * record is a Struct, a map a HashMap, an enum its symbol (a string), a fixed its bytes, a
 * decimal a BigDecimal of the schema's scale, a date / time-millis / timestamp-millis a
 * java.util.Date. Field defaults are read from, and written as, Avro's JSON form of a default.
 */
import {
  ConnectDataError,
  ConnectDate,
  ConnectDecimal,
  ConnectFloat,
  ConnectInt,
  JavaHashMap,
  Struct,
  type ConnectSchema,
  type ConnectValue,
} from './connect-value';
import { DATE, DECIMAL, TIME, TIMESTAMP } from './connect-schema';

const MILLIS_PER_DAY = 86_400_000;

/** An Avro schema, or a default value, as parsed JSON. */
export type AvroJson = null | boolean | number | string | AvroJson[] | { [key: string]: AvroJson };

/** Avro data → Connect data of `schema`. */
export function avroToConnect(schema: ConnectSchema, value: unknown): ConnectValue {
  if (value === null || value === undefined) {
    if (schema.optional) return null;
    throw new ConnectDataError(`the Avro data has no value for a required ${schema.type.toUpperCase()}`);
  }
  switch (schema.name) {
    case DECIMAL: {
      const bytes = value as Buffer;
      const unscaled = bytes.length === 0 ? 0n : BigInt.asIntN(bytes.length * 8, BigInt(`0x${bytes.toString('hex')}`));
      return new ConnectDecimal(unscaled, Number(schema.meta.parameters?.get('scale') ?? '0'));
    }
    case DATE:
      return new ConnectDate((value as number) * MILLIS_PER_DAY);
    case TIME:
      return new ConnectDate(value as number);
    case TIMESTAMP:
      return new ConnectDate(Number(value as bigint));
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
      return new ConnectInt(schema.type, BigInt(value as number));
    case 'int64':
      return new ConnectInt('int64', value as bigint);
    case 'float32':
    case 'float64':
      return new ConnectFloat(schema.type, value as number);
    case 'boolean':
    case 'string':
      return value as boolean | string;
    case 'bytes':
      return value as Buffer;
    case 'array':
      return (value as unknown[]).map((element) => avroToConnect(schema.meta.valueSchema!, element));
    case 'map': {
      const map = JavaHashMap.create<ConnectValue>();
      for (const [key, element] of Object.entries(value as Record<string, unknown>)) map.set(key, avroToConnect(schema.meta.valueSchema!, element));
      return map;
    }
    case 'struct': {
      const struct = new Struct(schema);
      const record = value as Record<string, unknown>;
      for (const field of schema.fields) struct.values[field.index] = avroToConnect(field.schema, record[field.name]);
      return struct;
    }
  }
}

/** Connect data of `schema` → Avro data avsc writes. */
export function connectToAvro(schema: ConnectSchema, value: ConnectValue): unknown {
  if (value === null) {
    const fallback = schema.meta.defaultValue;
    if (fallback !== undefined && fallback !== null) return connectToAvro(schema, fallback);
    if (schema.optional) return null;
    throw new ConnectDataError(`the avro converter cannot write null for a required ${schema.type.toUpperCase()}`);
  }
  switch (schema.name) {
    case DECIMAL: {
      const decimal = expect(value, ConnectDecimal, schema);
      const scale = Number(schema.meta.parameters?.get('scale') ?? '0');
      if (decimal.scale !== scale) throw new ConnectDataError('BigDecimal has mismatching scale value for given Decimal schema');
      return twosComplement(decimal.unscaled);
    }
    case DATE:
      return Math.floor(expect(value, ConnectDate, schema).epochMs / MILLIS_PER_DAY);
    case TIME:
      return expect(value, ConnectDate, schema).epochMs;
    case TIMESTAMP:
      return BigInt(expect(value, ConnectDate, schema).epochMs);
  }
  switch (schema.type) {
    case 'int8':
    case 'int16':
    case 'int32':
      return Number(expect(value, ConnectInt, schema).value);
    case 'int64':
      return expect(value, ConnectInt, schema).value;
    case 'float32':
    case 'float64':
      return expect(value, ConnectFloat, schema).value;
    case 'boolean':
    case 'string':
      if (typeof value !== (schema.type === 'boolean' ? 'boolean' : 'string')) throw mismatch(schema);
      return value;
    case 'bytes':
      if (!Buffer.isBuffer(value)) throw mismatch(schema);
      return value;
    case 'array':
      if (!Array.isArray(value)) throw mismatch(schema);
      return value.map((element: ConnectValue) => connectToAvro(schema.meta.valueSchema!, element));
    case 'map': {
      if (!(value instanceof JavaHashMap)) throw mismatch(schema);
      const map = value as JavaHashMap<ConnectValue>;
      const out: Record<string, unknown> = {};
      for (const [key, element] of map) out[key] = connectToAvro(schema.meta.valueSchema!, element);
      return out;
    }
    case 'struct': {
      const struct = expect(value, Struct, schema);
      const out: Record<string, unknown> = {};
      for (const field of schema.fields) out[field.name] = connectToAvro(field.schema, struct.values[field.index] ?? null);
      return out;
    }
  }
}

/** An Avro field default (JSON) as the Connect default of `schema`. */
export function avroDefaultToConnect(schema: ConnectSchema, json: unknown): ConnectValue {
  return avroToConnect(schema, defaultAsAvro(schema, json));
}

/** A Connect default as Avro's JSON form of it. */
export function connectDefaultToAvro(schema: ConnectSchema, value: ConnectValue): AvroJson {
  return avroAsJson(connectToAvro(schema, value));
}

function defaultAsAvro(schema: ConnectSchema, json: unknown): unknown {
  if (json === null) return null;
  if (schema.type === 'int64') return BigInt(json as number);
  if (schema.type === 'bytes') return Buffer.from(json as string, 'latin1');
  if (schema.type === 'array') return (json as unknown[]).map((element) => defaultAsAvro(schema.meta.valueSchema!, element));
  if (schema.type === 'map') {
    return Object.fromEntries(Object.entries(json as Record<string, unknown>).map(([k, v]) => [k, defaultAsAvro(schema.meta.valueSchema!, v)]));
  }
  if (schema.type === 'struct') {
    const record = json as Record<string, unknown>;
    return Object.fromEntries(schema.fields.map((field) => [field.name, defaultAsAvro(field.schema, record[field.name] ?? null)]));
  }
  return json;
}

function avroAsJson(value: unknown): AvroJson {
  if (typeof value === 'bigint') return Number(value);
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  if (Array.isArray(value)) return value.map(avroAsJson);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, avroAsJson(v)]));
  return value as AvroJson;
}

/** Java's `BigInteger.toByteArray()`: the shortest big-endian two's complement. */
function twosComplement(unscaled: bigint): Buffer {
  let bytes = 1;
  while (unscaled < -(1n << BigInt(bytes * 8 - 1)) || unscaled >= 1n << BigInt(bytes * 8 - 1)) bytes++;
  const hex = BigInt.asUintN(bytes * 8, unscaled)
    .toString(16)
    .padStart(bytes * 2, '0');
  return Buffer.from(hex, 'hex');
}

function expect<T>(value: ConnectValue, type: abstract new (...args: never[]) => T, schema: ConnectSchema): T {
  if (!(value instanceof type)) throw mismatch(schema);
  return value;
}

function mismatch(schema: ConnectSchema): ConnectDataError {
  return new ConnectDataError(`the avro converter got data that does not fit its ${schema.name ?? schema.type.toUpperCase()} schema`);
}
