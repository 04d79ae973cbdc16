import { type Observable, type OperatorFunction, mergeMap } from '#rxjs';
import type { WrittenBatches } from '../../core/ports/write-path';

/**
 * The last step of the replication graph: each acknowledged write is committed (`commit`:
 * progress, offset syncs, byte budget, status). Nothing passes on; a commit's failure (a failed
 * record under errors.tolerance none) ends the graph.
 */
export function commitWritten(commit: (written: WrittenBatches) => Observable<never>): OperatorFunction<WrittenBatches, never> {
  return mergeMap(commit);
}
