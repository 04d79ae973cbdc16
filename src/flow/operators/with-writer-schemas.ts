import { type MonoTypeOperatorFunction, identity } from '#rxjs';
import type { SourceBatch } from '../../core/record';
import { type Answer, stepInOrder } from './step-in-order';

/**
 * Before the transforms: each fetched batch once the registry converters have the writer schemas
 * of its records (`prepare`, RegistrySchemaFetch's), so the transforms read every record
 * synchronously. Batches keep their order; a flow without registry converters passes them as
 * they are.
 */
export function withWriterSchemas(prepare: ((batch: SourceBatch) => Answer<SourceBatch>) | undefined): MonoTypeOperatorFunction<SourceBatch> {
  return prepare === undefined ? identity : stepInOrder(prepare);
}
