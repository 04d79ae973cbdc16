import { type MonoTypeOperatorFunction, identity } from '#rxjs';
import type { FlowBatch } from '../../core/record';
import { type Answer, stepInOrder } from './step-in-order';

/**
 * After the transforms (`schema_registry`): each mirrored batch with its records' schema ids
 * moved to the target registry's (`translate`); the registries are asked only for ids new to
 * the flow, and batches keep their order. A flow without a schema registry passes them as they are.
 */
export function translateSchemaIds(translate: ((batch: FlowBatch) => Answer<FlowBatch>) | undefined): MonoTypeOperatorFunction<FlowBatch> {
  return translate === undefined ? identity : stepInOrder(translate);
}
