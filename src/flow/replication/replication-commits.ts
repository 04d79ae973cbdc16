import {
  type MonoTypeOperatorFunction,
  type Observable,
  type SchedulerLike,
  EMPTY,
  catchError,
  concat,
  defer,
  identity,
  ignoreElements,
  tap,
  throwError,
} from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import type { WritePath, WrittenBatches } from '../../core/ports/write-path';
import { flowBatchFailure, flowBatchItemCount, forEachOffsetPair, type FlowBatch, type TopicPartition } from '../../core/record';
import { describeError, type RecordFailedError } from '../../core/errors';
import type { ProgressStore } from '../progress/progress-store';
import type { OffsetSyncEmitter } from '../progress/offset-sync-emitter';
import type { FlowStatus } from '../status/flow-status';
import type { OutageTracker } from '../status/outage-status';
import { retryThroughOutage } from '../operators/retry-through-outage';
import type { ByteBudget } from './flow-control';
import type { LogLifetimes } from './log-lifetimes';

export interface ReplicationCommitsParts {
  readonly progress: ProgressStore;
  readonly offsetSyncEmitter: OffsetSyncEmitter | undefined;
  readonly writePath: WritePath;
  readonly lifetimes: Pick<LogLifetimes, 'current'>;
  readonly budget: ByteBudget;
  readonly outages: { readonly progress: OutageTracker; readonly offsetSyncs: OutageTracker | undefined };
  readonly status: FlowStatus;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

/**
 * What follows the target's acknowledgement of a write (acks=all): the commit marks each batch's
 * progress, feeds the offset-sync emitter, gives its bytes back to the budget and counts it on the
 * flow status; a flush stores the progress and the offset syncs. A source offset counts as done
 * only here, never before the acknowledgement.
 */
export class ReplicationCommits {
  constructor(private readonly parts: ReplicationCommitsParts) {}

  /** After the target's acknowledgement: progress, offset syncs, flow control, status. */
  commit(written: WrittenBatches): Observable<never> {
    const { progress, status, writePath, lifetimes, budget } = this.parts;
    const emitter = this.parts.offsetSyncEmitter;
    let i = 0;
    let failure: RecordFailedError | undefined;
    /** Batches that commit nothing (exactly-once: their slot was lost); rare, so only then a list. */
    let lost: FlowBatch[] | undefined;
    // One function per write, not per record.
    const sync = emitter ? (tp: TopicPartition, sourceOffset: number, targetOffset: number): void => emitter.record(tp, sourceOffset, targetOffset) : undefined;
    for (const batch of written.batches) {
      if (!writePath.commits(batch)) {
        // Nothing of it is visible on the target: not counted as copied (records, bytes, position).
        (lost ??= []).push(batch);
        i += flowBatchItemCount(batch);
        budget.release(batch.bytes);
        continue;
      }
      if (!lifetimes.current(batch)) {
        // On the target as an extra copy of the old log; the new log's progress starts over.
        i += flowBatchItemCount(batch);
        budget.release(batch.bytes);
        continue;
      }
      writePath.acknowledged(batch, written.offsets, i);
      // An offset of -1: the target refused the record (or one of the batch's records), which
      // went to the dead-letter topic; no offset sync can be taken from it.
      i = sync ? forEachOffsetPair(batch, written.offsets, i, sync) : i + flowBatchItemCount(batch);
      progress.markReplicated(batch.source, batch.nextOffset - 1);
      budget.release(batch.bytes);
      failure ??= flowBatchFailure(batch);
    }
    status.recordWrite(lost === undefined ? written.batches : written.batches.filter((batch) => !lost.includes(batch)), Date.now());
    // Tolerance none: what came before the failing record is committed; now the flow stops.
    if (failure !== undefined) return throwError(() => failure);
    if (!emitter) return EMPTY;
    return emitter.emitPending().pipe(
      ignoreElements(),
      catchError((error: unknown) => {
        // The emitter keeps the syncs; the next flush sends them, retrying through an outage.
        this.parts.logger.debug('Writing offset syncs failed; they go with the next flush.', { error: describeError(error) });
        return EMPTY;
      }),
    );
  }

  /**
   * Stores progress (the write path's), then offset syncs. `retrying`: each retries for as long
   * as its failure is retriable (progress is put back on failure, so nothing acknowledged is
   * forgotten); a failure that is not retriable (no permission on the progress topic, say) ends
   * the flow, since replicating on without storing progress would replicate everything again
   * after a restart. `stillMember`: the current assignment's check (a member the group moved on
   * from stores nothing).
   */
  flush(retrying: boolean, stillMember: (() => Promise<boolean>) | undefined): Observable<void> {
    const { writePath, outages, scheduler, status } = this.parts;
    const emitter = this.parts.offsetSyncEmitter;
    const through = (tracker: OutageTracker): MonoTypeOperatorFunction<void> => (retrying ? retryThroughOutage({ tracker, scheduler }) : identity);
    return defer(() => {
      // Connect's offset-commit time: how long storing the progress took (offset-commit-avg-time-ms).
      const startedAt = scheduler.now();
      return concat(
        writePath.flush(stillMember, through(outages.progress)).pipe(tap({ complete: () => status.mirror.offsetCommitted(startedAt, scheduler.now()) })),
        emitter ? emitter.flush().pipe(through(outages.offsetSyncs!)) : EMPTY,
      );
    });
  }
}
