/**
 * What a Schema-Registry-backed converter (Confluent's AvroConverter, JsonSchemaConverter, …)
 * shares with the flow around it. Such a converter reads a key or value in Confluent's wire
 * format (magic byte 0, a 4-byte schema id, the payload) with its writer schema, and is
 * synchronous, per record: the flow fetches the writer schemas of a batch's new ids from the
 * source registry before the transforms run (`addSchema`, or `refuse` when the registry says no),
 * and registers the schemas the converter wrote in the target registry after they ran.
 *
 * A written record carries a local id in its header until then (`writtenSchema`: negative, which
 * no registry gives), one per distinct written schema, kept for the flow's life; its schema text
 * is registered as the converter's `schemaType`.
 */
import type { RegisteredSchema } from '../../core/ports/schema-registry';
import type { ConnectValue } from './connect-value';

/** The schema types of Confluent's registry API. */
export type SchemaType = 'AVRO' | 'JSON' | 'PROTOBUF';

/** How messages name a schema type: `the Avro schema …`. */
export const SCHEMA_TYPE_LABELS: Readonly<Record<SchemaType, string>> = { AVRO: 'Avro', JSON: 'JSON', PROTOBUF: 'Protobuf' };

export interface RegistryConverter {
  /** The converter's name in the pipeline file (`avro`), for messages. */
  readonly name: string;
  /** The type its written schemas are registered as. */
  readonly schemaType: SchemaType;
  /** True when a record with this id can be read (or is known to fail) without asking the registry. */
  knows(id: number): boolean;
  /** The writer schema of an id, as the source registry gave it. A schema the converter cannot read is remembered as refused. */
  addSchema(id: number, schema: RegisteredSchema): void;
  /** The source registry refused the id: records with it fail, naming the reason. */
  refuse(id: number, reason: string): void;
  read(bytes: Buffer | null): ConnectValue;
  write(value: ConnectValue): Buffer | null;
  /** The schema text written under a local id (negative), to register in the target registry. */
  writtenSchema(localId: number): string | undefined;
}

/** A flow's registry-backed converters by side (one instance may serve both sides). */
export type RegistryConverters = Readonly<Partial<Record<'key' | 'value', RegistryConverter>>>;
