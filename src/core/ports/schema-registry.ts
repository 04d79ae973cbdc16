/**
 * A Confluent-compatible Schema Registry, as a flow that moves schema ids sees it: a schema by
 * its id, a subject's version, and a schema registered under a subject. An adapter throws
 * SchemaRegistryRefusal when the registry answered no for good (an unknown id, an incompatible or
 * invalid schema: asking again gives the same answer), SchemaRegistryError when no record can
 * get on (the credentials refused, an answer that is not a registry's: a wrong URL), and
 * SchemaRegistryUnavailableError, retriable, for an outage (connection refused, a timeout, a 5xx,
 * 429: the flow waits and asks again).
 */
import { MirrorflowError } from '../errors';

/** A schema that refers to another subject's version (Avro named types, Protobuf imports, JSON Schema `$ref`). */
export interface SchemaReference {
  readonly name: string;
  readonly subject: string;
  readonly version: number;
}

export interface RegisteredSchema {
  /** The schema text, as the registry keeps it. */
  readonly schema: string;
  /** `AVRO` (also when the registry leaves it out), `JSON` or `PROTOBUF`. */
  readonly schemaType: string;
  readonly references: readonly SchemaReference[];
}

/** A version of a subject with the id the registry gave its schema. */
export interface SubjectVersion extends RegisteredSchema {
  readonly id: number;
  readonly version: number;
}

export interface SchemaRegistryClient {
  /** Where it is, for messages: scheme, host, port and path, never credentials. */
  readonly url: string;
  schemaById(id: number): Promise<RegisteredSchema>;
  /** A version of a subject (what a reference points at). */
  schemaByVersion(subject: string, version: number): Promise<RegisteredSchema>;
  /** The schema's id under `subject`, registering it there when it is new. */
  register(subject: string, schema: RegisteredSchema): Promise<number>;
  /** The version `subject` has the schema under (registered before). */
  versionOf(subject: string, schema: RegisteredSchema): Promise<number>;
  /** Every subject the registry has (`GET /subjects`). */
  listSubjects(): Promise<string[]>;
  /** The versions of `subject`, ascending (`GET /subjects/{subject}/versions`). */
  listVersions(subject: string): Promise<number[]>;
  /** A version of `subject` with its schema's id (`GET /subjects/{subject}/versions/{n}`). */
  subjectVersion(subject: string, version: number): Promise<SubjectVersion>;
}

/** The registry refused a request for good: status and Confluent's error code, e.g. 404 / 40403 (schema not found). */
export class SchemaRegistryRefusal extends MirrorflowError {
  override readonly name = 'SchemaRegistryRefusal';
  override readonly code = 'SCHEMA_REGISTRY_REFUSED';
  constructor(
    message: string,
    readonly status: number,
    readonly errorCode: number | undefined,
  ) {
    super(message);
  }
}

/**
 * No record can get on: the registry refused mirrorflow's credentials (401, 403), or what
 * answered is not a Schema Registry (a 4xx without Confluent's error code: a wrong URL). Only a
 * change of the settings helps, so the flow stops.
 */
export class SchemaRegistryError extends MirrorflowError {
  override readonly name = 'SchemaRegistryError';
  override readonly code = 'SCHEMA_REGISTRY_FAILED';
}

/** The registry could not be reached or did not answer in time: retried with backoff. */
export class SchemaRegistryUnavailableError extends MirrorflowError {
  override readonly name = 'SchemaRegistryUnavailableError';
  override readonly code = 'SCHEMA_REGISTRY_UNAVAILABLE';
  override readonly retriable = true;
}
