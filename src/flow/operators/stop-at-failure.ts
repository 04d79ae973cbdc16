import { type MonoTypeOperatorFunction, takeWhile } from '#rxjs';
import { type FlowBatch, flowBatchFailure } from '../../core/record';

/**
 * errors.tolerance none: a batch that ends just before a failing record is the last one; it
 * passes (what came before the record is written and committed) and fetching stops.
 */
export function stopAtFailure(): MonoTypeOperatorFunction<FlowBatch> {
  return takeWhile((batch) => flowBatchFailure(batch) === undefined, true);
}
