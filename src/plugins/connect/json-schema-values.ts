/**
 * Connect data of Confluent's JsonSchemaConverter (its `JsonSchemaData`, default settings), both
 * ways, for a value typed by the Connect schema json-schema-schema.ts made of the writer schema.
 *
 * JSON → Connect (`jsonSchemaToConnect`): as `toConnectData`: a property the object lacks is null
 * (its default if it has one), even for a required field; an explicit null is the default, or
 * null when optional, else refused. Integers keep their low bits (`intValue()`), a number where a
 * string is expected is null and a string where a number is expected 0 (Jackson's tree); bytes
 * are base64 text; a map (string keys) is an object. Decimal is a JSON number (kept with its own scale) or the
 * base64 of its unscaled value; Date is days, Time milliseconds of the day, Timestamp epoch
 * milliseconds. Properties the schema lacks are ignored.
 *
 * Connect → JSON (`connectToJsonSchemaText`): as `fromConnectData`: a null is the schema's
 * default, `null` when optional, and left out (the property is not written) when required; a
 * struct's fields in its schema's order; Decimal as the base64 of its unscaled value
 * (`decimal.format=BASE64`, the default); numbers and strings as Jackson writes them
 * (json-write.ts).
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
import { DATE, DECIMAL, put, schemasEqual, TIME, TIMESTAMP } from './connect-schema';
import { integralBits, nodeType, type JsonNode } from './json-tree';
import { base64, decimal } from './json-envelope';
import { floatText, quote, twosComplement } from './json-write';

const MILLIS_PER_DAY = 86_400_000;
const BITS = { int8: 8, int16: 16, int32: 32, int64: 64 } as const;

/** `toConnectData(schema, node)`; `undefined` is a property the object lacks. */
export function jsonSchemaToConnect(schema: ConnectSchema, node: JsonNode | undefined): ConnectValue {
  if (node === undefined || node.kind === 'null') {
    const fallback = schema.meta.defaultValue;
    if (fallback !== undefined && fallback !== null) return fallback;
    if (node === undefined || schema.optional) return null;
    throw new ConnectDataError(`Invalid null value for required ${schema.type.toUpperCase()} field`);
  }
  switch (schema.name) {
    case DECIMAL:
      return decimal(schema, node);
    case DATE:
      return new ConnectDate(Number(int32(node, 'Date')) * MILLIS_PER_DAY);
    case TIME:
      return new ConnectDate(Number(int32(node, 'Time')));
    case TIMESTAMP:
      if (node.kind !== 'number' || !node.integral) {
        throw new ConnectDataError(`Invalid type for Timestamp, underlying representation should be integral but was ${nodeType(node)}`);
      }
      return new ConnectDate(Number(integralBits(node, 64)));
  }
  const number = node.kind === 'number' ? node : undefined;
  switch (schema.type) {
    case 'boolean':
      return node.kind === 'boolean' && node.value;
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64': {
      const bits = BITS[schema.type];
      const long = number === undefined ? 0n : integralBits(number, bits === 64 ? 64 : 32);
      return new ConnectInt(schema.type, BigInt.asIntN(bits, long));
    }
    case 'float32':
      return new ConnectFloat('float32', number === undefined ? 0 : Math.fround(Number(number.text)) || 0);
    case 'float64':
      return new ConnectFloat('float64', number === undefined ? 0 : Number(number.text) || 0);
    case 'bytes':
      return node.kind === 'string' ? base64(node.value, 'Invalid bytes field') : null;
    case 'string':
      return node.kind === 'string' ? node.value : null;
    case 'array': {
      const items = node.kind === 'array' ? node.items : node.kind === 'object' ? [...node.fields.values()] : [];
      return items.map((item) => jsonSchemaToConnect(schema.meta.valueSchema!, item));
    }
    case 'map':
      return map(schema, node);
    case 'struct': {
      if (node.kind !== 'object') throw new ConnectDataError(`Structs should be encoded as JSON objects, but found ${nodeType(node)}`);
      const struct = new Struct(schema);
      for (const field of schema.fields) {
        const value = jsonSchemaToConnect(field.schema, node.fields.get(field.name));
        if (value !== null) put(struct, field.name, value);
      }
      return struct;
    }
  }
}

/** A map with string keys (json-schema-schema.ts refuses others: mirrorflow's Connect data holds string map keys only). */
function map(schema: ConnectSchema, node: JsonNode): JavaHashMap<ConnectValue> {
  if (node.kind !== 'object') throw new ConnectDataError(`Maps with string fields should be encoded as JSON objects, but found ${nodeType(node)}`);
  const out = JavaHashMap.create<ConnectValue>();
  for (const [key, value] of node.fields) out.set(key, jsonSchemaToConnect(schema.meta.valueSchema!, value));
  return out;
}

/** `fromConnectData(schema, value)` as JSON text; undefined for a required null without a default (left out of its object). */
export function connectToJsonSchemaText(schema: ConnectSchema, value: ConnectValue): string | undefined {
  if (value === null) {
    const fallback = schema.meta.defaultValue;
    if (fallback !== undefined && fallback !== null) return connectToJsonSchemaText(schema, fallback);
    return schema.optional ? 'null' : undefined;
  }
  const invalid = (): never => {
    throw new ConnectDataError(`Invalid type for ${schema.type.toUpperCase()}: class ${javaClassName(value)}`);
  };
  const notLogical = (name: string, expected: string): never => {
    throw new ConnectDataError(`Invalid type for ${name}, expected ${expected} but was class ${javaClassName(value)}`);
  };
  switch (schema.name) {
    case DECIMAL: {
      if (!(value instanceof ConnectDecimal)) return notLogical('Decimal', 'BigDecimal');
      const scale = Number(schema.meta.parameters?.get('scale'));
      if (value.scale !== scale) {
        throw new ConnectDataError(`BigDecimal has mismatching scale value for given Decimal schema (schema scale ${scale}, value scale ${value.scale})`);
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
      return value instanceof ConnectDate ? String(value.epochMs) : notLogical('Timestamp', 'Date');
  }
  const element = (s: ConnectSchema, v: ConnectValue): string => connectToJsonSchemaText(s, v) ?? 'null';
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
      return `[${(value as readonly ConnectValue[]).map((item) => element(schema.meta.valueSchema!, item)).join(',')}]`;
    case 'map': {
      if (!(value instanceof JavaHashMap)) return invalid();
      if (schema.meta.keySchema!.type !== 'string' || schema.meta.keySchema!.optional) {
        throw new ConnectDataError('maps whose keys are not required strings are not written by the json_schema converter');
      }
      const entries = [...(value as JavaHashMap<ConnectValue>)];
      return `{${entries.map(([k, v]) => `${quote(k)}:${element(schema.meta.valueSchema!, v)}`).join(',')}}`;
    }
    case 'struct': {
      if (!(value instanceof Struct)) return invalid();
      if (!schemasEqual(value.schema, schema)) throw new ConnectDataError('Mismatching schema.');
      const parts: string[] = [];
      for (const field of schema.fields) {
        const text = connectToJsonSchemaText(field.schema, value.values[field.index] ?? null);
        if (text !== undefined) parts.push(`${quote(field.name)}:${text}`);
      }
      return `{${parts.join(',')}}`;
    }
  }
}

function int32(node: JsonNode, name: string): bigint {
  if (node.kind !== 'number' || !node.integral || BigInt.asIntN(32, BigInt(node.text)) !== BigInt(node.text)) {
    throw new ConnectDataError(`Invalid type for ${name}, underlying representation should be integer but was ${nodeType(node)}`);
  }
  return BigInt(node.text);
}
