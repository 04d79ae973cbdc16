/**
 * The transactions of an exactly-once flow (`delivery: exactly_once`): a write's batches split by
 * slot, each slot's in one transaction with the progress records of its batches
 * (core/ports/slot-transactions.ts), and the slot count stored in the progress topic. Built by
 * the exactly-once write path (exactly-once-writes.ts), with the flow's log lifetimes and outage
 * trackers; the grouping and the offsets' order are the pure functions below.
 */
import { type Observable, type SchedulerLike, EMPTY, catchError, concat, defer, from, ignoreElements, map, mergeMap, of, tap, throwError } from '#rxjs';
import type { OutboundItem, OutboundRecord, RefusedRecord } from '../../core/ports/record-writer';
import type { Logger } from '../../core/ports/logger';
import type { FlowBatch, RecordFailure, TopicPartition } from '../../core/record';
import { flowBatchDeadLetters, flowBatchItemCount } from '../../core/record';
import { RecordRefusedError } from '../../core/errors';
import { SlotLostError, type DeadLettersInTransaction, type SlotTransactions } from '../../core/ports/slot-transactions';
import type { DeadLetterSink } from './dead-letter-sink';
import type { FlowStatus } from '../status/flow-status';
import type { ProgressStore } from '../progress/progress-store';
import type { OutageTracker } from '../status/outage-status';
import { retryThroughOutage } from '../operators/retry-through-outage';
import { produceRounds } from '../operators/write-batches';
import { slotOf, unheldSlots } from './slots';

/** A slot's share of one write: the indices of its items in the write, and its batches. */
export interface SlotGroup {
  readonly indices: number[];
  readonly batches: FlowBatch[];
}

/** The batches of a write (their items in order, `itemCount` each), grouped by slot. */
export function groupBySlot(
  batches: readonly FlowBatch[],
  itemCount: (batch: FlowBatch) => number,
  slotOfBatch: (batch: FlowBatch) => number,
): Map<number, SlotGroup> {
  const bySlot = new Map<number, SlotGroup>();
  let i = 0;
  for (const batch of batches) {
    const count = itemCount(batch);
    const slot = slotOfBatch(batch);
    let group = bySlot.get(slot);
    if (!group) bySlot.set(slot, (group = { indices: [], batches: [] }));
    for (let j = 0; j < count; j++) group.indices.push(i + j);
    group.batches.push(batch);
    i += count;
  }
  return bySlot;
}

/** The offsets of a transaction's produce rounds back in item order: the rounds' indices, in order, are the items. */
export function roundOffsetsInItemOrder(rounds: readonly { readonly indices: readonly number[] }[], roundOffsets: Float64Array, items: number): Float64Array {
  const out = new Float64Array(items);
  let k = 0;
  for (const round of rounds) for (const index of round.indices) out[index] = roundOffsets[k++]!;
  return out;
}

export interface SlotWritesParts {
  /** The flow's slot count (`tasks`). */
  readonly slots: number;
  readonly transactions: SlotTransactions;
  readonly progress: ProgressStore;
  /** `batching.maxPartitionBytes`: at most this much of one partition per produce round. */
  readonly maxPartitionBytes: number;
  /** False for a batch fetched from a partition's log that restarted since: it stores no progress. */
  readonly current: (batch: FlowBatch) => boolean;
  /** The flow's outage trackers: the transactions' writes, and fencing (with loading progress). */
  readonly outages: { readonly writing: OutageTracker; readonly loading: OutageTracker };
  /** errors.tolerance all: the dead-letter topic, written inside the slots' transactions. */
  readonly deadLetters?: DeadLetterSink;
  /** A record the target refused, named by its source position (`items[error.index]`). */
  readonly refusedFailure: (items: readonly OutboundItem[], error: RecordRefusedError, refused?: RefusedRecord) => RecordFailure;
  readonly status: FlowStatus;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

export class SlotWrites {
  /** Batches whose slot this member lost before they were committed: nothing of them advances. */
  readonly dropped = new WeakSet<FlowBatch>();

  constructor(private readonly parts: SlotWritesParts) {}

  slotOf(tp: TopicPartition): number {
    return slotOf(tp, this.parts.slots);
  }

  /**
   * After an assignment, once this member claimed its slots and before it reads progress, while
   * the slot count is not the stored one: fences every transactional id that no member holds
   * under the current count (`unheldSlots` of `partitions`, all the flow's source partitions).
   * A process left behind with one of those ids (stopped, then resumed after the count changed)
   * could otherwise commit the records of partitions that others own now; fenced first, it
   * cannot commit any more before anything of theirs is read.
   */
  fenceUnheld(partitions: readonly TopicPartition[]): Observable<never> {
    const unheld = unheldSlots(this.parts.progress.storedSlotCount, this.parts.slots, partitions);
    if (unheld.length === 0) return EMPTY;
    return defer(() => this.parts.transactions.fence(unheld)).pipe(
      retryThroughOutage({ tracker: this.parts.outages.loading, scheduler: this.parts.scheduler }),
      ignoreElements(),
      tap({
        complete: () =>
          this.parts.logger.info('Slot count changed: transactional ids no process holds now are fenced.', {
            slots: this.parts.slots,
            stored: this.parts.progress.storedSlotCount,
            fenced: unheld,
          }),
      }),
    );
  }

  /**
   * After an assignment's progress was read: when the stored slot count differs, this member
   * stores the count in a transaction of its lowest slot (every member with partitions may; they
   * store the same). Each did `fenceUnheld` first, so a stored count says that the ids of the
   * count before were fenced. Once per change: the next assignment reads the count stored.
   */
  storeSlotCount(partitions: readonly TopicPartition[]): Observable<never> {
    const { slots } = this.parts;
    const stored = this.parts.progress.storedSlotCount;
    if (stored === slots || partitions.length === 0) return EMPTY;
    const lowest = Math.min(...partitions.map((tp) => this.slotOf(tp)));
    return this.commitSlot(lowest, [], [], [this.parts.progress.slotCountRecord(slots)]).pipe(
      ignoreElements(),
      tap({ complete: () => this.parts.logger.info('Slot count stored.', { slots, before: stored }) }),
      catchError((error: unknown) => {
        // Lost the slot meanwhile: its next owner stores it.
        if (error instanceof SlotLostError) return EMPTY;
        return throwError(() => error);
      }),
    );
  }

  /**
   * A write's batches, split by slot, each slot's in one transaction with the progress records
   * of its batches and their dead letters (slots independent, in parallel). A slot's transaction
   * is retried through outages on its own, so a slot committed is never written again because
   * another failed. A slot lost to another member drops its batches (they commit nothing).
   */
  write(items: readonly OutboundItem[], batches: readonly FlowBatch[]): Observable<Float64Array> {
    const offsets = new Float64Array(items.length);
    const bySlot = groupBySlot(batches, flowBatchItemCount, (batch) => this.slotOf(batch.source));
    return from([...bySlot]).pipe(
      mergeMap(([slot, group]) => {
        const progress = group.batches.filter((b) => this.parts.current(b)).map((b) => ({ tp: b.source, offset: b.nextOffset - 1 }));
        const failed = group.batches.flatMap((b) => flowBatchDeadLetters(b) ?? []);
        return this.commitSlot(
          slot,
          group.indices.map((index) => items[index]!),
          progress,
          [],
          failed,
        ).pipe(
          tap((slotOffsets) => group.indices.forEach((index, j) => (offsets[index] = slotOffsets[j]!))),
          catchError((error: unknown) => {
            if (!(error instanceof SlotLostError)) return throwError(() => error);
            for (const batch of group.batches) this.dropped.add(batch);
            group.indices.forEach((index) => (offsets[index] = -1));
            return EMPTY;
          }),
        );
      }),
      ignoreElements(),
      (done$) => concat(done$, of(offsets)),
    );
  }

  /**
   * One transaction of a slot (its items in produce rounds, its dead letters, then the progress
   * records), retried through outages. Dead letters (errors.tolerance all): `failed` (what the
   * transforms failed on) and the records the target refuses on their own; they are counted once
   * the transaction committed. Without a dead-letter topic, a refused record ends the flow naming
   * it; nothing of the transaction is visible, and progress stays before it.
   */
  commitSlot(
    slot: number,
    items: readonly OutboundItem[],
    progress: readonly { tp: TopicPartition; offset: number }[],
    extra: readonly OutboundRecord[] = [],
    failed: readonly RecordFailure[] = [],
  ): Observable<Float64Array> {
    const { transactions } = this.parts;
    const sink = this.parts.deadLetters;
    const rounds = produceRounds(items, this.parts.maxPartitionBytes);
    // The rounds' items, in order, are the items: the place of each across the rounds.
    const order = rounds.flatMap((r) => r.indices);
    const records = [...this.parts.progress.progressRecords(progress), ...extra];
    let failures: readonly RecordFailure[] = failed;
    const deadLetters: DeadLettersInTransaction | undefined =
      sink === undefined
        ? undefined
        : (refused) => {
            failures = [
              ...failed,
              ...refused.map((r) => this.parts.refusedFailure(items, r.error.at(order[r.index]!, r.offsetInBatch), { ...r, index: order[r.index]! })),
            ];
            return sink.records(failures);
          };
    return defer(() =>
      transactions.commit(
        slot,
        rounds.map((r) => r.records),
        records,
        deadLetters,
      ),
    ).pipe(
      map((roundOffsets) => roundOffsetsInItemOrder(rounds, roundOffsets, items.length)),
      retryThroughOutage({ tracker: this.parts.outages.writing, scheduler: this.parts.scheduler }),
      catchError((error: unknown) => {
        if (!(error instanceof RecordRefusedError)) return throwError(() => error);
        // Refused on its own without a dead-letter topic, or a dead letter refused too.
        const deadLetter = error.index - order.length;
        if (deadLetter >= 0 && sink !== undefined) return throwError(() => sink.refusedFailure(failures[deadLetter]!, error));
        return throwError(() => this.parts.refusedFailure(items, error.at(order[error.index]!, error.offsetInBatch)).error);
      }),
      tap(() => {
        if (failures.length === 0) return;
        sink!.counted(failures);
        // The refused ones were counted as written; the dead-letter topic counts them now.
        this.parts.status.recordsReplicated -= failures.length - failed.length;
      }),
    );
  }
}
