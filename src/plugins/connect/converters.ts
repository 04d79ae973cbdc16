/**
 * A flow's converters: how a record's key or value is turned into Connect data for field-level
 * transforms, and back. `bytes` (Connect's ByteArrayConverter, MM2's default) leaves them as
 * bytes, which no field-level transform can read; `string` is Connect's StringConverter (UTF-8);
 * `json` is JsonConverter with `schemas.enable=false` (json-data.ts), `json_envelope` JsonConverter
 * with `schemas.enable=true`, Connect's default: the `{schema, payload}` envelope (json-envelope.ts);
 * `avro` is Confluent's AvroConverter (avro-converter.ts), `json_schema` its JsonSchemaConverter
 * (json-schema-converter.ts) and `protobuf` its ProtobufConverter (protobuf-converter.ts), which
 * need the flow's Schema Registry and so a flow's own instance (a RegistryConverter,
 * registry-converter.ts).
 */
import {
  ConnectDataError,
  ConnectDate,
  ConnectDecimal,
  ConnectFloat,
  ConnectInt,
  JavaHashMap,
  SchemaAndValue,
  Struct,
  type ConnectValue,
} from './connect-value';
import { readJson, writeJson } from './json-data';
import { readEnvelope, writeEnvelope } from './json-envelope';
import { javaDoubleToString, javaFloatToString } from './java-number-format';
import type { RegistryConverter, RegistryConverters } from './registry-converter';

/** The converters that need no Schema Registry (what `mirrorflow test` and the plugin contract run). */
export const REGISTRY_FREE_CONVERTER_NAMES = ['bytes', 'string', 'json', 'json_envelope'] as const;
/** The converters of Confluent's wire format, each a RegistryConverter the flow makes. */
export const REGISTRY_CONVERTER_NAMES = ['avro', 'json_schema', 'protobuf'] as const;
export const CONVERTER_NAMES = [...REGISTRY_FREE_CONVERTER_NAMES, ...REGISTRY_CONVERTER_NAMES] as const;
export type ConverterName = (typeof CONVERTER_NAMES)[number];
export type RegistryConverterName = (typeof REGISTRY_CONVERTER_NAMES)[number];

export function isRegistryConverterName(name: string): name is RegistryConverterName {
  return (REGISTRY_CONVERTER_NAMES as readonly string[]).includes(name);
}

export interface FlowConverters {
  readonly key: ConverterName;
  readonly value: ConverterName;
  /** The flow's registry-backed converters of the sides that have one (they hold the schemas of the flow's registries). */
  readonly registry?: RegistryConverters;
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
const envelopeConverter: DataConverter = { read: readEnvelope, write: writeEnvelope };

/** The converter for a side; undefined for `bytes`, and for a registry converter the flow has not made (`registry`: the side's). */
export function dataConverter(name: ConverterName, registry?: RegistryConverter): DataConverter | undefined {
  if (isRegistryConverterName(name)) return registry?.name === name ? registry : undefined;
  return name === 'string' ? stringConverter : name === 'json' ? jsonConverter : name === 'json_envelope' ? envelopeConverter : undefined;
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
  if (value instanceof SchemaAndValue) return javaToString(value.value);
  if (value instanceof Struct) {
    const set = value.schema.fields.filter((field) => value.values[field.index] !== null);
    return `Struct{${set.map((field) => `${field.name}=${javaToString(value.values[field.index]!)}`).join(',')}}`;
  }
  if (value instanceof ConnectDecimal) return bigDecimalToString(value);
  if (value instanceof ConnectDate)
    throw new ConnectDataError("StringConverter cannot write a java.util.Date: Java's text of it depends on the JVM's time zone");
  return `[${value.map((element) => javaToString(element)).join(', ')}]`;
}

/** `BigDecimal.toString()`: plain, or scientific when the scale is negative or the exponent below -6. */
export function bigDecimalToString({ unscaled, scale }: ConnectDecimal): string {
  const sign = unscaled < 0n ? '-' : '';
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString();
  const adjusted = digits.length - 1 - scale;
  if (scale >= 0 && adjusted >= -6) {
    if (scale === 0) return sign + digits;
    const padded = digits.padStart(scale + 1, '0');
    return `${sign}${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
}
