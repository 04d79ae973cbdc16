/**
 * Field-level transforms (Connect's InsertField, ReplaceField, Cast, …): they read fields of the
 * key or the value, so they need the flow's converter for that side. The chain hands them a
 * DataRecord; between two field-level steps nothing is written back, so a record is read once
 * and written once however many of them follow each other.
 */
import { z, type TransformContext, type TransformDefinition } from '../api';
import type { DataRecord, Side } from './data-record';

export interface FieldTransform {
  applyData(record: DataRecord): DataRecord | undefined;
}

export interface FieldTransformDefinition<Config = unknown> extends TransformDefinition<Config> {
  /** The sides a configured step reads or writes: each needs a converter. */
  sides(config: Config): readonly Side[];
  /** The Connect class, e.g. `InsertField` (with `$Key` / `$Value` after it). */
  readonly connectClass: string;
  createField(config: Config, context: TransformContext): FieldTransform;
}

export function isFieldTransformDefinition(definition: TransformDefinition): definition is FieldTransformDefinition {
  return typeof (definition as Partial<FieldTransformDefinition>).createField === 'function';
}

/** `on: key | value`, Connect's `$Key` / `$Value`. */
export const onSide = z
  .enum(['key', 'value'])
  .default('value')
  .describe("Which part of the record the step works on: Connect's `$Key` or `$Value` (the default).");

/** Declares a field-level transform; `create` is never called for it (the chain uses createField). */
export function defineFieldTransform<S extends z.ZodType>(definition: {
  readonly name: string;
  readonly summary: string;
  readonly connectClass: string;
  readonly configSchema: S;
  sides(config: z.output<S>): readonly Side[];
  createField(config: z.output<S>, context: TransformContext): FieldTransform;
}): FieldTransformDefinition<z.output<S>> {
  return {
    ...definition,
    create() {
      throw new Error(`${definition.name} reads fields: it runs in a flow's transform chain, which gives it the flow's converters`);
    },
  } as FieldTransformDefinition<z.output<S>>;
}
