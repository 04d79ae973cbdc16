/**
 * `when:` and `negate:` on any step of a flow's `transforms:` (Kafka Connect's
 * `transforms.<alias>.predicate` and `.negate`): the step is applied only to the records where
 * the condition holds (with negate, where it does not); every other record passes it unchanged,
 * as Connect passes a record its predicate does not match. One mechanism for every transform,
 * built-in or plugin: the chain takes both keys off the step before the plugin's own schema sees
 * its options.
 *
 * The record tested is the record as it stands at the step: after earlier steps, under its
 * remote topic. On a field-level step, `is_tombstone` asks whether the value, as the flow's value
 * converter reads it, is null, as Connect's RecordIsTombstone asks of the converted record.
 */
import type { MirrorRecord } from '../core/record';
import { z } from './api';
import { compileCondition, recordPredicateSchema } from './builtins/record-predicate';
import type { DataRecord } from './connect/data-record';
import type { FieldTransform } from './connect/field-transform';
import type { Transform } from './api';

export const stepConditionSchema = z
  .strictObject({
    when: recordPredicateSchema.optional(),
    negate: z.boolean().default(false).describe('true applies the step to the records that do NOT satisfy `when` (needs `when`).'),
  })
  .refine((c) => !c.negate || c.when !== undefined, { message: 'negate needs a condition under `when` to negate', path: ['negate'] });

export type StepCondition = z.output<typeof stepConditionSchema>;

/** What a step's `when` and `negate` say: a condition, or the problems with them (paths under the step). */
export type SplitStep =
  | { readonly options: Readonly<Record<string, unknown>>; readonly condition: StepCondition }
  | { readonly options: Readonly<Record<string, unknown>>; readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[] };

/** A step's options without `when`/`negate`, and its condition. */
export function splitStepCondition(options: Readonly<Record<string, unknown>>): SplitStep {
  const { when, negate, ...rest } = options;
  const parsed = stepConditionSchema.safeParse({ ...(when !== undefined && { when }), ...(negate !== undefined && { negate }) });
  return parsed.success
    ? { options: rest, condition: parsed.data }
    : { options: rest, issues: parsed.error.issues.map((issue) => ({ path: issue.path, message: issue.message })) };
}

/** The transform, applied only where its condition says; the transform itself without a `when`. */
export function conditional<T extends Transform | FieldTransform>(transform: T, condition: StepCondition): T {
  if (condition.when === undefined) return transform;
  const holds = compileCondition(condition.when);
  const negate = condition.negate;
  if ('applyData' in transform) {
    const field = transform as FieldTransform;
    const wrapped: FieldTransform = {
      applyData: (record: DataRecord) => (holds(record, () => record.isTombstone()) !== negate ? field.applyData(record) : record),
    };
    return wrapped as T;
  }
  const plain = transform as Transform;
  const wrapped: Transform = {
    apply: (record: MirrorRecord) => (holds(record, () => record.value === null) !== negate ? plain.apply(record) : record),
  };
  return wrapped as T;
}
