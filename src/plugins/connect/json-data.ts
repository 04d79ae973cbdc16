/**
 * Connect's JsonConverter with `schemas.enable=false`, both ways, as a pure function of bytes:
 *
 * - reading (Jackson's tree, then `convertToConnect` without a schema): objects become HashMaps
 *   (JavaHashMap), integral numbers Long (int64, wrapped to 64 bits as `longValue()` does),
 *   other numbers Double (read exactly, then rounded: `-0.0` is `0.0`), and null or empty bytes
 *   are a null value. Only the first JSON value counts; what follows it is ignored, as Jackson's
 *   `readTree` ignores it.
 * - writing (`convertToJson`, then Jackson's generator): no whitespace, maps in their iteration
 *   order, Double and Float as Java prints them, NaN and infinities as quoted strings, byte
 *   arrays as base64, control characters and surrogates escaped as `\uXXXX` (upper-case hex) but
 *   for `\b \t \n \f \r`, and a null value as no bytes at all (a tombstone).
 */
import { ConnectFloat, ConnectInt, JavaHashMap, SchemaAndValue, type ConnectValue } from './connect-value';
import { jsonText, typedJsonText } from './json-write';
import { integralBits, parseJsonBytes, type JsonNode } from './json-tree';

/** `JsonConverter.toConnectData` (schemaless). Throws ConnectDataError, naming the byte offset, for bytes that are not JSON. */
export function readJson(bytes: Buffer | null): ConnectValue {
  if (bytes === null || bytes.length === 0) return null;
  const node = parseJsonBytes(bytes);
  return node === undefined ? null : schemalessValue(node);
}

/** `convertToConnect` without a schema: objects HashMaps, integral numbers Long, others Double. */
export function schemalessValue(node: JsonNode): ConnectValue {
  switch (node.kind) {
    case 'null':
      return null;
    case 'boolean':
    case 'string':
      return node.value;
    case 'number':
      if (node.integral) return new ConnectInt('int64', integralBits(node, 64));
      return new ConnectFloat('float64', Number(node.text) || 0);
    case 'array':
      return node.items.map(schemalessValue);
    case 'object':
      return JavaHashMap.of([...node.fields].map(([key, field]) => [key, schemalessValue(field)] as const));
  }
}

/** `JsonConverter.fromConnectData` (schemaless): null for a null value. */
export function writeJson(value: ConnectValue): Buffer | null {
  if (value === null) return null;
  // Data with a schema (a transform gave it one) is written by it, without the envelope.
  if (value instanceof SchemaAndValue) return Buffer.from(typedJsonText(value.schema, value.value), 'utf8');
  return Buffer.from(jsonText(value), 'utf8');
}
