/**
 * Protobuf messages in Connect terms, both ways, as Confluent's ProtobufConverter (its
 * `ProtobufData`, default settings) sees them.
 *
 * Protobuf → Connect (`toConnectSchema`): a message is a struct named by the message's name (not
 * its full name: `enhanced.protobuf.schema.support` is off by default); every field is optional
 * and carries its number in the parameter `io.confluent.connect.protobuf.Tag`. int32, sint32 and
 * sfixed32 are int32; int64, sint64, sfixed64, uint32, fixed32, uint64 and fixed64 are int64 (a
 * type other than int32 / int64 named in `io.confluent.connect.protobuf.Type`); float float32,
 * double float64; bool, string, bytes. An enum is a string named by the enum, with the parameters
 * `io.confluent.connect.protobuf.Enum` (its name) and `io.confluent.connect.protobuf.Enum.<symbol>`
 * (each value's number). A repeated field is an array of optional elements, a map field a map
 * named by its entry message (`TagsEntry` → `tags`; string keys only, as mirrorflow's Connect maps
 * are), a message field a struct,
 * google.protobuf.Timestamp Connect's Timestamp. A oneof is a field `<oneof>_<index>` (its index
 * among the message's oneofs; before the other fields) holding an optional struct named
 * `io.confluent.connect.protobuf.Union.<oneof>` with one field per member. The wrapper types
 * (google.protobuf.StringValue, …) are structs with their one field `value`, as with
 * `wrapper.for.nullables` off, the default.
 *
 * Connect → Protobuf (`fromConnectSchema`), as `ProtobufData.fromConnectSchema` writes: a proto3
 * file whose package and first message come from the struct's name (an unnamed struct is
 * `ConnectDefault1`, the next ones `ConnectDefault2`, …); a field's number is its `Tag`, else the
 * next number not taken in its message (ProtobufData counts from 1 and may take a number a
 * tagged field has: a field a transform added then makes an invalid file there, and a valid one
 * here); nested structs, enums and map entries are declared inside the message that uses them;
 * an optional field is a plain proto3 field (no `optional`), so null is written as the field's
 * default, as ProtobufData does.
 *
 * Refused, with a message saying so: recursive messages, a wrapper type as the whole value,
 * groups; writing Decimal, Date, Time (ProtobufData writes them as confluent.type.Decimal,
 * google.type.Date / TimeOfDay, files this converter does not have), int8 and int16 (written with
 * a `confluent/meta.proto` option), arrays of arrays or maps, maps with other than string keys,
 * and names that are not Protobuf identifiers (`scrub.invalid.names` is off by default).
 */
import { create, ScalarType, type DescEnum, type DescField, type DescMessage, type DescOneof } from '@bufbuild/protobuf';
import {
  DescriptorProtoSchema,
  EnumDescriptorProtoSchema,
  FieldDescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as FieldType,
  FileDescriptorProtoSchema,
  OneofDescriptorProtoSchema,
  type DescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { ConnectDataError, ConnectSchema, type ConnectField } from './connect-value';
import { DATE, DECIMAL, TIME, TIMESTAMP } from './connect-schema';

const NAMESPACE = 'io.confluent.connect.protobuf';
export const TAG_PARAMETER = `${NAMESPACE}.Tag`;
export const TYPE_PARAMETER = `${NAMESPACE}.Type`;
export const ENUM_PARAMETER = `${NAMESPACE}.Enum`;
export const UNION_PREFIX = `${NAMESPACE}.Union.`;
export const TIMESTAMP_TYPE = 'google.protobuf.Timestamp';
const TIMESTAMP_FILE = 'google/protobuf/timestamp.proto';
const DEFAULT_NAME = 'ConnectDefault';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Protobuf's name of each scalar type. */
export const SCALAR_NAMES: Readonly<Record<ScalarType, string>> = {
  [ScalarType.DOUBLE]: 'double',
  [ScalarType.FLOAT]: 'float',
  [ScalarType.INT64]: 'int64',
  [ScalarType.UINT64]: 'uint64',
  [ScalarType.INT32]: 'int32',
  [ScalarType.FIXED64]: 'fixed64',
  [ScalarType.FIXED32]: 'fixed32',
  [ScalarType.BOOL]: 'bool',
  [ScalarType.STRING]: 'string',
  [ScalarType.BYTES]: 'bytes',
  [ScalarType.UINT32]: 'uint32',
  [ScalarType.SFIXED32]: 'sfixed32',
  [ScalarType.SFIXED64]: 'sfixed64',
  [ScalarType.SINT32]: 'sint32',
  [ScalarType.SINT64]: 'sint64',
};
const FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  int32: FieldType.INT32,
  sint32: FieldType.SINT32,
  sfixed32: FieldType.SFIXED32,
  int64: FieldType.INT64,
  sint64: FieldType.SINT64,
  sfixed64: FieldType.SFIXED64,
  uint32: FieldType.UINT32,
  fixed32: FieldType.FIXED32,
  uint64: FieldType.UINT64,
  fixed64: FieldType.FIXED64,
};
const INT32_TYPES = new Set(['int32', 'sint32', 'sfixed32']);
const INT64_TYPES = new Set(['int64', 'sint64', 'sfixed64', 'uint32', 'fixed32', 'uint64', 'fixed64']);
const WRAPPERS = new Set(['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map((w) => `google.protobuf.${w}Value`));

/** The Connect schema of a message (the whole key or value). */
export function toConnectSchema(message: DescMessage): ConnectSchema {
  if (WRAPPERS.has(message.typeName)) {
    throw new ConnectDataError(`its message is ${message.typeName}, a wrapper type as the whole value, which the protobuf converter does not read`);
  }
  return structOf(message, false, new Set());
}

function structOf(message: DescMessage, optional: boolean, path: ReadonlySet<string>, parameters?: Map<string, string>): ConnectSchema {
  if (path.has(message.typeName)) throw new ConnectDataError(`its message ${message.typeName} contains itself: recursive messages have no Connect form here`);
  const inside = new Set([...path, message.typeName]);
  const fields: [string, ConnectSchema][] = [];
  for (const oneof of message.oneofs) fields.push([`${oneof.name}_${oneofIndex(message, oneof)}`, unionOf(oneof, inside)]);
  for (const field of message.fields) if (field.oneof === undefined) fields.push([field.name, fieldSchema(field, inside)]);
  return new ConnectSchema('struct', optional, {
    name: message.name,
    fields: fields.map(([name, schema], index): ConnectField => ({ name, index, schema })),
    parameters,
  });
}

function oneofIndex(message: DescMessage, oneof: DescOneof): number {
  return message.proto.oneofDecl.findIndex((decl) => decl.name === oneof.name);
}

function unionOf(oneof: DescOneof, path: ReadonlySet<string>): ConnectSchema {
  const fields = oneof.fields.map((field, index): ConnectField => ({ name: field.name, index, schema: fieldSchema(field, path) }));
  return new ConnectSchema('struct', true, { name: `${UNION_PREFIX}${oneof.name}`, fields });
}

/** A field's schema: optional, with its number in the Tag parameter. */
function fieldSchema(field: DescField, path: ReadonlySet<string>): ConnectSchema {
  const tag = (parameters: Map<string, string> = new Map()): Map<string, string> => parameters.set(TAG_PARAMETER, String(field.number));
  switch (field.fieldKind) {
    case 'scalar':
      return scalarSchema(field.scalar, tag(scalarParameters(field.scalar)));
    case 'enum':
      return enumSchema(field.enum, tag(enumParameters(field.enum)));
    case 'message':
      return messageSchema(field.message, path, tag());
    case 'list': {
      const element =
        field.listKind === 'scalar'
          ? scalarSchema(field.scalar, scalarParameters(field.scalar))
          : field.listKind === 'enum'
            ? enumSchema(field.enum, enumParameters(field.enum))
            : messageSchema(field.message, path, undefined);
      return new ConnectSchema('array', true, { valueSchema: element, parameters: tag() });
    }
    case 'map': {
      if (field.mapKey !== ScalarType.STRING) {
        throw new ConnectDataError(
          `its map field ${field.name} has ${SCALAR_NAMES[field.mapKey]} keys: the protobuf converter reads maps with string keys only`,
        );
      }
      const key = scalarSchema(field.mapKey, new Map([[TAG_PARAMETER, '1']]));
      const valueTag = (parameters: Map<string, string>): Map<string, string> => parameters.set(TAG_PARAMETER, '2');
      const value =
        field.mapKind === 'scalar'
          ? scalarSchema(field.scalar, valueTag(scalarParameters(field.scalar)))
          : field.mapKind === 'enum'
            ? enumSchema(field.enum, valueTag(enumParameters(field.enum)))
            : messageSchema(field.message, path, valueTag(new Map()));
      const entry = field.proto.typeName.slice(field.proto.typeName.lastIndexOf('.') + 1);
      return new ConnectSchema('map', true, { name: mapFieldName(entry), keySchema: key, valueSchema: value, parameters: tag() });
    }
  }
}

function scalarParameters(scalar: ScalarType): Map<string, string> {
  const name = SCALAR_NAMES[scalar];
  return name === 'int32' || name === 'int64' || !(INT32_TYPES.has(name) || INT64_TYPES.has(name)) ? new Map() : new Map([[TYPE_PARAMETER, name]]);
}

function scalarSchema(scalar: ScalarType, parameters: Map<string, string>): ConnectSchema {
  const name = SCALAR_NAMES[scalar];
  const type = INT32_TYPES.has(name)
    ? 'int32'
    : INT64_TYPES.has(name)
      ? 'int64'
      : ({ double: 'float64', float: 'float32', bool: 'boolean', string: 'string', bytes: 'bytes' } as const)[name as 'double'];
  return new ConnectSchema(type, true, parameters.size > 0 ? { parameters } : {});
}

function enumParameters(type: DescEnum): Map<string, string> {
  return new Map([[ENUM_PARAMETER, type.name], ...type.values.map((v): [string, string] => [`${ENUM_PARAMETER}.${v.name}`, String(v.number)])]);
}

function enumSchema(type: DescEnum, parameters: Map<string, string>): ConnectSchema {
  return new ConnectSchema('string', true, { name: type.name, parameters });
}

function messageSchema(message: DescMessage, path: ReadonlySet<string>, parameters: Map<string, string> | undefined): ConnectSchema {
  if (message.typeName === TIMESTAMP_TYPE) return new ConnectSchema('int64', true, { name: TIMESTAMP, version: 1, parameters });
  return structOf(message, true, path, parameters);
}

/** ProtobufSchema.toMapField: `TagsEntry` → `tags`, `MyTagsEntry` → `my_tags`. */
function mapFieldName(entry: string): string {
  const base = entry.endsWith('Entry') ? entry.slice(0, -'Entry'.length) : entry;
  return base.replace(/[A-Z]/g, (c, at: number) => (at > 0 ? '_' : '') + c.toLowerCase());
}

/** ProtobufSchema.toMapEntry: `tags` → `tagsEntry`, `my_tags` → `MyTagsEntry`. */
function mapEntryName(field: string): string {
  const camel = field.includes('_')
    ? field
        .split('_')
        .map((p) => (p === '' ? '' : p[0]!.toUpperCase() + p.slice(1).toLowerCase()))
        .join('')
    : field;
  return `${camel}Entry`;
}

/** The proto3 file ProtobufData writes for a Connect struct schema, its message first. */
export function fromConnectSchema(schema: ConnectSchema): FileDescriptorProto {
  return new ProtoWriter().file(schema);
}

class ProtoWriter {
  private unnamed = 0;
  private readonly dependencies = new Set<string>();

  file(schema: ConnectSchema): FileDescriptorProto {
    if (schema.type !== 'struct') {
      throw new ConnectDataError(`the protobuf converter writes a struct as the whole key or value, not ${schema.type.toUpperCase()}`);
    }
    const full = this.nameOrDefault(schema.name);
    const dot = full.lastIndexOf('.');
    const pkg = dot < 0 ? '' : full.slice(0, dot);
    const name = full.slice(dot + 1);
    for (const part of pkg === '' ? [] : pkg.split('.')) identifier(part, 'package name part');
    const message = this.message(identifier(name, 'message name'), schema, pkg === '' ? '' : `.${pkg}`);
    return create(FileDescriptorProtoSchema, {
      name: `${full}.proto`,
      package: pkg,
      syntax: 'proto3',
      dependency: [...this.dependencies],
      messageType: [message],
    });
  }

  private message(name: string, schema: ConnectSchema, parentScope: string): DescriptorProto {
    const scope = `${parentScope}.${name}`;
    const proto = create(DescriptorProtoSchema, { name });
    const members = schema.fields.flatMap((f) => (isUnion(f.schema) ? f.schema.fields : [f]));
    const taken = new Set(members.map((f) => tagOf(f.schema)).filter((t): t is number => t !== undefined));
    let next = 1;
    const number = (field: ConnectField): number => {
      const tag = tagOf(field.schema);
      if (tag !== undefined) return tag;
      while (taken.has(next)) next++;
      taken.add(next);
      return next;
    };
    for (const field of schema.fields) {
      if (!isUnion(field.schema)) {
        proto.field.push(this.field(proto, scope, field, number(field), false));
        continue;
      }
      const oneofName = unqualified(this.nameOrDefault(field.schema.name!.slice(UNION_PREFIX.length)));
      const oneofIndex = proto.oneofDecl.length;
      proto.oneofDecl.push(create(OneofDescriptorProtoSchema, { name: identifier(oneofName, 'oneof name') }));
      for (const member of field.schema.fields) {
        const described = this.field(proto, scope, member, number(member), true);
        described.oneofIndex = oneofIndex;
        proto.field.push(described);
      }
    }
    return proto;
  }

  private field(proto: DescriptorProto, scope: string, field: ConnectField, number: number, inOneof: boolean): FieldDescriptorProto {
    const name = identifier(field.name, 'field name');
    const { schema } = field;
    if (schema.type === 'map') {
      if (inOneof) throw new ConnectDataError(`the union member ${name} is a map, which a Protobuf oneof cannot hold`);
      const entry = identifier(mapEntryName(unqualified(this.nameOrDefault(schema.name))), 'map entry name');
      if (!proto.nestedType.some((t) => t.name === entry)) {
        const key = schema.meta.keySchema!;
        if (key.type !== 'string' || isEnum(key)) {
          throw new ConnectDataError(`the map field ${name} has ${describe(key)} keys: the protobuf converter writes maps with string keys only`);
        }
        const entryProto = create(DescriptorProtoSchema, { name: entry, options: { mapEntry: true } });
        entryProto.field.push(this.typed(entryProto, `${scope}.${entry}`, 'key', key, 1, Label.OPTIONAL));
        entryProto.field.push(this.typed(entryProto, `${scope}.${entry}`, 'value', schema.meta.valueSchema!, 2, Label.OPTIONAL));
        proto.nestedType.push(entryProto);
      }
      return create(FieldDescriptorProtoSchema, { name, number, label: Label.REPEATED, type: FieldType.MESSAGE, typeName: `${scope}.${entry}` });
    }
    if (schema.type === 'array') {
      if (inOneof) throw new ConnectDataError(`the union member ${name} is an array, which a Protobuf oneof cannot hold`);
      return this.typed(proto, scope, name, schema.meta.valueSchema!, number, Label.REPEATED);
    }
    return this.typed(proto, scope, name, schema, number, Label.OPTIONAL);
  }

  /** A field of a non-repeated type (or the element type of a repeated one). */
  private typed(proto: DescriptorProto, scope: string, name: string, schema: ConnectSchema, number: number, label: Label): FieldDescriptorProto {
    const out = create(FieldDescriptorProtoSchema, { name, number, label });
    switch (schema.name) {
      case TIMESTAMP:
        this.dependencies.add(TIMESTAMP_FILE);
        return Object.assign(out, { type: FieldType.MESSAGE, typeName: `.${TIMESTAMP_TYPE}` });
      case DECIMAL:
      case DATE:
      case TIME:
        throw new ConnectDataError(
          `the field ${name} is a ${schema.name.slice(schema.name.lastIndexOf('.') + 1)}, which ProtobufData writes with a type from another file (google.type or confluent.type) the protobuf converter does not have`,
        );
    }
    const declared = schema.meta.parameters?.get(TYPE_PARAMETER);
    switch (schema.type) {
      case 'int8':
      case 'int16':
        throw new ConnectDataError(
          `the field ${name} is ${schema.type.toUpperCase()}, which ProtobufData writes with a confluent/meta.proto option the protobuf converter does not write: cast it to int32`,
        );
      case 'int32':
        return Object.assign(out, { type: FIELD_TYPES[declared !== undefined && INT32_TYPES.has(declared) ? declared : 'int32']! });
      case 'int64':
        return Object.assign(out, { type: FIELD_TYPES[declared !== undefined && INT64_TYPES.has(declared) ? declared : 'int64']! });
      case 'float32':
        return Object.assign(out, { type: FieldType.FLOAT });
      case 'float64':
        return Object.assign(out, { type: FieldType.DOUBLE });
      case 'boolean':
        return Object.assign(out, { type: FieldType.BOOL });
      case 'bytes':
        return Object.assign(out, { type: FieldType.BYTES });
      case 'string': {
        if (!isEnum(schema)) return Object.assign(out, { type: FieldType.STRING });
        const enumName = identifier(schema.meta.parameters!.get(ENUM_PARAMETER)!, 'enum name');
        if (!proto.enumType.some((e) => e.name === enumName)) {
          const value = [...schema.meta.parameters!]
            .filter(([k]) => k.startsWith(`${ENUM_PARAMETER}.`))
            .map(([k, v]) => ({ name: identifier(k.slice(ENUM_PARAMETER.length + 1), 'enum symbol'), number: Number.parseInt(v, 10) }));
          proto.enumType.push(create(EnumDescriptorProtoSchema, { name: enumName, value }));
        }
        return Object.assign(out, { type: FieldType.ENUM, typeName: `${scope}.${enumName}` });
      }
      case 'array':
      case 'map':
        throw new ConnectDataError(`the field ${name} is an array of ${schema.type === 'array' ? 'arrays' : 'maps'}, which has no Protobuf form`);
      case 'struct': {
        if (isUnion(schema)) throw new ConnectDataError(`the field ${name} holds a union inside an array or map, which has no Protobuf form`);
        let typeName = unqualified(this.nameOrDefault(schema.name));
        if (typeName === name) typeName += 'Message';
        identifier(typeName, 'message name');
        if (!proto.nestedType.some((t) => t.name === typeName)) proto.nestedType.push(this.message(typeName, schema, scope));
        return Object.assign(out, { type: FieldType.MESSAGE, typeName: `${scope}.${typeName}` });
      }
    }
  }

  private nameOrDefault(name: string | undefined): string {
    return name !== undefined && name !== '' ? name : `${DEFAULT_NAME}${++this.unnamed}`;
  }
}

function isUnion(schema: ConnectSchema): boolean {
  return schema.type === 'struct' && schema.name?.startsWith(UNION_PREFIX) === true;
}

function isEnum(schema: ConnectSchema): boolean {
  return schema.type === 'string' && schema.meta.parameters?.has(ENUM_PARAMETER) === true;
}

function tagOf(schema: ConnectSchema): number | undefined {
  const tag = schema.meta.parameters?.get(TAG_PARAMETER);
  if (tag === undefined) return undefined;
  const n = Number(tag);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function unqualified(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function identifier(name: string, what: string): string {
  if (!IDENTIFIER.test(name)) throw new ConnectDataError(`the ${what} "${name}" is not a Protobuf identifier (letters, digits and _)`);
  return name;
}

function describe(schema: ConnectSchema): string {
  return schema.name !== undefined ? schema.name : schema.type.toUpperCase();
}
