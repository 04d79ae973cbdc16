import { type Observable, type SchedulerLike, EMPTY, concat, defer, ignoreElements, lastValueFrom, of } from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import type { SlotCount } from '../../core/ports/record-source';
import type { SlotTransactions } from '../../core/ports/slot-transactions';
import type { Assignment, PartitionStart, WritePath, WrittenBatches } from '../../core/ports/write-path';
import type { FlowBatch, OutboundItem, SourceBatch, TopicPartition } from '../../core/record';
import type { ProgressStore } from '../progress/progress-store';
import type { FlowStatus } from '../status/flow-status';
import type { OutageTracker } from '../status/outage-status';
import { retryThroughOutage } from '../operators/retry-through-outage';
import type { DeadLetterSink } from './dead-letter-sink';
import type { LogLifetimes } from './log-lifetimes';
import type { RemoteNames } from './remote-names';
import { SlotWrites } from './slot-writes';

export interface ExactlyOnceWritesParts {
  /** The flow's slot count (`tasks`). */
  readonly slots: number;
  readonly transactions: SlotTransactions;
  readonly progress: ProgressStore;
  /** `batching.maxPartitionBytes`: at most this much of one partition per produce round. */
  readonly maxPartitionBytes: number;
  /** Tells batches of a restarted log apart: they store no progress. */
  readonly lifetimes: Pick<LogLifetimes, 'current'>;
  readonly names: Pick<RemoteNames, 'refused'>;
  /** The flow's outages: the transactions' writes, and claiming and fencing (with loading progress). */
  readonly outages: { readonly writing: OutageTracker; readonly loading: OutageTracker };
  /** errors.tolerance all: the dead-letter topic, written inside the slots' transactions. */
  readonly deadLetters?: DeadLetterSink;
  readonly status: FlowStatus;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

/**
 * The exactly-once write path (`delivery: exactly_once`): a write's records, their dead letters
 * and their progress go in one transaction per slot (slot-writes.ts); progress is never stored on
 * its own. A slot's producer is claimed on every assignment before any progress is read, which
 * fences its earlier holder; a batch whose slot was lost commits nothing.
 */
export class ExactlyOnceWrites implements WritePath {
  readonly slots: SlotCount;
  readonly writesWhole = true;
  private readonly slotWrites: SlotWrites;

  constructor(private readonly parts: ExactlyOnceWritesParts) {
    this.slotWrites = new SlotWrites({
      slots: parts.slots,
      transactions: parts.transactions,
      progress: parts.progress,
      maxPartitionBytes: parts.maxPartitionBytes,
      current: (batch) => parts.lifetimes.current(batch),
      outages: parts.outages,
      ...(parts.deadLetters === undefined ? {} : { deadLetters: parts.deadLetters }),
      refusedFailure: (items, error, refused) => parts.names.refused(items, error, refused),
      status: parts.status,
      scheduler: parts.scheduler,
      logger: parts.logger,
    });
    this.slots = { count: parts.slots, of: (tp) => this.slotWrites.slotOf(tp) };
  }

  /**
   * The slots' producers are claimed first, which fences their earlier holders (their open
   * transactions are aborted); under a changed slot count, the ids nobody holds now are fenced
   * too. Only then is progress read, read_committed.
   */
  assigning({ partitions, stillMember, subscribed }: Assignment): Observable<never> {
    const { transactions, outages, scheduler } = this.parts;
    const claimed$ = defer(() => transactions.claim([...new Set(partitions.map((tp) => this.slotWrites.slotOf(tp)))], stillMember)).pipe(
      retryThroughOutage({ tracker: outages.loading, scheduler }),
      ignoreElements(),
    );
    return concat(
      claimed$,
      defer(() => this.slotWrites.fenceUnheld(subscribed())),
    );
  }

  assigned(partitions: readonly TopicPartition[]): Observable<never> {
    return defer(() => this.slotWrites.storeSlotCount(partitions));
  }

  revoked(): void {
    // The slots go with the partitions; the next assignment claims its own anew.
    this.parts.transactions.release();
  }

  startAt(start: PartitionStart): Promise<number> {
    return start.progress === undefined ? start.bySetting() : Promise.resolve(start.progress);
  }

  /** Stored in a transaction of the partition's slot, as all progress of the flow is. */
  async storeStart(tp: TopicPartition, lastOffset: number): Promise<void> {
    await lastValueFrom(this.slotWrites.commitSlot(this.slotWrites.slotOf(tp), [], [{ tp, offset: lastOffset }]), { defaultValue: undefined });
    this.parts.progress.markReplicated(tp, lastOffset);
  }

  fetched(_batch: SourceBatch, _remote: string): void {}

  write(items: readonly OutboundItem[], batches: readonly FlowBatch[]): Observable<Float64Array> {
    return this.slotWrites.write(items, batches);
  }

  /** They went in the batches' transactions. */
  deadLetter(written: WrittenBatches): Observable<WrittenBatches> {
    return of(written);
  }

  /** A batch whose slot was lost before its commit: nothing of it is visible on the target. */
  commits(batch: FlowBatch): boolean {
    return !this.slotWrites.dropped.has(batch);
  }

  acknowledged(_batch: FlowBatch, _offsets: Float64Array, _from: number): void {}

  /** Progress is written inside the transactions, never on its own. */
  flush(): Observable<void> {
    return EMPTY;
  }
}
