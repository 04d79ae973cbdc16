/**
 * Confluent's JsonSchemaConverter (`io.confluent.connect.json.JsonSchemaConverter`) for
 * field-level transforms: a key or value in Confluent's wire format for JSON Schema (magic byte
 * 0, a 4-byte schema id, then the JSON text in UTF-8; no message indexes) is read with its writer
 * schema into Connect data (json-schema-schema.ts, json-schema-values.ts), and the data the
 * transforms leave is written back as JSON with the JSON Schema JsonSchemaData makes of its
 * Connect schema.
 *
 * It is a RegistryConverter (registry-converter.ts): synchronous, per record, given the writer
 * schemas of a batch's ids by the flow before the transforms run, writing under local ids that
 * the flow registers in the target registry (as JSON) after they ran.
 */
import { ConnectDataError, SchemaAndValue, type ConnectSchema, type ConnectValue } from './connect-value';
import type { RegisteredSchema } from '../../core/ports/schema-registry';
import { connectSchemaToJsonSchemaText, jsonSchemaToConnectSchema } from './json-schema-schema';
import { connectToJsonSchemaText, jsonSchemaToConnect } from './json-schema-values';
import { parseJsonBytes, type JsonNode } from './json-tree';
import { LruCache } from './lru-cache';
import type { RegistryConverter } from './registry-converter';

const HEADER_BYTES = 5;
/** Ids the source registry refused, remembered so each costs one request (a Confluent id never comes to exist later). */
const REFUSED_IDS_KEPT = 1024;

/** A flow's json_schema converter: the writer schemas it was given, and the schemas it wrote. */
export class JsonSchemaConverter implements RegistryConverter {
  readonly name = 'json_schema';
  readonly schemaType = 'JSON';
  private readonly readers = new Map<number, ConnectSchema>();
  private readonly refused = new LruCache<number, string>(REFUSED_IDS_KEPT);
  private readonly localIds = new WeakMap<ConnectSchema, number>();
  private readonly writtenByText = new Map<string, number>();
  private readonly writtenById = new Map<number, string>();

  knows(id: number): boolean {
    return this.readers.has(id) || this.refused.get(id) !== undefined;
  }

  addSchema(id: number, schema: RegisteredSchema): void {
    try {
      if (schema.schemaType !== 'JSON') throw new ConnectDataError(`it is a ${schema.schemaType} schema, not JSON Schema`);
      if (schema.references.length > 0) {
        throw new ConnectDataError('it refers to other subjects (schema references are not supported by the json_schema converter)');
      }
      this.readers.set(id, jsonSchemaToConnectSchema(schema.schema));
    } catch (error) {
      this.refuse(id, error instanceof ConnectDataError ? error.message : 'its text is not a JSON Schema the json_schema converter can read');
    }
  }

  refuse(id: number, reason: string): void {
    this.refused.set(id, reason);
  }

  /** JsonSchemaConverter's `toConnectData`: null for no bytes (a tombstone), else a SchemaAndValue. */
  read(bytes: Buffer | null): ConnectValue {
    if (bytes === null) return null;
    if (bytes.length < HEADER_BYTES || bytes[0] !== 0) {
      throw new ConnectDataError("it is not in Confluent's wire format (magic byte 0 and a 4-byte schema id), which the json_schema converter reads");
    }
    const id = bytes.readInt32BE(1);
    const schema = this.readers.get(id);
    if (schema === undefined) throw new ConnectDataError(`the json_schema converter cannot read schema id ${id}: ${this.refused.get(id) ?? 'not fetched'}`);
    let node: JsonNode | undefined;
    try {
      node = parseJsonBytes(bytes.subarray(HEADER_BYTES));
    } catch {
      // The parser's message may quote the text: not shown.
      throw new ConnectDataError(`its payload after the schema id ${id} is not JSON`);
    }
    if (node === undefined) throw new ConnectDataError(`its payload after the schema id ${id} is empty, not JSON`);
    return new SchemaAndValue(schema, jsonSchemaToConnect(schema, node));
  }

  /** JsonSchemaConverter's `fromConnectData`: no bytes for null, else the wire format with the written schema's local id. */
  write(value: ConnectValue): Buffer | null {
    if (value === null) return null;
    if (!(value instanceof SchemaAndValue)) throw new ConnectDataError('the json_schema converter writes data with a schema only');
    if (value.value === null) return null;
    const localId = this.localIdOf(value.schema);
    const text = connectToJsonSchemaText(value.schema, value.value);
    if (text === undefined) throw new ConnectDataError('a required value is null');
    const body = Buffer.from(text, 'utf8');
    const out = Buffer.allocUnsafe(HEADER_BYTES + body.length);
    out[0] = 0;
    out.writeInt32BE(localId, 1);
    body.copy(out, HEADER_BYTES);
    return out;
  }

  writtenSchema(localId: number): string | undefined {
    return this.writtenById.get(localId);
  }

  private localIdOf(schema: ConnectSchema): number {
    const known = this.localIds.get(schema);
    if (known !== undefined) return known;
    const text = connectSchemaToJsonSchemaText(schema);
    let localId = this.writtenByText.get(text);
    if (localId === undefined) {
      localId = -(this.writtenByText.size + 1);
      this.writtenByText.set(text, localId);
      this.writtenById.set(localId, text);
    }
    this.localIds.set(schema, localId);
    return localId;
  }
}
