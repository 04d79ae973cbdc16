/**
 * Records through a transform chain as a flow treats them, without Kafka: `errors.tolerance`
 * `none` keeps the records before the first that failed and ends with that failure (the flow
 * stops there, its progress before it); `all` sends each failing record to the dead letters and
 * goes on. `mirrorflow test` and the plugin contract use it; `ReplicationFlow` does the same
 * with the chain's failures of each batch.
 */
import type { RecordFailedError } from '../core/errors';
import type { MirrorRecord, RecordFailure } from '../core/record';
import type { TransformChain } from './transform-chain';

export type ErrorTolerance = 'none' | 'all';

export interface ChainRun {
  /** What would be written, in order. */
  readonly output: readonly MirrorRecord[];
  /** With `all`: the records that failed, each with its error. */
  readonly deadLetters: readonly RecordFailure[];
  /** With `none`: the failure that ends the flow. */
  readonly failure?: RecordFailedError;
}

export function runWithTolerance(chain: TransformChain, records: readonly MirrorRecord[], tolerance: ErrorTolerance): ChainRun {
  const failures: RecordFailure[] = [];
  const output = chain(records, failures);
  if (failures.length === 0) return { output, deadLetters: [] };
  if (tolerance === 'all') return { output, deadLetters: failures };
  const failed = failures[0]!;
  const at = records.indexOf(failed.record);
  // What came out of the records before the failing one (a step may drop or keep each).
  const before = new Set<MirrorRecord | undefined>(records.slice(0, at));
  const kept = output.filter((record) => before.has(sourceOf(records, record)));
  return { output: kept, deadLetters: [], failure: failed.error };
}

/** The input record an output record came from: the one at the same source position. */
function sourceOf(records: readonly MirrorRecord[], output: MirrorRecord): MirrorRecord | undefined {
  return records.find(
    (r) => r.source.topic === output.source.topic && r.source.partition === output.source.partition && r.source.offset === output.source.offset,
  );
}
