import type { Observable } from '#rxjs';
import type { DecodedSourceBatch, KafkaRecord } from '../record';

/**
 * Reads topics as a member of a consumer group, as an application does: each partition from the
 * group's committed offset (from its log start when it has none), committing what was read as it
 * goes. The DR drill's consumer (src/pipeline/tools/drill.ts).
 */
export interface GroupReader {
  readonly cluster: string;
  /**
   * Joins `group`, reads every partition of `topics` up to `options.ends` (by `topic-partition`;
   * a partition not named there is read up to the end it had when the read began) and completes
   * once every partition got there; unsubscribing leaves the group. Each batch is emitted, and
   * with `options.handle`, the next is fetched only once `handle` settled for it (a failure ends
   * the read with that error): how a copy keeps what it holds in memory bounded.
   */
  readAsGroup(
    group: string,
    topics: readonly string[],
    options?: { readonly ends?: ReadonlyMap<string, number>; readonly handle?: (batch: DecodedSourceBatch) => Promise<void> },
  ): Observable<DecodedSourceBatch>;

  /**
   * Reads offsets `from` up to `to` (exclusive) of the given partitions of `topic`, in order per
   * partition, without committing anything (a throwaway group the broker forgets), handing each
   * run of records to `handle` and fetching the next only once it settled. Records before `from`
   * or at `to` and after are not handed over; offsets without records (transaction markers,
   * compaction) are skipped. Completes once every partition got to `to`, or ended before.
   */
  readRanges(
    topic: string,
    ranges: ReadonlyMap<number, { readonly from: number; readonly to: number }>,
    handle: (partition: number, records: readonly KafkaRecord[]) => Promise<void>,
  ): Promise<void>;
}
