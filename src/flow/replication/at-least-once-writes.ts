import { type MonoTypeOperatorFunction, type Observable, type SchedulerLike, EMPTY, catchError, concat, concatMap, defer, map, of, throwError } from '#rxjs';
import type { RecordWriter, RefusedRecord, WriteOptions } from '../../core/ports/record-writer';
import type { Assignment, PartitionStart, WritePath, WrittenBatches } from '../../core/ports/write-path';
import { flowBatchDeadLetters, type FlowBatch, type OutboundItem, type RecordFailure, type SourceBatch, type TopicPartition } from '../../core/record';
import { RecordRefusedError } from '../../core/errors';
import type { ProgressStore } from '../progress/progress-store';
import type { FlowStatus } from '../status/flow-status';
import type { OutageTracker } from '../status/outage-status';
import { retryThroughOutage } from '../operators/retry-through-outage';
import type { DeadLetterSink } from './dead-letter-sink';
import type { RemoteNames } from './remote-names';

export interface AtLeastOnceWritesParts {
  readonly writer: RecordWriter;
  readonly progress: ProgressStore;
  /** errors.tolerance all: where failed records go. */
  readonly deadLetters?: DeadLetterSink;
  /** Names a refused record by its source. */
  readonly names: Pick<RemoteNames, 'refused'>;
  /** The flow's outage of writing records. */
  readonly writing: OutageTracker;
  readonly status: FlowStatus;
  readonly scheduler: SchedulerLike;
}

/**
 * The at-least-once write path (`delivery: at_least_once`): records are written with acks=all,
 * their progress is stored on its own afterwards, so a crash in between copies them again — never
 * skips them. Records that fail (a transform threw, the target refuses one on its own) go to the
 * dead-letter topic before their batch commits; without one, the flow stops just before them.
 */
export class AtLeastOnceWrites implements WritePath {
  readonly slots = undefined;
  readonly writesWhole = false;

  constructor(protected readonly parts: AtLeastOnceWritesParts) {}

  assigning(_assignment: Assignment): Observable<never> {
    return EMPTY;
  }

  assigned(_partitions: readonly TopicPartition[]): Observable<never> {
    return EMPTY;
  }

  revoked(): void {}

  startAt(start: PartitionStart): Promise<number> {
    return start.progress === undefined ? start.bySetting() : Promise.resolve(start.progress);
  }

  async storeStart(tp: TopicPartition, lastOffset: number, flush: () => Promise<void>): Promise<void> {
    this.parts.progress.markReplicated(tp, lastOffset);
    await flush();
  }

  fetched(_batch: SourceBatch, _remote: string): void {}

  /**
   * One write to the target, retried for as long as the failure is retriable (a target down for
   * hours is waited for). Records it refuses on their own go to the dead-letter sink (tolerance
   * all) before the write counts as done, or fail the flow naming their source (none).
   */
  write(items: readonly OutboundItem[]): Observable<Float64Array> {
    const { deadLetters, writer, writing: tracker, scheduler, names } = this.parts;
    const refused: RefusedRecord[] = [];
    return defer(() => {
      // The writer retries the rest of a partly acknowledged write itself: its failures are this write's outage too.
      const holder = {};
      const options: WriteOptions = {
        onRetry: (error) => tracker.failed(error, holder),
        ...(deadLetters === undefined ? {} : { onRefused: (r: RefusedRecord) => refused.push(r) }),
      };
      return defer(() => {
        // A write sent again whole after a retriable failure reports its refusals again.
        refused.length = 0;
        return concat(this.beforeWrite(), writer.write(items, options));
      }).pipe(retryThroughOutage({ tracker, scheduler, holder }));
    }).pipe(
      catchError((error: unknown) => throwError(() => (error instanceof RecordRefusedError ? names.refused(items, error).error : error))),
      concatMap((offsets) => {
        if (refused.length === 0 || deadLetters === undefined) return of(offsets);
        const failures = refused.map((r) => names.refused(items, r.error, r));
        // They were counted as written; the dead-letter sink counts them now.
        this.parts.status.recordsReplicated -= failures.length;
        return deadLetters.write(failures).pipe(map(() => offsets));
      }),
    );
  }

  /** Failures of the written batches' transforms go to the dead-letter topic; the batches follow once it acknowledged them. */
  deadLetter(written: WrittenBatches): Observable<WrittenBatches> {
    const sink = this.parts.deadLetters;
    if (sink === undefined) return of(written);
    let failures: RecordFailure[] | undefined;
    for (const batch of written.batches) {
      const dead = flowBatchDeadLetters(batch);
      // One by one: a batch may hold more failed records than a call takes arguments.
      if (dead !== undefined) for (const failure of dead) (failures ??= []).push(failure);
    }
    return failures === undefined ? of(written) : sink.write(failures).pipe(map(() => written));
  }

  commits(_batch: FlowBatch): boolean {
    return true;
  }

  acknowledged(_batch: FlowBatch, _offsets: Float64Array, _from: number): void {}

  flush(stillMember: (() => Promise<boolean>) | undefined, each: MonoTypeOperatorFunction<void>): Observable<void> {
    // A member the group moved on from stores nothing (ProgressStore.flush).
    return concat(this.beforeWrite().pipe(each), this.parts.progress.flush(stillMember).pipe(each));
  }

  /** What is stored before each write and before progress: nothing here (preserved offsets: its markers). */
  protected beforeWrite(): Observable<never> {
    return EMPTY;
  }
}
