/**
 * Connect's JsonConverter with `schemas.enable=true` (its default), both ways: every record is
 * an envelope `{"schema": …, "payload": …}` and nothing else; the schema (`asConnectSchema`)
 * types the payload (`convertToConnect`), with Connect's messages for what does not fit. A
 * `"schema": null` envelope holds schemaless data, read as `schemas.enable=false` reads it. A
 * null value (no bytes) is a tombstone both ways.
 *
 * As JsonConverter reads them: a number where a string is expected is null, a string where a
 * number is expected is 0, a missing struct field is null (its default if it has one), fields
 * the schema lacks are ignored. Not read: maps whose keys are not strings (JsonConverter writes
 * them as arrays of pairs), refused with a message saying so.
 *
 * Records of a topic mostly carry the same schema, so a schema read is kept by the exact text it
 * is written with (the last SCHEMA_CACHE_SIZE texts used, as Connect's JsonConverter keeps its
 * read schemas in an LRU cache): the same text is neither parsed nor converted again, and every
 * record written with it gets the same `ConnectSchema`, which lets the transforms' own caches
 * of what they make of a schema work across records. A schema that is refused is not kept.
 */
import {
  ConnectDataError,
  ConnectDate,
  ConnectDecimal,
  ConnectFloat,
  ConnectInt,
  ConnectSchema,
  JavaHashMap,
  SchemaAndValue,
  Struct,
  type ConnectValue,
  type SchemaType,
} from './connect-value';
import { DATE, DECIMAL, put, structSchema, TIME, TIMESTAMP, validateValue } from './connect-schema';
import { schemalessValue } from './json-data';
import { decimalOf, integralBits, nodeType, parseJsonBytesKnowing, type JsonNode } from './json-tree';
import { jsonText, schemaJsonText, typedJsonText } from './json-write';
import { LruCache } from './lru-cache';

const MILLIS_PER_DAY = 86_400_000;

const NOT_AN_ENVELOPE =
  'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.';

/** How many schemas (distinct texts) the converter keeps read, for all flows of the process. */
export const SCHEMA_CACHE_SIZE = 256;

const schemas = new LruCache<string, ConnectSchema>(SCHEMA_CACHE_SIZE);

/** `toConnectData` with schemas: a SchemaAndValue, or schemaless data for `"schema": null`. */
export function readEnvelope(bytes: Buffer | null): ConnectValue {
  if (bytes === null) return null;
  const parsed = bytes.length === 0 ? undefined : parseJsonBytesKnowing(bytes, 'schema', (text) => schemas.get(text));
  const node = parsed?.node;
  if (node?.kind !== 'object' || node.fields.size !== 2 || !node.fields.has('schema') || !node.fields.has('payload'))
    throw new ConnectDataError(NOT_AN_ENVELOPE);
  let schema = parsed!.known;
  if (schema === undefined) {
    schema = readSchema(node.fields.get('schema')!);
    if (schema !== undefined) schemas.set(parsed!.fieldText!, schema);
  }
  const payload = node.fields.get('payload')!;
  if (schema === undefined) return schemalessValue(payload);
  return new SchemaAndValue(schema, toConnect(schema, payload));
}

/** `fromConnectData` with schemas: no bytes for a null value without a schema. */
export function writeEnvelope(value: ConnectValue): Buffer | null {
  if (value === null) return null;
  const text =
    value instanceof SchemaAndValue
      ? `{"schema":${schemaJsonText(value.schema)},"payload":${typedJsonText(value.schema, value.value)}}`
      : `{"schema":null,"payload":${jsonText(value)}}`;
  return Buffer.from(text, 'utf8');
}

const TYPES: Readonly<Record<string, SchemaType>> = {
  boolean: 'boolean',
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  float: 'float32',
  double: 'float64',
  bytes: 'bytes',
  string: 'string',
  array: 'array',
  map: 'map',
  struct: 'struct',
};

/** `asConnectSchema`: undefined for a JSON null. */
export function readSchema(node: JsonNode): ConnectSchema | undefined {
  if (node.kind === 'null') return undefined;
  const get = (key: string): JsonNode | undefined => (node.kind === 'object' ? node.fields.get(key) : undefined);
  const typeNode = get('type');
  if (typeNode?.kind !== 'string') throw new ConnectDataError("Schema must contain 'type' field");
  const type = TYPES[typeNode.value];
  if (type === undefined) throw new ConnectDataError(`Unknown schema type: ${typeNode.value}`);
  const optionalNode = get('optional');
  const optional = optionalNode?.kind === 'boolean' && optionalNode.value;
  const text = (key: string): string | undefined => {
    const n = get(key);
    return n?.kind === 'string' ? n.value : undefined;
  };
  const versionNode = get('version');
  const meta = {
    name: text('name'),
    version: versionNode?.kind === 'number' && versionNode.integral ? Number(integralBits(versionNode, 32)) : undefined,
    doc: text('doc'),
    parameters: readParameters(get('parameters')),
  };
  let schema: ConnectSchema;
  if (type === 'struct') {
    const fieldsNode = get('fields');
    if (fieldsNode?.kind !== 'array') throw new ConnectDataError('Struct schema\'s "fields" argument is not an array.');
    const fields = fieldsNode.items.map((field): [string, ConnectSchema] => {
      const name = field.kind === 'object' ? field.fields.get('field') : undefined;
      if (name?.kind !== 'string') throw new ConnectDataError("Struct schema's field name not specified properly");
      return [name.value, readSchema(field)!];
    });
    schema = structSchema(fields, { basics: meta, optional });
  } else if (type === 'array') {
    const items = get('items');
    if (items === undefined || items.kind === 'null') throw new ConnectDataError('Array schema did not specify the element type');
    schema = new ConnectSchema(type, optional, { ...meta, valueSchema: readSchema(items) });
  } else if (type === 'map') {
    const keys = get('keys');
    if (keys === undefined) throw new ConnectDataError('Map schema did not specify the key type');
    const values = get('values');
    if (values === undefined) throw new ConnectDataError('Map schema did not specify the value type');
    schema = new ConnectSchema(type, optional, { ...meta, keySchema: readSchema(keys), valueSchema: readSchema(values) });
  } else {
    schema = new ConnectSchema(type, optional, meta);
  }
  const defaultNode = get('default');
  if (defaultNode === undefined) return schema;
  if (type === 'struct') throw new ConnectDataError('Invalid default value');
  const defaultValue = toConnect(schema, defaultNode);
  try {
    validateValue(undefined, schema, defaultValue);
  } catch {
    throw new ConnectDataError('Invalid default value');
  }
  return new ConnectSchema(type, optional, { ...schema.meta, defaultValue });
}

function readParameters(node: JsonNode | undefined): ReadonlyMap<string, string> | undefined {
  if (node?.kind !== 'object') return undefined;
  const parameters = new Map<string, string>();
  for (const [key, value] of node.fields) {
    if (value.kind !== 'string') throw new ConnectDataError('Schema parameters must have string values.');
    parameters.set(key, value.value);
  }
  return parameters;
}

/** `convertToConnect(schema, node)`; `undefined` is a field the payload lacks. */
export function toConnect(schema: ConnectSchema, node: JsonNode | undefined): ConnectValue {
  if (node === undefined || node.kind === 'null') {
    const fallback = schema.meta.defaultValue;
    if (fallback !== undefined && fallback !== null) return fallback;
    if (schema.optional) return null;
    throw new ConnectDataError(`Invalid null value for required ${schema.type.toUpperCase()} field`);
  }
  switch (schema.name) {
    case DECIMAL:
      return decimal(schema, node);
    case DATE:
      if (!isInt(node)) throw new ConnectDataError(`Invalid type for Date, underlying representation should be integer but was ${nodeType(node)}`);
      return new ConnectDate(Number(node.text) * MILLIS_PER_DAY);
    case TIME: {
      if (!isInt(node)) throw new ConnectDataError(`Invalid type for Time, underlying representation should be integer but was ${nodeType(node)}`);
      const ms = Number(node.text);
      if (ms < 0 || ms > MILLIS_PER_DAY) throw new ConnectDataError('Time values must use number of milliseconds greater than 0 and less than 86400000');
      return new ConnectDate(ms);
    }
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
      const bits = { int8: 8, int16: 16, int32: 32, int64: 64 }[schema.type];
      const long = number === undefined ? 0n : integralBits(number, bits === 64 ? 64 : 32);
      return new ConnectInt(schema.type, BigInt.asIntN(bits, long));
    }
    case 'float32':
      return new ConnectFloat('float32', number === undefined ? 0 : Math.fround(Number(number.text)) || 0);
    case 'float64':
      return new ConnectFloat('float64', number === undefined ? 0 : Number(number.text) || 0);
    case 'bytes':
      if (node.kind !== 'string') return null;
      return base64(node.value, 'Invalid bytes field');
    case 'string':
      return node.kind === 'string' ? node.value : null;
    case 'array': {
      const items = node.kind === 'array' ? node.items : node.kind === 'object' ? [...node.fields.values()] : [];
      return items.map((item) => toConnect(schema.meta.valueSchema!, item));
    }
    case 'map': {
      if (schema.meta.keySchema!.type !== 'string') {
        throw new ConnectDataError('Maps whose keys are not strings (JSON arrays of pairs) are not read by mirrorflow: give the map string keys');
      }
      if (node.kind !== 'object') throw new ConnectDataError(`Maps with string fields should be encoded as JSON objects, but found ${nodeType(node)}`);
      const map = JavaHashMap.create<ConnectValue>();
      for (const [key, value] of node.fields) map.set(key, toConnect(schema.meta.valueSchema!, value));
      return map;
    }
    case 'struct': {
      if (node.kind !== 'object') throw new ConnectDataError(`Structs should be encoded as JSON objects, but found ${nodeType(node)}`);
      const struct = new Struct(schema);
      for (const field of schema.fields) put(struct, field.name, toConnect(field.schema, node.fields.get(field.name)));
      return struct;
    }
  }
}

function isInt(node: JsonNode): node is JsonNode & { kind: 'number'; text: string; integral: true } {
  return node.kind === 'number' && node.integral && BigInt.asIntN(32, BigInt(node.text)) === BigInt(node.text);
}

/** A Decimal as JsonConverter reads it: a JSON number, or the base64 of its unscaled two's complement with the schema's scale. */
export function decimal(schema: ConnectSchema, node: JsonNode): ConnectDecimal {
  if (node.kind === 'number') {
    const { unscaled, scale } = decimalOf(node.text);
    return new ConnectDecimal(unscaled, scale);
  }
  if (node.kind !== 'string') {
    throw new ConnectDataError(`Invalid type for Decimal, underlying representation should be numeric or bytes but was ${nodeType(node)}`);
  }
  const scaleText = schema.meta.parameters?.get('scale');
  const bytes = base64(node.value, 'Invalid bytes for Decimal field');
  if (scaleText === undefined || !/^[+-]?\d+$/.test(scaleText) || bytes.length === 0) throw new ConnectDataError('Invalid bytes for Decimal field');
  return new ConnectDecimal(BigInt.asIntN(bytes.length * 8, BigInt(`0x${bytes.toString('hex')}`)), Number(scaleText));
}

export function base64(text: string, failure: string): Buffer {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new ConnectDataError(failure);
  return Buffer.from(text, 'base64');
}
