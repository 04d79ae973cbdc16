/**
 * A Confluent-compatible Schema Registry, as a flow that moves schema ids sees it: a schema by
 * its id, and a schema registered under a subject. An adapter throws SchemaRegistryRefusal when
 * the registry answered no (unknown id, incompatible or invalid schema: trying again gives the
 * same answer); SchemaRegistryUnavailableError, retriable, for an outage (connection refused, a
 * timeout, a 5xx, a refused login: the flow waits and asks again).
 */
import { MirrorflowError } from '../errors';

export interface RegisteredSchema {
  /** The schema text, as the registry keeps it. */
  readonly schema: string;
  /** `AVRO` (also when the registry leaves it out), `JSON` or `PROTOBUF`. */
  readonly schemaType: string;
  /** Other subjects' schemas this one refers to (Protobuf imports, Avro named types). */
  readonly references: readonly { readonly name: string; readonly subject: string; readonly version: number }[];
}

export interface SchemaRegistryClient {
  /** Where it is, for messages (without credentials). */
  readonly url: string;
  schemaById(id: number): Promise<RegisteredSchema>;
  /** The schema's id under `subject`, registering it there when it is new. */
  register(subject: string, schema: RegisteredSchema): Promise<number>;
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

/** The registry could not be reached or did not answer in time: retried with backoff. */
export class SchemaRegistryUnavailableError extends MirrorflowError {
  override readonly name = 'SchemaRegistryUnavailableError';
  override readonly code = 'SCHEMA_REGISTRY_UNAVAILABLE';
  override readonly retriable = true;
}
