/**
 * Kafka Connect's data, schemaless, as a converter gives it to a field-level transform: what
 * Connect's JsonConverter (schemas.enable=false) and StringConverter hand to SMTs, with the Java
 * types that decide how a value is written back (an int64 `1` is written `1`, a float64 `1` is
 * written `1.0`).
 */
import { JavaHashMap } from './java-hash-map';

export type IntType = 'int8' | 'int16' | 'int32' | 'int64';
export type FloatType = 'float32' | 'float64';

/** Java's Byte, Short, Integer or Long. */
export class ConnectInt {
  constructor(
    readonly type: IntType,
    readonly value: bigint,
  ) {}
}

/** Java's Float or Double. */
export class ConnectFloat {
  constructor(
    readonly type: FloatType,
    readonly value: number,
  ) {}
}

/** null, Boolean, String, byte[], a number, List, or Map (Connect's schemaless struct). */
export type ConnectValue = null | boolean | string | Buffer | ConnectInt | ConnectFloat | readonly ConnectValue[] | ConnectMap;

/** A schemaless struct: Java's HashMap of field names to values. */
export type ConnectMap = JavaHashMap<ConnectValue>;

export { JavaHashMap };

/** Java's class name of a value, as Connect's messages give it. */
export function javaClassName(value: ConnectValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'java.lang.Boolean';
  if (typeof value === 'string') return 'java.lang.String';
  if (Buffer.isBuffer(value)) return '[B';
  if (value instanceof ConnectInt) return { int8: 'java.lang.Byte', int16: 'java.lang.Short', int32: 'java.lang.Integer', int64: 'java.lang.Long' }[value.type];
  if (value instanceof ConnectFloat) return value.type === 'float32' ? 'java.lang.Float' : 'java.lang.Double';
  if (value instanceof JavaHashMap) return 'java.util.HashMap';
  return 'java.util.ArrayList';
}

/** Connect's `Requirements.requireMap`: the map of a schemaless value, or Connect's DataException message. */
export function requireMap(value: ConnectValue, purpose: string): ConnectMap {
  if (value instanceof JavaHashMap) return value;
  throw new ConnectDataError(`Only Map objects supported in absence of schema for [${purpose}], found: ${javaClassName(value)}`);
}

/** Connect's DataException: a record this transform cannot handle. Its message never quotes record data. */
export class ConnectDataError extends Error {
  override readonly name = 'ConnectDataError';
}
