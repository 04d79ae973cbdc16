import type { Observable } from 'rxjs';
import type { DecodedSourceBatch } from '../record';

/**
 * Reads topics as a member of a consumer group, as an application does: each partition from the
 * group's committed offset (from its log start when it has none), committing what was read as it
 * goes. The DR drill's consumer (src/pipeline/tools/drill.ts).
 */
export interface GroupReader {
  readonly cluster: string;
  /**
   * Joins `group`, reads every partition of `topics` up to `ends` (by `topic-partition`; a
   * partition not named there is read up to the end it had when the read began) and completes
   * once every partition got there; unsubscribing leaves the group.
   */
  readAsGroup(group: string, topics: readonly string[], ends?: ReadonlyMap<string, number>): Observable<DecodedSourceBatch>;
}
