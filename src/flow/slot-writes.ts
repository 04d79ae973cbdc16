/**
 * The write path of an exactly-once flow (`delivery: exactly_once`): a write's batches split by
 * slot, each slot's in one transaction with the progress records of its batches
 * (core/ports/slot-transactions.ts), and the slot count stored in the progress topic. Built by
 * the replication flow (replication-flow.ts), whose positions, lifetimes and outage trackers it
 * shares; the grouping and the offsets' order are the pure functions below.
 */
import { type Observable, type SchedulerLike, EMPTY, catchError, concat, defer, from, ignoreElements, map, mergeMap, of, tap, throwError } from 'rxjs';
import type { OutboundItem, OutboundRecord } from '../core/ports/record-writer';
import type { Logger } from '../core/ports/logger';
import type { FlowBatch, TopicPartition } from '../core/record';
import { flowBatchItemCount } from '../core/record';
import { SlotLostError, type SlotTransactions } from '../core/ports/slot-transactions';
import type { ProgressStore } from './progress-store';
import type { OutageTracker } from './outage-status';
import { retryThroughOutage } from './operators/retry-through-outage';
import { produceRounds } from './operators/write-batches';
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
   * of its batches (slots independent, in parallel). A slot's transaction is retried through
   * outages on its own, so a slot committed is never written again because another failed. A
   * slot lost to another member drops its batches (they commit nothing).
   */
  write(items: readonly OutboundItem[], batches: readonly FlowBatch[]): Observable<Float64Array> {
    const offsets = new Float64Array(items.length);
    const bySlot = groupBySlot(batches, flowBatchItemCount, (batch) => this.slotOf(batch.source));
    return from([...bySlot]).pipe(
      mergeMap(([slot, group]) => {
        const progress = group.batches.filter((b) => this.parts.current(b)).map((b) => ({ tp: b.source, offset: b.nextOffset - 1 }));
        return this.commitSlot(
          slot,
          group.indices.map((index) => items[index]!),
          progress,
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

  /** One transaction of a slot (its items in produce rounds, then the progress records), retried through outages. */
  commitSlot(
    slot: number,
    items: readonly OutboundItem[],
    progress: readonly { tp: TopicPartition; offset: number }[],
    extra: readonly OutboundRecord[] = [],
  ): Observable<Float64Array> {
    const { transactions } = this.parts;
    const rounds = produceRounds(items, this.parts.maxPartitionBytes);
    const records = [...this.parts.progress.progressRecords(progress), ...extra];
    return defer(() =>
      transactions.commit(
        slot,
        rounds.map((r) => r.records),
        records,
      ),
    ).pipe(
      map((roundOffsets) => roundOffsetsInItemOrder(rounds, roundOffsets, items.length)),
      retryThroughOutage({ tracker: this.parts.outages.writing, scheduler: this.parts.scheduler }),
    );
  }
}
