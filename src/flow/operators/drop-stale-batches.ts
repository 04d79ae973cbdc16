import { type MonoTypeOperatorFunction, filter } from '#rxjs';
import type { SourceBatch } from '../../core/record';

/**
 * Drops batches fetched from a partition whose source log was found restarted after the fetch
 * (`stale`, until the consumer restarts on the new log), and tells `dropped` about each so that
 * what it took from the byte budget is given back. Every other batch passes.
 */
export function dropStaleBatches(stale: (batch: SourceBatch) => boolean, dropped: (batch: SourceBatch) => void): MonoTypeOperatorFunction<SourceBatch> {
  return filter((batch) => {
    if (!stale(batch)) return true;
    dropped(batch);
    return false;
  });
}
