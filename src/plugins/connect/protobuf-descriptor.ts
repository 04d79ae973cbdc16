/**
 * A Protobuf schema as a Schema Registry hands it over, made into descriptors the codec
 * (@bufbuild/protobuf) reads and writes with. A registry gives a PROTOBUF schema either as
 * `.proto` text (Confluent's registry by default, and what Java serializers register) or in its
 * serialized form, a base64 `FileDescriptorProto` (what Confluent's JavaScript, Go and .NET
 * serializers register, and what a registry without Confluent's conversion, Apicurio, gives
 * back as it is). Text is parsed with protobufjs and described field by field as protoc would
 * (fully qualified type names, map fields as nested `…Entry` messages, proto3 `optional` as a
 * synthetic oneof after the real ones).
 *
 * Imports of Protobuf's well-known files (`google/protobuf/*.proto`) are resolved from the
 * codec's own copies, as Confluent's serializers do; any other import is a schema reference,
 * refused here. Messages are found by Confluent's message indexes: top-level messages in the
 * order they are declared, then messages declared inside them (map entries do not count).
 */
import { create, createFileRegistry, fromBinary, type DescFile, type DescMessage } from '@bufbuild/protobuf';
import {
  DescriptorProtoSchema,
  EnumDescriptorProtoSchema,
  FieldDescriptorProtoSchema,
  OneofDescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as FieldType,
  FileDescriptorProtoSchema,
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { Enum, MapField, parse, Type, type Field, type Namespace, type ReflectionObject } from 'protobufjs';
import { ConnectDataError } from './connect-value';

/** The well-known files a schema may import without a reference. */
export const WELL_KNOWN_FILES: ReadonlyMap<string, DescFile> = new Map(
  [
    file_google_protobuf_any,
    file_google_protobuf_duration,
    file_google_protobuf_empty,
    file_google_protobuf_field_mask,
    file_google_protobuf_struct,
    file_google_protobuf_timestamp,
    file_google_protobuf_wrappers,
  ].map((file) => [`${file.name}.proto`, file]),
);

const SCALARS: Readonly<Record<string, FieldType>> = {
  double: FieldType.DOUBLE,
  float: FieldType.FLOAT,
  int32: FieldType.INT32,
  int64: FieldType.INT64,
  uint32: FieldType.UINT32,
  uint64: FieldType.UINT64,
  sint32: FieldType.SINT32,
  sint64: FieldType.SINT64,
  fixed32: FieldType.FIXED32,
  fixed64: FieldType.FIXED64,
  sfixed32: FieldType.SFIXED32,
  sfixed64: FieldType.SFIXED64,
  bool: FieldType.BOOL,
  string: FieldType.STRING,
  bytes: FieldType.BYTES,
};

/** The file of a registry's PROTOBUF schema (text or serialized), its imports resolved; a ConnectDataError saying why not. */
export function protobufFile(schema: string): DescFile {
  const proto = looksSerialized(schema) ? serializedFile(schema) : textFile(schema);
  refuseReferences(proto.dependency);
  return describedFile(proto);
}

function refuseReferences(imports: readonly string[]): void {
  for (const dependency of imports) {
    if (!WELL_KNOWN_FILES.has(dependency)) {
      throw new ConnectDataError(`it imports "${dependency}", another subject's schema (schema references are not supported by the protobuf converter)`);
    }
  }
}

/** A FileDescriptorProto made into a file of descriptors, its well-known imports resolved; its errors as ConnectDataErrors. */
export function describedFile(proto: FileDescriptorProto): DescFile {
  let registry;
  try {
    registry = createFileRegistry(proto, (name) => WELL_KNOWN_FILES.get(name));
  } catch (error) {
    throw new ConnectDataError(`it is not a valid Protobuf file: ${error instanceof Error ? error.message : String(error)}`);
  }
  const file = registry.getFile(proto.name);
  if (file === undefined) throw new ConnectDataError('it is not a valid Protobuf file');
  return file;
}

/** The message at Confluent's message indexes in a file. */
export function messageAt(file: DescFile, indexes: readonly number[]): DescMessage {
  let messages: readonly DescMessage[] = file.messages;
  let message: DescMessage | undefined;
  for (const index of indexes) {
    message = messages[index];
    if (message === undefined) throw new ConnectDataError(`its message indexes [${indexes.join(', ')}] name no message of its schema`);
    messages = message.nestedMessages;
  }
  if (message === undefined) throw new ConnectDataError('its message indexes are empty');
  return message;
}

/** Base64 has no `;`, `{` or quote, and `.proto` text that declares anything has one of them. */
function looksSerialized(schema: string): boolean {
  return /^[A-Za-z0-9+/=\s]+$/.test(schema);
}

function serializedFile(schema: string): FileDescriptorProto {
  try {
    return fromBinary(FileDescriptorProtoSchema, Buffer.from(schema, 'base64'));
  } catch {
    throw new ConnectDataError('its text is neither .proto text nor a serialized FileDescriptorProto');
  }
}

/** `.proto` text described as protoc would. */
function textFile(text: string): FileDescriptorProto {
  let parsed;
  try {
    parsed = parse(text, { keepCase: true });
  } catch (error) {
    throw new ConnectDataError(`its .proto text does not parse: ${error instanceof Error ? error.message : String(error)}`);
  }
  const imports = [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])];
  refuseReferences(imports);
  const pkg = parsed.package ?? '';
  const scope = pkg === '' ? parsed.root : parsed.root.lookup(pkg);
  if (scope === null || !('nestedArray' in scope)) throw new ConnectDataError('its package declares nothing');
  const namespace = scope as Namespace;
  const edition = firstEdition(namespace) ?? 'proto2';
  if (edition !== 'proto2' && edition !== 'proto3') {
    throw new ConnectDataError(`it is a Protobuf editions file (${edition}), which the protobuf converter does not read`);
  }
  const describer = new TextDescriber(parsed.root, edition);
  const messageType: DescriptorProto[] = [];
  const enumType: EnumDescriptorProto[] = [];
  for (const nested of namespace.nestedArray) {
    if (nested instanceof Type) messageType.push(describer.message(nested));
    else if (nested instanceof Enum) enumType.push(describeEnum(nested));
  }
  return create(FileDescriptorProtoSchema, {
    name: 'schema.proto',
    package: pkg,
    dependency: imports,
    messageType,
    enumType,
    syntax: edition,
  });
}

function firstEdition(namespace: Namespace): string | undefined {
  for (const nested of namespace.nestedArray) {
    const edition = (nested as { _edition?: unknown })._edition;
    if (typeof edition === 'string') return edition;
  }
  return undefined;
}

function describeEnum(type: Enum): EnumDescriptorProto {
  return create(EnumDescriptorProtoSchema, {
    name: type.name,
    value: Object.entries(type.values).map(([name, number]) => ({ name, number })),
  });
}

class TextDescriber {
  constructor(
    private readonly root: Namespace,
    private readonly edition: 'proto2' | 'proto3',
  ) {}

  message(type: Type): DescriptorProto {
    const nestedType: DescriptorProto[] = [];
    const enumType: EnumDescriptorProto[] = [];
    for (const nested of type.nestedArray) {
      if (nested instanceof Type) nestedType.push(this.message(nested));
      else if (nested instanceof Enum) enumType.push(describeEnum(nested));
    }
    const real = type.oneofsArray.filter((oneof) => !isSynthetic(oneof.fieldsArray));
    const synthetic = type.oneofsArray.filter((oneof) => isSynthetic(oneof.fieldsArray));
    const oneofs = [...real, ...synthetic];
    const field = type.fieldsArray.map((f) => {
      const oneofIndex = f.partOf === null ? undefined : oneofs.indexOf(f.partOf);
      if (f instanceof MapField) {
        const entry = `${upperCamel(f.name)}Entry`;
        nestedType.push(
          create(DescriptorProtoSchema, {
            name: entry,
            field: [this.field(f.keyType, 'key', 1, type, false), this.field(f.type, 'value', 2, type, false)],
            options: { mapEntry: true },
          }),
        );
        return create(FieldDescriptorProtoSchema, {
          name: f.name,
          number: f.id,
          label: Label.REPEATED,
          type: FieldType.MESSAGE,
          typeName: `${fullName(type)}.${entry}`,
        });
      }
      const described = this.field(f.type, f.name, f.id, type, f.repeated, f);
      if (oneofIndex !== undefined && oneofIndex >= 0) described.oneofIndex = oneofIndex;
      if (f.options?.['proto3_optional'] === true) described.proto3Optional = true;
      return described;
    });
    return create(DescriptorProtoSchema, {
      name: type.name,
      field,
      nestedType,
      enumType,
      oneofDecl: oneofs.map((oneof) => create(OneofDescriptorProtoSchema, { name: oneof.name })),
    });
  }

  private field(typeName: string, name: string, number: number, scope: Type, repeated: boolean, source?: Field): FieldDescriptorProto {
    const label = repeated
      ? Label.REPEATED
      : source?.required === true || (source as { rule?: string } | undefined)?.rule === 'required'
        ? Label.REQUIRED
        : Label.OPTIONAL;
    const described = create(FieldDescriptorProtoSchema, { name, number, label });
    const scalar = SCALARS[typeName];
    if (scalar !== undefined) described.type = scalar;
    else {
      const resolved = this.resolve(typeName, scope);
      if (resolved === undefined) {
        // A well-known type, defined by the imported file.
        described.type = typeName.endsWith('google.protobuf.NullValue') ? FieldType.ENUM : FieldType.MESSAGE;
        described.typeName = typeName.startsWith('.') ? typeName : `.${typeName}`;
      } else {
        described.type = resolved instanceof Enum ? FieldType.ENUM : FieldType.MESSAGE;
        described.typeName = fullName(resolved);
      }
      if (source?.delimited === true) throw new ConnectDataError(`its field ${name} is a group, which the protobuf converter does not read`);
    }
    const fallback = source?.options?.['default'];
    if (fallback !== undefined && this.edition === 'proto2') described.defaultValue = String(fallback);
    if (source?.options?.['packed'] === true) described.options = { packed: true } as never;
    return described;
  }

  /** A type name as protoc resolves it: from the innermost scope outwards; a well-known type is named as it is. */
  private resolve(name: string, scope: Type): ReflectionObject | undefined {
    if (name.startsWith('.google.protobuf.')) return undefined;
    if (name.startsWith('.')) return this.known(this.root.lookup(name.slice(1)), name);
    for (let at: Namespace | null = scope; at !== null; at = at.parent) {
      const found = at.lookup(name, [Type, Enum], true);
      if (found !== null) return found;
    }
    if (name.startsWith('google.protobuf.')) return undefined;
    return this.known(null, name);
  }

  private known(found: ReflectionObject | null, name: string): ReflectionObject {
    if (found === null) throw new ConnectDataError(`its schema uses the type ${name}, which it does not define`);
    return found;
  }
}

function isSynthetic(fields: readonly Field[]): boolean {
  return fields.length === 1 && fields[0]!.options?.['proto3_optional'] === true;
}

function fullName(object: ReflectionObject): string {
  return object.fullName.startsWith('.') ? object.fullName : `.${object.fullName}`;
}

/** protoc's name of a map field's entry message: `my_tags` → `MyTags`. */
function upperCamel(name: string): string {
  return name
    .split('_')
    .map((part) => (part === '' ? '' : part[0]!.toUpperCase() + part.slice(1)))
    .join('');
}
