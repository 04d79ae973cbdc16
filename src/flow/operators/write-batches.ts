import { Observable, type OperatorFunction, type SchedulerLike, Subscription, asyncScheduler, concatMap, from, reduce, map, mergeMap, of } from '#rxjs';
import type { FlowBatch } from '../../core/record';
import { outboundItemBytes, outboundItemKind, type OutboundItem, type OutboundItemKind } from '../../core/ports/record-writer';
import type { WrittenBatches } from '../../core/ports/write-path';
import { flowBatchRecordCount, pushFlowBatchItems } from '../../core/record';

/** How long a batch waits for more while another write is out, when `batching.max_wait_ms` is unset. */
export const BUSY_WAIT_MS = 10;

/** One batching policy: the first limit reached flushes. */
export interface BatchPolicy {
  /** Most records in one write. */
  readonly maxRecords: number;
  /** Most payload bytes in one write. */
  readonly maxBytes: number;
  /** How long the first waiting record may wait for more while a slot is free. 0 = no wait. */
  readonly maxWaitMs: number;
  /**
   * false: with no write out, a batch goes at once (with what arrives in the same turn: the other
   * partitions of its fetch), and `maxWaitMs` holds it only while another write is out. true: it
   * waits `maxWaitMs` however idle the target is (Kafka's `linger.ms`). true unless set.
   */
  readonly waitWhenIdle?: boolean;
  /** Most payload bytes for one partition in one produce request (the broker's record-batch limit). */
  readonly maxPartitionBytes: number;
  /** Writes in flight at once (`producer.max_in_flight`); 1 unless set. Their results are emitted in input order. */
  readonly maxInFlight?: number;
}

/**
 * Runs `work` once, when the current turn of the event loop is over, its promise jobs included
 * (the other partitions of a fetch reach the sink a few promise jobs after the first), and
 * cancels it on unsubscribe. On the real clock (`asyncScheduler`) that is `setImmediate`: a 0 ms
 * timer waits at least 1 ms in Node and runs only in the next timers phase, which every write to
 * an idle target waited for. Any other scheduler (a virtual one in specs) gets a 0 ms action.
 */
export function atEndOfTurn(scheduler: SchedulerLike, work: () => void): Subscription {
  if (scheduler !== asyncScheduler) return scheduler.schedule(work, 0);
  const handle = setImmediate(work);
  return new Subscription(() => clearImmediate(handle));
}

/** Writes a write's items; `batches` are the flow batches they come from, in order. */
export type WriteRecords = (items: readonly OutboundItem[], batches: readonly FlowBatch[]) => Observable<Float64Array>;

/**
 * The batched sink. Collects flow batches and writes them with up to `maxInFlight` writes in
 * flight at once (one by default): while every slot is taken, arriving batches pile up and go out
 * together as soon as a write returns, so batches grow with load and latency stays low when idle;
 * with a slot free, a batch goes once the limits are reached or after `maxWaitMs` (at once, with
 * what arrives in the same turn, when no write is out and `waitWhenIdle` is false). Whole flow
 * batches are never split across writes (their progress commits as one); a write is split into
 * several produce rounds only where one partition's records would exceed `maxPartitionBytes`.
 *
 * Emits in input order: a write that returns before an earlier one waits for it, so whoever
 * commits the results (progress, offset syncs) only ever passes the acknowledged prefix of each
 * partition. Completes after the last write when the input completes.
 */
export function writeBatches(
  policy: BatchPolicy,
  write: WriteRecords,
  scheduler: SchedulerLike = asyncScheduler,
  /** The writer splits a write into produce rounds itself (exactly-once: all rounds in one transaction per slot). */
  whole = false,
): OperatorFunction<FlowBatch, WrittenBatches> {
  return (source) =>
    new Observable<WrittenBatches>((subscriber) => {
      const pending: FlowBatch[] = [];
      let pendingRecords = 0;
      let pendingBytes = 0;
      /** Writes out, oldest first; `offsets` once acknowledged, emitted when every earlier one was. */
      const inFlight: { batches: FlowBatch[]; offsets?: Float64Array; subscription?: Subscription }[] = [];
      const maxInFlight = Math.max(1, policy.maxInFlight ?? 1);
      let timer: Subscription | undefined;
      let sourceDone = false;

      const full = (): boolean => pendingRecords >= policy.maxRecords || pendingBytes >= policy.maxBytes;

      const takeWrite = (): FlowBatch[] => {
        const taken: FlowBatch[] = [];
        let records = 0;
        let bytes = 0;
        while (pending.length > 0) {
          const next = pending[0]!;
          const count = flowBatchRecordCount(next);
          if (taken.length > 0 && (records + count > policy.maxRecords || bytes + next.bytes > policy.maxBytes)) break;
          taken.push(pending.shift()!);
          records += count;
          bytes += next.bytes;
        }
        pendingRecords -= records;
        pendingBytes -= bytes;
        return taken;
      };

      const emitDone = (): void => {
        while (inFlight.length > 0 && inFlight[0]!.offsets !== undefined) {
          const head = inFlight.shift()!;
          subscriber.next({ batches: head.batches, offsets: head.offsets! });
        }
      };

      const flush = (): void => {
        timer?.unsubscribe();
        timer = undefined;
        if (inFlight.length >= maxInFlight || pending.length === 0) {
          if (inFlight.length === 0 && sourceDone) subscriber.complete();
          return;
        }
        const batches = takeWrite();
        const records: OutboundItem[] = [];
        for (const b of batches) pushFlowBatchItems(b, records);
        const entry: (typeof inFlight)[number] = { batches };
        inFlight.push(entry);
        const done = (offsets: Float64Array): void => {
          entry.offsets = offsets;
          delete entry.subscription;
          emitDone();
          // Whatever arrived during the write has waited long enough: send it now.
          if (pending.length > 0 || sourceDone) flush();
        };
        const written =
          records.length === 0 && !whole
            ? of(new Float64Array(0))
            : whole
              ? write(records, batches)
              : writeInRounds(records, policy.maxPartitionBytes, (round) => write(round, batches), maxInFlight > 1);
        // A write that answers synchronously (no records, or a test fake) completes before
        // `subscribe` returns; handle it after, so `inFlight` is never left pointing at it.
        let syncResult: Float64Array | undefined;
        let sync = true;
        const subscription = written.subscribe({
          next: (offsets) => {
            if (sync) syncResult = offsets;
            else done(offsets);
          },
          error: (error: unknown) => subscriber.error(error),
        });
        sync = false;
        if (syncResult) done(syncResult);
        else if (!subscription.closed) entry.subscription = subscription;
        // A slot still free takes what is already full.
        if (inFlight.length < maxInFlight && full()) flush();
      };

      const schedule = (): void => {
        if (inFlight.length >= maxInFlight) return;
        if (full() || policy.maxWaitMs <= 0) {
          flush();
          return;
        }
        timer ??= inFlight.length === 0 && policy.waitWhenIdle === false ? atEndOfTurn(scheduler, flush) : scheduler.schedule(flush, policy.maxWaitMs);
      };

      const input = source.subscribe({
        next: (batch) => {
          pending.push(batch);
          pendingRecords += flowBatchRecordCount(batch);
          pendingBytes += batch.bytes;
          schedule();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          flush();
        },
      });

      return () => {
        input.unsubscribe();
        timer?.unsubscribe();
        for (const w of inFlight) w.subscription?.unsubscribe();
      };
    });
}

interface RoundState {
  round: number;
  bytes: number;
  kind: OutboundItemKind | undefined;
}

/**
 * Splits records into produce rounds so that no partition gets more than `maxPartitionBytes`, nor
 * items of different kinds (see OutboundItemKind), in one request, and stitches the offsets back
 * into input order. The common case is a single round.
 *
 * One write in flight: the rounds go one after another, which keeps each partition's order.
 * Several (`overlapping`): every round is written at once, in order, before the next write is;
 * the writer places a write's records in their partitions' order when it is subscribed
 * (kafkajs-writer.ts, inflight-sequences.ts), so a round subscribed only after the previous one
 * was acknowledged would be placed behind the writes sent meanwhile — its records written after
 * later ones.
 */
function writeInRounds(
  records: readonly OutboundItem[],
  maxPartitionBytes: number,
  write: (items: readonly OutboundItem[]) => Observable<Float64Array>,
  overlapping: boolean,
): Observable<Float64Array> {
  const rounds = produceRounds(records, maxPartitionBytes);
  if (rounds.length === 1) return write(records);
  const writeRound = (round: (typeof rounds)[number]): Observable<{ round: (typeof rounds)[number]; offsets: Float64Array }> =>
    write(round.records).pipe(map((offsets) => ({ round, offsets })));
  return from(rounds).pipe(
    overlapping ? mergeMap(writeRound) : concatMap(writeRound),
    reduce((all, { round, offsets }) => {
      for (let j = 0; j < round.indices.length; j++) all[round.indices[j]!] = offsets[j]!;
      return all;
    }, new Float64Array(records.length)),
  );
}

/**
 * The produce rounds of a write: no partition gets more than `maxPartitionBytes`, nor items of
 * different kinds (see OutboundItemKind), in one round; each round's items with their indices
 * in `records`, in order. The common case is a single round.
 */
export function produceRounds(records: readonly OutboundItem[], maxPartitionBytes: number): { records: OutboundItem[]; indices: number[] }[] {
  const roundOf = new Uint32Array(records.length);
  const byTopic = new Map<string, Map<number, RoundState>>();
  let rounds = 1;
  // Consecutive records usually share a partition: remember the last one to skip the lookups.
  let lastTopic: string | undefined;
  let lastPartition = -1;
  let state: RoundState | undefined;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if (r.topic !== lastTopic || r.partition !== lastPartition) {
      let partitions = byTopic.get(r.topic);
      if (!partitions) byTopic.set(r.topic, (partitions = new Map()));
      state = partitions.get(r.partition);
      if (!state) partitions.set(r.partition, (state = { round: 0, bytes: 0, kind: undefined }));
      lastTopic = r.topic;
      lastPartition = r.partition;
    }
    const kind = outboundItemKind(r);
    const size = outboundItemBytes(r);
    if (state!.kind !== undefined && (kind !== state!.kind || kind === 'compressed' || state!.bytes + size > maxPartitionBytes)) {
      state!.round++;
      state!.bytes = 0;
      if (state!.round + 1 > rounds) rounds = state!.round + 1;
    }
    state!.kind = kind;
    state!.bytes += size;
    roundOf[i] = state!.round;
  }
  if (rounds === 1) return [{ records: [...records], indices: records.map((_, i) => i) }];
  const perRound: { records: OutboundItem[]; indices: number[] }[] = Array.from({ length: rounds }, () => ({ records: [], indices: [] }));
  for (let i = 0; i < records.length; i++) {
    const round = perRound[roundOf[i]!]!;
    round.records.push(records[i]!);
    round.indices.push(i);
  }
  return perRound;
}
