/**
 * A flow's converters: how a record's key or value is turned into Connect data for field-level
 * transforms, and back. `bytes` (Connect's ByteArrayConverter, MM2's default) leaves them as
 * bytes, which no field-level transform can read; `string` is Connect's StringConverter (UTF-8);
 * `json` is JsonConverter with `schemas.enable=false` (json-data.ts).
 */
import { ConnectDataError, ConnectFloat, ConnectInt, JavaHashMap, type ConnectValue } from './connect-value';
import { readJson, writeJson } from './json-data';
import { javaDoubleToString, javaFloatToString } from './java-number-format';

export const CONVERTER_NAMES = ['bytes', 'string', 'json'] as const;
export type ConverterName = (typeof CONVERTER_NAMES)[number];

export interface FlowConverters {
  readonly key: ConverterName;
  readonly value: ConverterName;
}

export const BYTES_CONVERTERS: FlowConverters = { key: 'bytes', value: 'bytes' };

export interface DataConverter {
  read(bytes: Buffer | null): ConnectValue;
  write(value: ConnectValue): Buffer | null;
}

const stringConverter: DataConverter = {
  // Java's new String(bytes, UTF_8): malformed input becomes U+FFFD, as Buffer#toString does.
  read: (bytes) => (bytes === null ? null : bytes.toString('utf8')),
  write: (value) => (value === null ? null : Buffer.from(javaToString(value), 'utf8')),
};

const jsonConverter: DataConverter = { read: readJson, write: writeJson };

/** The converter for a side; undefined for `bytes`. */
export function dataConverter(name: ConverterName): DataConverter | undefined {
  return name === 'string' ? stringConverter : name === 'json' ? jsonConverter : undefined;
}

/** Java's `toString()` of a value, which StringConverter writes. */
export function javaToString(value: ConnectValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (value instanceof ConnectInt) return value.value.toString();
  if (value instanceof ConnectFloat) return value.type === 'float32' ? javaFloatToString(value.value) : javaDoubleToString(value.value);
  if (value instanceof JavaHashMap) return `{${[...value].map(([k, v]) => `${k}=${javaToString(v)}`).join(', ')}}`;
  if (Buffer.isBuffer(value)) throw new ConnectDataError('StringConverter cannot write a byte array');
  return `[${value.map((element) => javaToString(element)).join(', ')}]`;
}
