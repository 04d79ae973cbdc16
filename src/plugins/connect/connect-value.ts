/**
 * Kafka Connect's data as a converter gives it to a field-level transform: schemaless, what
 * Connect's JsonConverter (schemas.enable=false) and StringConverter hand to SMTs, with the Java
 * types that decide how a value is written back (an int64 `1` is written `1`, a float64 `1` is
 * written `1.0`); or with a schema (JsonConverter's `{schema, payload}` envelope), a
 * `SchemaAndValue` whose value is typed by its `ConnectSchema`: a `Struct` for a struct, and the
 * logical types Decimal (`ConnectDecimal`), Date, Time and Timestamp (`ConnectDate`, Java's
 * java.util.Date).
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

/** Java's BigDecimal (Connect's Decimal logical type): unscaled × 10^-scale. */
export class ConnectDecimal {
  constructor(
    readonly unscaled: bigint,
    readonly scale: number,
  ) {}
}

/** Java's java.util.Date (Connect's Date, Time and Timestamp logical types): epoch milliseconds. */
export class ConnectDate {
  constructor(readonly epochMs: number) {}
}

export type SchemaType = 'int8' | 'int16' | 'int32' | 'int64' | 'float32' | 'float64' | 'boolean' | 'string' | 'bytes' | 'array' | 'map' | 'struct';

export interface ConnectField {
  readonly name: string;
  readonly index: number;
  readonly schema: ConnectSchema;
}

/** Connect's `ConnectSchema`: a type with its metadata; built and compared in connect-schema.ts. */
export class ConnectSchema {
  constructor(
    readonly type: SchemaType,
    readonly optional: boolean,
    readonly meta: {
      readonly name?: string | undefined;
      readonly version?: number | undefined;
      readonly doc?: string | undefined;
      /** In their order (SchemaBuilder keeps a LinkedHashMap). */
      readonly parameters?: ReadonlyMap<string, string> | undefined;
      /** Java's null when undefined. */
      readonly defaultValue?: ConnectValue | undefined;
      readonly fields?: readonly ConnectField[] | undefined;
      readonly keySchema?: ConnectSchema | undefined;
      readonly valueSchema?: ConnectSchema | undefined;
    } = {},
  ) {}

  get name(): string | undefined {
    return this.meta.name;
  }

  get fields(): readonly ConnectField[] {
    return this.meta.fields ?? [];
  }

  field(name: string): ConnectField | undefined {
    return this.meta.fields?.find((f) => f.name === name);
  }
}

/** Connect's Struct: values by field of its schema (null where none was put). */
export class Struct {
  readonly values: ConnectValue[];

  constructor(readonly schema: ConnectSchema) {
    this.values = schema.fields.map(() => null);
  }

  /** `Struct.get(name)`: the value, or the field's default when the value is null. */
  get(name: string): ConnectValue {
    const field = this.requireField(name);
    return this.values[field.index] ?? field.schema.meta.defaultValue ?? null;
  }

  getWithoutDefault(name: string): ConnectValue {
    return this.values[this.requireField(name).index] ?? null;
  }

  requireField(name: string): ConnectField {
    const field = this.schema.field(name);
    if (field === undefined) throw new ConnectDataError(`${name} is not a valid field name`);
    return field;
  }
}

/** A key or value read with its schema (Connect's record `keySchema()`/`valueSchema()` with the data). */
export class SchemaAndValue {
  constructor(
    readonly schema: ConnectSchema,
    readonly value: ConnectValue,
  ) {}
}

/** null, Boolean, String, byte[], a number, List, Map (Connect's schemaless struct), Struct, BigDecimal, Date, or data with its schema. */
export type ConnectValue =
  null | boolean | string | Buffer | ConnectInt | ConnectFloat | readonly ConnectValue[] | ConnectMap | Struct | ConnectDecimal | ConnectDate | SchemaAndValue;

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
  if (value instanceof JavaHashMap) return value.linked ? 'java.util.LinkedHashMap' : 'java.util.HashMap';
  if (value instanceof Struct) return 'org.apache.kafka.connect.data.Struct';
  if (value instanceof ConnectDecimal) return 'java.math.BigDecimal';
  if (value instanceof ConnectDate) return 'java.util.Date';
  if (value instanceof SchemaAndValue) return javaClassName(value.value);
  return 'java.util.ArrayList';
}

/** Connect's `Requirements.requireMap`: the map of a schemaless value, or Connect's DataException message. */
export function requireMap(value: ConnectValue, purpose: string): ConnectMap {
  if (value instanceof JavaHashMap) return value;
  requireSchemaless(value, purpose);
  throw new ConnectDataError(`Only Map objects supported in absence of schema for [${purpose}], found: ${javaClassName(value)}`);
}

/** For the transforms that read schemaless data only: a refusal of data with a schema (json_envelope). */
export function requireSchemaless(value: ConnectValue, purpose: string): void {
  if (value instanceof SchemaAndValue) {
    throw new ConnectDataError(`mirrorflow's [${purpose}] reads data without a schema only, and this has one (the flow's converter is json_envelope)`);
  }
}

/** Connect's `Requirements.requireStruct`. */
export function requireStruct(value: ConnectValue, purpose: string): Struct {
  if (value instanceof Struct) return value;
  throw new ConnectDataError(`Only Struct objects supported for [${purpose}], found: ${javaClassName(value)}`);
}

/** Connect's DataException: a record this transform cannot handle. Its message never quotes record data. */
export class ConnectDataError extends Error {
  override readonly name = 'ConnectDataError';
}
