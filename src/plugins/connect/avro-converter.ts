/**
 * Confluent's AvroConverter (`io.confluent.connect.avro.AvroConverter`) for field-level
 * transforms: a key or value in Confluent's wire format (magic byte 0, a 4-byte schema id, Avro
 * binary) is read with its writer schema into Connect data (avro-schema.ts, avro-values.ts), and
 * the data the transforms leave is written back as Avro binary with the Avro schema AvroData
 * makes of its Connect schema.
 *
 * It is a RegistryConverter (registry-converter.ts): synchronous, per record, given the writer
 * schemas of a batch's ids by the flow before the transforms run, writing under local ids that
 * the flow registers in the target registry (as AVRO) after they ran.
 *
 * The binary codec is the avsc library's, longs as bigints (a JavaScript number loses Java
 * longs' precision past 2^53).
 */
import { Type, types } from 'avsc';
import { ConnectDataError, SchemaAndValue, type ConnectSchema, type ConnectValue } from './connect-value';
import { fromConnectSchema, toConnectSchema, type AvroJson } from './avro-schema';
import { avroToConnect, connectToAvro } from './avro-values';
import { LruCache } from './lru-cache';
import type { RegistryConverter } from './registry-converter';

const HEADER_BYTES = 5;
/** Ids the source registry refused, remembered so each costs one request (a Confluent id never comes to exist later). */
const REFUSED_IDS_KEPT = 1024;

const BIG_LONG = types.LongType.__with({
  fromBuffer: (buffer: Buffer) => buffer.readBigInt64LE(),
  toBuffer: (value: bigint) => {
    const buffer = Buffer.alloc(8);
    buffer.writeBigInt64LE(value);
    return buffer;
  },
  fromJSON: (json: number | string) => BigInt(json),
  toJSON: (value: bigint) => Number(value),
  isValid: (value: unknown) => typeof value === 'bigint',
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
});

/** An avsc type of an Avro schema, longs as bigints. */
export function avroType(schema: AvroJson): Type {
  return Type.forSchema(
    schema as never,
    {
      typeHook: (s: unknown) =>
        s === 'long' || (typeof s === 'object' && s !== null && !Array.isArray(s) && (s as { type?: unknown }).type === 'long') ? BIG_LONG : undefined,
    } as never,
  );
}

interface Reader {
  readonly type: Type;
  readonly connect: ConnectSchema;
}

interface Writer {
  readonly type: Type;
  readonly localId: number;
}

/** A flow's avro converter: the writer schemas it was given, and the schemas it wrote. */
export class AvroConverter implements RegistryConverter {
  readonly name = 'avro';
  readonly schemaType = 'AVRO';
  private readonly readers = new Map<number, Reader>();
  private readonly refused = new LruCache<number, string>(REFUSED_IDS_KEPT);
  private readonly writers = new WeakMap<ConnectSchema, Writer>();
  private readonly writtenByText = new Map<string, Writer>();
  private readonly writtenById = new Map<number, string>();

  /** True when a record with this id can be read (or is known to fail) without asking the registry. */
  knows(id: number): boolean {
    return this.readers.has(id) || this.refused.get(id) !== undefined;
  }

  /** The writer schema of an id, as the source registry gave it. A schema that has no Connect form is remembered as refused. */
  addSchema(id: number, schema: { readonly schema: string; readonly schemaType: string; readonly references: readonly unknown[] }): void {
    try {
      if (schema.schemaType !== 'AVRO') throw new ConnectDataError(`it is a ${schema.schemaType} schema, not Avro`);
      if (schema.references.length > 0) throw new ConnectDataError('it refers to other subjects (schema references are not supported by the avro converter)');
      const json = JSON.parse(schema.schema) as AvroJson;
      this.readers.set(id, { type: avroType(json), connect: toConnectSchema(json) });
    } catch (error) {
      this.refuse(id, error instanceof ConnectDataError ? error.message : 'its text is not an Avro schema the avro converter can read');
    }
  }

  refuse(id: number, reason: string): void {
    this.refused.set(id, reason);
  }

  /** AvroConverter's `toConnectData`: null for no bytes (a tombstone), else a SchemaAndValue. */
  read(bytes: Buffer | null): ConnectValue {
    if (bytes === null) return null;
    if (bytes.length < HEADER_BYTES || bytes[0] !== 0) {
      throw new ConnectDataError("it is not in Confluent's wire format (magic byte 0 and a 4-byte schema id), which the avro converter reads");
    }
    const id = bytes.readInt32BE(1);
    const reader = this.readers.get(id);
    if (reader === undefined) throw new ConnectDataError(`the avro converter cannot read schema id ${id}: ${this.refused.get(id) ?? 'not fetched'}`);
    let decoded: unknown;
    try {
      decoded = reader.type.fromBuffer(bytes.subarray(HEADER_BYTES));
    } catch {
      // avsc's message may describe the bytes: not shown.
      throw new ConnectDataError(`its Avro payload does not decode with the writer schema of id ${id}`);
    }
    return new SchemaAndValue(reader.connect, avroToConnect(reader.connect, decoded));
  }

  /** AvroConverter's `fromConnectData`: no bytes for null, else the wire format with the written schema's local id. */
  write(value: ConnectValue): Buffer | null {
    if (value === null) return null;
    if (!(value instanceof SchemaAndValue)) throw new ConnectDataError('the avro converter writes data with a schema only');
    if (value.value === null) return null;
    const writer = this.writerOf(value.schema);
    let body: Buffer;
    try {
      body = writer.type.toBuffer(connectToAvro(value.schema, value.value));
    } catch (error) {
      if (error instanceof ConnectDataError) throw error;
      throw new ConnectDataError('the data does not fit the Avro schema made of its Connect schema');
    }
    const out = Buffer.allocUnsafe(HEADER_BYTES + body.length);
    out[0] = 0;
    out.writeInt32BE(writer.localId, 1);
    body.copy(out, HEADER_BYTES);
    return out;
  }

  /** The Avro schema text written under a local id (negative), to register in the target registry. */
  writtenSchema(localId: number): string | undefined {
    return this.writtenById.get(localId);
  }

  private writerOf(schema: ConnectSchema): Writer {
    const known = this.writers.get(schema);
    if (known !== undefined) return known;
    const json = fromConnectSchema(schema);
    const text = JSON.stringify(json);
    let writer = this.writtenByText.get(text);
    if (writer === undefined) {
      writer = { type: avroType(json), localId: -(this.writtenByText.size + 1) };
      this.writtenByText.set(text, writer);
      this.writtenById.set(writer.localId, text);
    }
    this.writers.set(schema, writer);
    return writer;
  }
}
