/**
 * Protobuf messages (as @bufbuild/protobuf's reflection reads and writes them) ↔ Connect data,
 * typed by the Connect schema protobuf-schema.ts made of the message, as ProtobufData converts
 * them: a message is a Struct; a proto3 field without presence is always there (its default when
 * the bytes do not carry it: 0, "", false, empty bytes, the enum's first value), a message field
 * or one with presence (proto3 `optional`, proto2 `optional`) only when set; a repeated field is a
 * list (empty when unset), a map a HashMap, an enum its value's name, a oneof a union struct with
 * the member that is set, google.protobuf.Timestamp a java.util.Date of its milliseconds. uint32
 * and fixed32 are read unsigned into an int64; uint64 and fixed64 as Java's long of the same 64
 * bits (2^64 - 1 is -1), as ProtobufData reads them.
 *
 * Written back as ProtobufData writes: null, and an empty list, leave the field unset; an enum is
 * written as the number its schema's `…Enum.<name>` parameter gives.
 */
import * as protobuf from '@bufbuild/protobuf';
import * as reflection from '@bufbuild/protobuf/reflect';
import * as wkt from '@bufbuild/protobuf/wkt';
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import type { ReflectList, ReflectMap, ReflectMessage } from '@bufbuild/protobuf/reflect';
import { ConnectDataError, ConnectDate, ConnectFloat, ConnectInt, JavaHashMap, Struct, type ConnectSchema, type ConnectValue } from './connect-value';
import { TIMESTAMP } from './connect-schema';
import { ENUM_PARAMETER, TIMESTAMP_TYPE, UNION_PREFIX } from './protobuf-schema';

// Read once: a package's exports are getters, which the per-field code would call each time.
const ScalarType = protobuf.ScalarType;
const createMessage = protobuf.create;
const reflect = reflection.reflect;
const EXPLICIT = wkt.FeatureSet_FieldPresence.EXPLICIT;
const UINT32_MAX = 0xffff_ffff;

/** A decoded message → the Struct of `schema` (its toConnectSchema). */
export function messageToConnect(schema: ConnectSchema, message: ReflectMessage): Struct {
  const struct = new Struct(schema);
  const { desc } = message;
  desc.oneofs.forEach((oneof) => {
    const set = message.oneofCase(oneof);
    if (set === undefined) return;
    const unionField = schema.fields.find((f) => f.schema.name === `${UNION_PREFIX}${oneof.name}`)!;
    const union = new Struct(unionField.schema);
    const member = unionField.schema.field(set.name)!;
    union.values[member.index] = fieldToConnect(member.schema, set, message.get(set));
    struct.values[unionField.index] = union;
  });
  for (const field of desc.fields) {
    if (field.oneof !== undefined) continue;
    const always = field.fieldKind === 'list' || field.fieldKind === 'map' || (field.fieldKind !== 'message' && field.presence !== EXPLICIT);
    if (!always && !message.isSet(field)) continue;
    const target = schema.field(field.name)!;
    struct.values[target.index] = fieldToConnect(target.schema, field, message.get(field));
  }
  return struct;
}

function fieldToConnect(schema: ConnectSchema, field: DescField, value: unknown): ConnectValue {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarToConnect(field.scalar, value);
    case 'enum':
      return enumName(field, value as number);
    case 'message':
      return messageValueToConnect(schema, value as ReflectMessage);
    case 'list': {
      const element = schema.meta.valueSchema!;
      return [...(value as ReflectList)].map((item) =>
        field.listKind === 'scalar'
          ? scalarToConnect(field.scalar, item)
          : field.listKind === 'enum'
            ? enumName(field, item as number)
            : messageValueToConnect(element, item as ReflectMessage),
      );
    }
    case 'map': {
      const map = JavaHashMap.create<ConnectValue>();
      const element = schema.meta.valueSchema!;
      for (const [key, item] of value as ReflectMap) {
        const converted =
          field.mapKind === 'scalar'
            ? scalarToConnect(field.scalar, item)
            : field.mapKind === 'enum'
              ? enumName(field, item as number)
              : messageValueToConnect(element, item as ReflectMessage);
        map.set(String(key), converted);
      }
      return map;
    }
  }
}

function messageValueToConnect(schema: ConnectSchema, message: ReflectMessage): ConnectValue {
  if (schema.name === TIMESTAMP && message.desc.typeName === TIMESTAMP_TYPE) {
    const seconds = message.get(message.desc.field['seconds']!) as bigint;
    const nanos = message.get(message.desc.field['nanos']!) as number;
    // Timestamps.toMillis: seconds × 1000 + nanos / 10^6 (nanos are never negative).
    return new ConnectDate(Number(seconds * 1000n + BigInt(Math.trunc(nanos / 1_000_000))));
  }
  return messageToConnect(schema, message);
}

function enumName(field: DescField, number: number): string {
  const type = field.enum!;
  const value = type.value[number];
  if (value === undefined) throw new ConnectDataError(`its enum field ${field.name} holds ${number}, which is no value of ${type.typeName}`);
  return value.name;
}

function scalarToConnect(scalar: protobuf.ScalarType, value: unknown): ConnectValue {
  switch (scalar) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return new ConnectInt('int32', BigInt(value as number));
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return new ConnectInt('int64', BigInt(value as number));
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return new ConnectInt('int64', BigInt.asIntN(64, BigInt(value as bigint | string)));
    case ScalarType.FLOAT:
      return new ConnectFloat('float32', value as number);
    case ScalarType.DOUBLE:
      return new ConnectFloat('float64', value as number);
    case ScalarType.BOOL:
      return value as boolean;
    case ScalarType.STRING:
      return value as string;
    case ScalarType.BYTES:
      return Buffer.from(value as Uint8Array);
  }
}

/** The Struct of `schema` → a message of `desc` (the message fromConnectSchema made of `schema`). */
export function connectToMessage(desc: DescMessage, schema: ConnectSchema, struct: Struct): ReflectMessage {
  const message = reflect(desc, createMessage(desc));
  for (const field of schema.fields) {
    const value = struct.get(field.name);
    if (value === null) continue;
    if (field.schema.type === 'struct' && field.schema.name?.startsWith(UNION_PREFIX) === true) {
      const union = value as Struct;
      const member = field.schema.fields.find((m) => union.get(m.name) !== null);
      if (member === undefined) throw new ConnectDataError(`the union ${field.name} has no member set`);
      setField(message, desc.field[member.name]!, member.schema, union.get(member.name));
      continue;
    }
    setField(message, desc.field[field.name]!, field.schema, value);
  }
  return message;
}

function setField(message: ReflectMessage, field: DescField, schema: ConnectSchema, value: ConnectValue): void {
  switch (field.fieldKind) {
    case 'scalar':
      message.set(field, scalarFromConnect(field.scalar, value, field.name));
      return;
    case 'enum':
      message.set(field, enumNumber(schema, value, field.name));
      return;
    case 'message':
      message.set(field, messageFromConnect(field.message, schema, value, field.name));
      return;
    case 'list': {
      const items = value as readonly ConnectValue[];
      if (items.length === 0) return;
      const list = message.get(field);
      const element = schema.meta.valueSchema!;
      for (const item of items) {
        if (item === null) throw new ConnectDataError(`the repeated field ${field.name} holds a null, which Protobuf cannot write`);
        list.add(
          field.listKind === 'scalar'
            ? scalarFromConnect(field.scalar, item, field.name)
            : field.listKind === 'enum'
              ? enumNumber(element, item, field.name)
              : messageFromConnect(field.message, element, item, field.name),
        );
      }
      return;
    }
    case 'map': {
      const map = message.get(field);
      const element = schema.meta.valueSchema!;
      for (const [key, item] of value as JavaHashMap<ConnectValue>) {
        if (item === null) throw new ConnectDataError(`the map field ${field.name} holds a null value, which Protobuf cannot write`);
        map.set(
          key,
          field.mapKind === 'scalar'
            ? scalarFromConnect(field.scalar, item, field.name)
            : field.mapKind === 'enum'
              ? enumNumber(element, item, field.name)
              : messageFromConnect(field.message, element, item, field.name),
        );
      }
      return;
    }
  }
}

function messageFromConnect(desc: DescMessage, schema: ConnectSchema, value: ConnectValue, name: string): ReflectMessage {
  if (desc.typeName === TIMESTAMP_TYPE) {
    if (!(value instanceof ConnectDate)) throw mismatch(name);
    const message = reflect(desc, createMessage(desc));
    const ms = BigInt(value.epochMs);
    // Timestamps.fromMillis: whole seconds rounded down, the rest as nanos.
    const seconds = ms >= 0n ? ms / 1000n : -((-ms + 999n) / 1000n);
    message.set(desc.field['seconds']!, seconds);
    message.set(desc.field['nanos']!, Number(ms - seconds * 1000n) * 1_000_000);
    return message;
  }
  if (!(value instanceof Struct)) throw mismatch(name);
  return connectToMessage(desc, schema, value);
}

function enumNumber(schema: ConnectSchema, value: ConnectValue, name: string): number {
  if (typeof value !== 'string') throw mismatch(name);
  const number = schema.meta.parameters?.get(`${ENUM_PARAMETER}.${value}`);
  if (number === undefined) throw new ConnectDataError(`the enum field ${name} holds a name its schema has no value for`);
  return Number.parseInt(number, 10);
}

function scalarFromConnect(scalar: protobuf.ScalarType, value: ConnectValue, name: string): unknown {
  switch (scalar) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return Number(integer(value, 'int32', name));
    case ScalarType.UINT32:
    case ScalarType.FIXED32: {
      const n = integer(value, 'int64', name);
      if (n < 0n || n > BigInt(UINT32_MAX)) throw new ConnectDataError(`the field ${name} holds a value a ${scalarName(scalar)} cannot hold`);
      return Number(n);
    }
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return integer(value, 'int64', name);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return BigInt.asUintN(64, integer(value, 'int64', name));
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      if (!(value instanceof ConnectFloat) || value.type !== (scalar === ScalarType.FLOAT ? 'float32' : 'float64')) throw mismatch(name);
      return value.value;
    case ScalarType.BOOL:
      if (typeof value !== 'boolean') throw mismatch(name);
      return value;
    case ScalarType.STRING:
      if (typeof value !== 'string') throw mismatch(name);
      return value;
    case ScalarType.BYTES:
      if (!Buffer.isBuffer(value)) throw mismatch(name);
      return value;
  }
}

function integer(value: ConnectValue, type: 'int32' | 'int64', name: string): bigint {
  if (!(value instanceof ConnectInt) || value.type !== type) throw mismatch(name);
  return value.value;
}

function scalarName(scalar: protobuf.ScalarType): string {
  return scalar === ScalarType.UINT32 ? 'uint32' : 'fixed32';
}

function mismatch(name: string): ConnectDataError {
  return new ConnectDataError(`the protobuf converter got data for the field ${name} that does not fit its schema`);
}
