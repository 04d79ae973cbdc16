/**
 * Confluent's ProtobufConverter (`io.confluent.connect.protobuf.ProtobufConverter`) for
 * field-level transforms: a key or value in Confluent's Protobuf wire format (magic byte 0, a
 * 4-byte schema id, the message indexes, Protobuf binary; protobuf-wire.ts) is read with its
 * writer schema into Connect data (protobuf-schema.ts, protobuf-values.ts), and the data the
 * transforms leave is written back as Protobuf binary of the proto3 file ProtobufData makes of
 * its Connect schema, as that file's first message (index `[0]`).
 *
 * Like the avro converter, it is synchronous per record: the flow fetches the writer schemas of a
 * batch's ids from the source registry before the transforms run (`addSchema` / `refuse`) and
 * registers the schemas written here in the target registry after they ran. A written record
 * carries a local (negative) id until then, one per distinct written schema, kept for the flow's
 * life. A written schema is registered in its serialized form, a base64 FileDescriptorProto
 * (`writtenSchema`), as Confluent's JavaScript, Go and .NET serializers register theirs:
 * Confluent's registry keeps it as `.proto` text for its Java clients, and a registry without
 * that conversion (Apicurio) hands it to every client as it is, which those serializers' readers
 * expect.
 *
 * The binary codec is @bufbuild/protobuf's (what Confluent's JavaScript serializers use), 64-bit
 * integers as bigints.
 */
import * as protobuf from '@bufbuild/protobuf';
import * as reflection from '@bufbuild/protobuf/reflect';
import type { DescFile, DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { ConnectDataError, SchemaAndValue, Struct, type ConnectSchema, type ConnectValue } from './connect-value';
import { describedFile, messageAt, protobufFile } from './protobuf-descriptor';
import { fromConnectSchema, toConnectSchema } from './protobuf-schema';
import { connectToMessage, messageToConnect } from './protobuf-values';
import { frameFirstMessage, readProtobufFrame } from './protobuf-wire';
import { LruCache } from './lru-cache';
import type { RegistryConverter } from './registry-converter';
import type { RegisteredSchema } from '../../core/ports/schema-registry';

// Read once: a package's exports are getters, which the per-record code would call each time.
const { fromBinary, toBinary } = protobuf;
const { reflect } = reflection;
/** Ids the source registry refused, remembered so each costs one request (a Confluent id never comes to exist later). */
const REFUSED_IDS_KEPT = 1024;

interface Reader {
  readonly message: DescMessage;
  readonly connect: ConnectSchema;
}

interface Writer {
  readonly message: DescMessage;
  readonly localId: number;
}

/** A flow's protobuf converter: the writer schemas it was given, and the schemas it wrote. */
export class ProtobufConverter implements RegistryConverter {
  readonly name = 'protobuf';
  readonly schemaType = 'PROTOBUF';
  private readonly files = new Map<number, DescFile>();
  /** `<id> <indexes>` → the message those bytes are, in Connect terms. */
  private readonly readers = new Map<string, Reader>();
  private readonly refused = new LruCache<number, string>(REFUSED_IDS_KEPT);
  private readonly writers = new WeakMap<ConnectSchema, Writer>();
  private readonly writtenByText = new Map<string, Writer>();
  private readonly writtenById = new Map<number, string>();

  /** True when a record with this id can be read (or is known to fail) without asking the registry. */
  knows(id: number): boolean {
    return this.files.has(id) || this.refused.get(id) !== undefined;
  }

  /** The writer schema of an id, as the source registry gave it. A schema that cannot be read is remembered as refused. */
  addSchema(id: number, schema: RegisteredSchema): void {
    try {
      if (schema.schemaType !== 'PROTOBUF') throw new ConnectDataError(`it is a ${schema.schemaType} schema, not Protobuf`);
      if (schema.references.length > 0)
        throw new ConnectDataError('it refers to other subjects (schema references are not supported by the protobuf converter)');
      this.files.set(id, protobufFile(schema.schema));
    } catch (error) {
      this.refuse(id, error instanceof ConnectDataError ? error.message : 'its text is not a Protobuf schema the protobuf converter can read');
    }
  }

  refuse(id: number, reason: string): void {
    this.refused.set(id, reason);
  }

  /** ProtobufConverter's `toConnectData`: null for no bytes (a tombstone), else a SchemaAndValue. */
  read(bytes: Buffer | null): ConnectValue {
    if (bytes === null) return null;
    const { id, indexes, bodyStart } = readProtobufFrame(bytes);
    const reader = this.readerOf(id, indexes);
    let decoded;
    try {
      decoded = fromBinary(reader.message, bytes.subarray(bodyStart));
    } catch {
      // The codec's message may describe the bytes: not shown.
      throw new ConnectDataError(`its Protobuf payload does not decode as ${reader.message.typeName}, the message its schema id ${id} and indexes name`);
    }
    return new SchemaAndValue(reader.connect, messageToConnect(reader.connect, reflect(reader.message, decoded)));
  }

  /** ProtobufConverter's `fromConnectData`: no bytes for null, else the wire format with the written schema's local id. */
  write(value: ConnectValue): Buffer | null {
    if (value === null) return null;
    if (!(value instanceof SchemaAndValue)) throw new ConnectDataError('the protobuf converter writes data with a schema only');
    if (value.value === null) return null;
    const writer = this.writerOf(value.schema);
    if (!(value.value instanceof Struct)) throw new ConnectDataError('the protobuf converter got a value that is not a struct for a struct schema');
    const message = connectToMessage(writer.message, value.schema, value.value);
    return frameFirstMessage(writer.localId, toBinary(writer.message, message.message));
  }

  /** The schema written under a local id (negative), serialized, to register in the target registry. */
  writtenSchema(localId: number): string | undefined {
    return this.writtenById.get(localId);
  }

  private readerOf(id: number, indexes: readonly number[]): Reader {
    const key = `${id} ${indexes.join(',')}`;
    const known = this.readers.get(key);
    if (known !== undefined) return known;
    const file = this.files.get(id);
    if (file === undefined) throw new ConnectDataError(`the protobuf converter cannot read schema id ${id}: ${this.refused.get(id) ?? 'not fetched'}`);
    const message = messageAt(file, indexes);
    const reader = { message, connect: toConnectSchema(message) };
    this.readers.set(key, reader);
    return reader;
  }

  private writerOf(schema: ConnectSchema): Writer {
    const known = this.writers.get(schema);
    if (known !== undefined) return known;
    const proto = fromConnectSchema(schema);
    const text = Buffer.from(toBinary(FileDescriptorProtoSchema, proto)).toString('base64');
    let writer = this.writtenByText.get(text);
    if (writer === undefined) {
      writer = { message: describedFile(proto).messages[0]!, localId: -(this.writtenByText.size + 1) };
      this.writtenByText.set(text, writer);
      this.writtenById.set(writer.localId, text);
    }
    this.writers.set(schema, writer);
    return writer;
  }
}
