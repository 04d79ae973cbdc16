import { type OperatorFunction, map } from '#rxjs';
import type { FlowBatch, SourceBatch } from '../../core/record';

/**
 * Each fetched batch as the target gets it (`mirror`): its records under their remote topic,
 * through the transforms, or its record batches forwarded whole. One call per batch; a failure
 * the flow tolerates travels on the batch.
 */
export function mirrorBatches(mirror: (batch: SourceBatch) => FlowBatch): OperatorFunction<SourceBatch, FlowBatch> {
  return map(mirror);
}
