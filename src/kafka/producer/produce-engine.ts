/**
 * The one produce engine: writes items (records, or forwarded record batches) in produce rounds,
 * one record batch per partition in each, in item order, and reads the answer partition by
 * partition. Every writer of mirrorflow's goes through it:
 *
 * | caller                                | sequences (sequence-source.ts)                  | transport                           | delivery      |
 * |---------------------------------------|-------------------------------------------------|-------------------------------------|---------------|
 * | kafkajs-writer.ts, not idempotent     | `UNSEQUENCED`                                   | a kafkajs producer's sendBatch      | at-least-once |
 * | kafkajs-writer.ts, one send at a time | `Idempotence` (idempotence.ts)                  | the same                            | at-least-once |
 * | kafkajs-writer.ts, several in flight  | `InflightIdempotence` (inflight-idempotence.ts) | the same, that many in flight       | at-least-once |
 * | ../transactions/slot-transactions.ts  | `SlotSequences` (slot-sequences.ts)             | Produce at each leader, with the    | transaction   |
 * |                                       |                                                 | transactional id (the port's)       |               |
 *
 * What every one of them gets, made here once:
 * - **Partial answers.** A partition acknowledged is done; the others of the round go again, alone.
 * - **Batches split to fit.** A partition refused as too large (MESSAGE_TOO_LARGE,
 *   RECORD_LIST_TOO_LARGE) wrote nothing: its topic's limit is learnt (half the refused batch's
 *   item bytes, kept in `batchLimits` by whoever outlives the engine), and its items go again at
 *   once in smaller batches; from then on a partition's items past the limit wait for the next
 *   round, so a topic whose `max.message.bytes` is below the request bound still takes
 *   everything, in more requests (as Java's producer splits a batch the broker refused).
 * - **Forwarded batches narrowed to records.** A forwarded batch refused alone goes again as its
 *   records, in its place in the partition's sequences, so that only a record too large on its own
 *   is refused.
 * - **Refusals worded once.** Such a record goes to `onRefused` (offset -1), or, without one,
 *   fails the write with a RecordRefusedError naming it and the limit to raise.
 *
 * Delivery: **at-least-once** (outside a transaction), the rest of a write some partitions of
 * which were acknowledged is retried with backoff for as long as its failure is retriable (giving
 * up would make the caller send the write again whole, writing the acknowledged partitions twice),
 * after the transport renewed its metadata; failures are told as KafkaTransportErrors naming the
 * cluster and topics. In a **transaction**, nothing is retried here: a failure gives the
 * transaction up, and reaches its caller as it came (which translates it, and tells a fenced
 * producer apart).
 */
import { Observable, catchError, defer, firstValueFrom, throwError } from '#rxjs';
import { KafkaTransportError, RecordRefusedError, describeError, isRetriable, type MirrorflowError } from '../../core/errors';
import type { OutboundItem, OutboundRecord, OutboundRecordBatch } from '../../core/record';
import { isRecordBatch, outboundItemBytes, type WriteOptions } from '../../core/ports/record-writer';
import type { Logger } from '../../core/ports/logger';
import { retryWithBackoff, type RetryConfig } from '../../core/retry';
import { toTransportError } from '../errors';
import { kafkajsProtocolErrors } from '../wire/kafkajs-internals';
import { isBatchTooLarge } from '../wire/produce-response';
import { decodeRecordBatch } from '../wire/fetch-decoder';
import type { PartitionAnswer, ProducePartition, SequencePlace, SequenceSource, WriteSequences } from './sequence-source';

export type { PartitionAnswer, ProducePartition } from './sequence-source';

/** What the transport noted about a write's last send (the writer: the kafkajs producer it went through). */
export interface ProduceAttempt {
  sentThrough?: object;
}

/** Where a round's partitions go. */
export interface ProduceTransport {
  /** Made ready (connected) before a round is stamped, so that a connect that fails leaves no send in doubt. */
  ready?(): Promise<void>;
  /**
   * One produce round: each partition's items as one record batch, carrying its `stamp`, acks=all.
   * Answers the partitions it sent; one left out (not in the client's metadata yet) has none.
   * `attempt` is the same object for every round of one write.
   */
  send(partitions: readonly ProducePartition[], attempt: ProduceAttempt): Promise<readonly PartitionAnswer[]>;
  /** Before the rest of a write goes again (at-least-once): fresh metadata, unless another write renewed it since `attempt`. */
  renew?(attempt: ProduceAttempt): Promise<void>;
}

export type Delivery = { readonly kind: 'at-least-once'; readonly partialRetry: RetryConfig } | { readonly kind: 'transaction' };

export interface ProduceEngineSettings {
  readonly cluster: string;
  readonly transport: ProduceTransport;
  readonly sequences: SequenceSource;
  /** Per topic, the most item bytes of one partition that go in one request, learnt from refusals. */
  readonly batchLimits: Map<string, number>;
  readonly delivery: Delivery;
  readonly logger?: Logger;
}

interface RoundResult {
  /** Items not acknowledged, in order. */
  readonly left: number[];
  /** The first partition error, if any (a batch split to fit is not one). */
  readonly failure?: Error & { readonly retriable?: boolean };
  /** Items are left only because a batch had to be made smaller, or needs a new producer id: send them again at once. */
  readonly again: boolean;
}

export class ProduceEngine {
  private readonly cluster: string;
  private readonly inTransaction: boolean;

  constructor(private readonly settings: ProduceEngineSettings) {
    this.cluster = settings.cluster;
    this.inTransaction = settings.delivery.kind === 'transaction';
  }

  /**
   * Emits once, with each item's offset (for a forwarded batch, of its first record; -1 for an
   * item with a refused record), once every item was acknowledged or refused.
   */
  write(items: readonly OutboundItem[], options: WriteOptions = {}): Observable<Float64Array> {
    return this.writeAt(items, options, undefined);
  }

  /** `place`: a forwarded batch's records, written in the batch's place in its partition's sequences. */
  private writeAt(items: readonly OutboundItem[], options: WriteOptions, place: SequencePlace | undefined): Observable<Float64Array> {
    return new Observable<Float64Array>((subscriber) => {
      const sequences = this.settings.sequences.write(items, place);
      const rounds = this.rounds(items, options, sequences);
      if (sequences.abandon === undefined) return rounds.subscribe(subscriber);
      let settled = false;
      const subscription = rounds.subscribe({
        next: (offsets) => subscriber.next(offsets),
        error: (error: unknown) => {
          settled = true;
          subscriber.error(error);
        },
        complete: () => {
          settled = true;
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        if (!settled) sequences.abandon!();
      };
    });
  }

  private rounds(items: readonly OutboundItem[], options: WriteOptions, sequences: WriteSequences): Observable<Float64Array> {
    const attempt: ProduceAttempt = {};
    const offsets = new Float64Array(items.length);
    let pending: readonly number[] = items.map((_, i) => i);
    /** Sends what is pending; fails when something is left (retriably, unless a partition's error is not). */
    const round = async (): Promise<Float64Array> => {
      for (;;) {
        let result: RoundResult;
        try {
          result = await this.round(items, pending, offsets, options, sequences, attempt);
        } catch (error) {
          throw this.inTransaction ? error : toTransportError(this.cluster, error, `Writing records to ${topicsOf(items, pending)}`);
        }
        const { left, failure, again } = result;
        pending = left;
        if (left.length === 0) return offsets;
        if (failure !== undefined && (this.inTransaction || !failure.retriable)) throw failure;
        if (failure === undefined && again) continue;
        const reason = failure?.message ?? 'partitions missing from the producer metadata';
        throw new KafkaTransportError(this.cluster, `Writing records failed: ${left.length} of ${items.length} items were not acknowledged (${reason})`, true);
      }
    };
    const { delivery } = this.settings;
    if (delivery.kind === 'transaction') return defer(round);
    return defer(round).pipe(
      catchError((error: unknown) => {
        // Nothing of this write is on the target yet (the caller retries it whole), or
        // retrying cannot help.
        if (pending.length === items.length || !isRetriable(error)) return throwError(() => error);
        // Some partitions were written and others not. Sending the write again whole would
        // write the first ones twice, so only the rest go again, with fresh metadata (a
        // partition not led where the producer thought, or one it did not know of yet).
        const { logger } = this.settings;
        logger?.warn('Some partitions of a write were not acknowledged; writing them again.', { items: pending.length, error: describeError(error) });
        return defer(async () => {
          await this.settings.transport.renew?.(attempt);
          return round();
        }).pipe(
          retryWithBackoff({
            ...delivery.partialRetry,
            onRetry: (retryError, attemptNumber, delayMs) => {
              const meta = { items: pending.length, attempt: attemptNumber, delayMs, error: describeError(retryError) };
              // A caller that reports outages is told instead of a warning per retry.
              if (options.onRetry === undefined) logger?.warn('Some partitions of a write were not acknowledged; writing them again.', meta);
              else {
                logger?.debug('Some partitions of a write were not acknowledged; writing them again.', meta);
                options.onRetry(retryError);
              }
            },
          }),
        );
      }),
    );
  }

  /**
   * One produce round for `indices` of `items`: sets `offsets` for the items whose partition
   * acknowledged, returns the others with the first partition error, if any.
   */
  private async round(
    items: readonly OutboundItem[],
    indices: readonly number[],
    offsets: Float64Array,
    options: WriteOptions,
    sequences: WriteSequences,
    attempt: ProduceAttempt,
  ): Promise<RoundResult> {
    const { partitions, byTopic, heldBack } = this.partitionsOf(items, indices);
    await this.settings.transport.ready?.();
    const answered: ProducePartition[] = [];
    await sequences.round(partitions, async () => {
      for (const answer of await this.settings.transport.send(partitions, attempt)) {
        const p = byTopic.get(answer.topic)?.get(answer.partition);
        if (p === undefined || p.answer !== undefined) continue;
        p.answer = answer;
        answered.push(p);
      }
    });
    let failure: RoundResult['failure'];
    let again = heldBack.length > 0;
    for (const p of answered) {
      if (p.verdict === 'again') {
        again = true;
        continue;
      }
      const { errorCode, baseOffset } = p.answer!;
      if (p.verdict === 'written') {
        p.done = true;
        // A duplicate the broker has no offsets for any more comes with -1: written, no offsets.
        let offset = baseOffset;
        for (let j = 0; j < p.indices.length; j++) {
          offsets[p.indices[j]!] = baseOffset < 0 ? -1 : offset;
          offset += p.counts[j]!;
        }
        continue;
      }
      if (!isBatchTooLarge(errorCode)) {
        failure ??= this.partitionFailure(p, errorCode);
        continue;
      }
      if (p.items.length > 1) {
        // Half as much for this topic from now on; the items go again at once.
        const bytes = p.items.reduce((sum, item) => sum + outboundItemBytes(item), 0);
        this.settings.batchLimits.set(p.topic, Math.min(this.settings.batchLimits.get(p.topic) ?? Infinity, Math.floor(bytes / 2)));
        again = true;
        continue;
      }
      // One item alone is too large for the topic: a forwarded batch is narrowed to its
      // records; a single record is refused for good.
      const index = p.indices[0]!;
      const item = p.items[0]!;
      if (isRecordBatch(item) && item.batch.recordCount > 1) {
        offsets[index] = await this.writeNarrowed(item, index, options, sequences.place?.(p, index));
        p.done = true;
        continue;
      }
      const error = this.refusal(p, index, item, errorCode);
      if (options.onRefused === undefined) {
        failure ??= error;
        continue;
      }
      options.onRefused({ index, offsetInBatch: 0, record: isRecordBatch(item) ? (await recordsOf(item))[0]! : item, error });
      offsets[index] = -1;
      sequences.refused?.(p);
      p.done = true;
    }
    // What is left: partitions that failed, and those the request left out (a client's metadata
    // that does not know them yet, right after partitions were added, say).
    const left: number[] = [];
    for (const p of partitions) if (p.done !== true) for (const i of p.indices) left.push(i);
    // Held-back items follow the sent ones of their partition: in item order, they stay in order.
    if (heldBack.length > 0) {
      // One by one: a spread passes an argument per item, and past ~120,000 the call overflows the stack.
      for (const i of heldBack) left.push(i);
      left.sort((a, b) => a - b);
    }
    return failure === undefined ? { left, again } : { left, failure, again };
  }

  /** The items by partition; a partition's items past its topic's learnt limit wait for the next round (`heldBack`). */
  private partitionsOf(
    items: readonly OutboundItem[],
    indices: readonly number[],
  ): { partitions: ProducePartition[]; byTopic: Map<string, Map<number, ProducePartition>>; heldBack: number[] } {
    const partitions: ProducePartition[] = [];
    const byTopic = new Map<string, Map<number, ProducePartition>>();
    const heldBack: number[] = [];
    const limits = this.settings.batchLimits;
    for (const i of indices) {
      const item = items[i]!;
      let ofTopic = byTopic.get(item.topic);
      if (!ofTopic) byTopic.set(item.topic, (ofTopic = new Map()));
      let p = ofTopic.get(item.partition);
      if (!p) {
        p = { topic: item.topic, partition: item.partition, items: [], indices: [], counts: [], records: 0, bytes: 0, heldBack: false };
        ofTopic.set(item.partition, p);
        partitions.push(p);
      }
      const limit = limits.size === 0 ? undefined : limits.get(item.topic);
      if (limit !== undefined) {
        // Sizes are counted only for topics that refused a batch as too large.
        const bytes = outboundItemBytes(item);
        if (p.heldBack || (p.items.length > 0 && p.bytes + bytes > limit)) {
          p.heldBack = true;
          heldBack.push(i);
          continue;
        }
        p.bytes += bytes;
      }
      const count = isRecordBatch(item) ? item.batch.recordCount : 1;
      p.items.push(item);
      p.indices.push(i);
      p.counts.push(count);
      p.records += count;
    }
    return { partitions, byTopic, heldBack };
  }

  /** A partition's error: translated for an at-least-once writer; as kafkajs names it in a transaction (which translates it). */
  private partitionFailure(p: ProducePartition, errorCode: number): MirrorflowError | (Error & { retriable: boolean }) {
    const error = kafkajsProtocolErrors().createErrorFromCode(errorCode);
    return this.inTransaction ? error : toTransportError(this.cluster, error, `Writing records to ${p.topic}-${p.partition}`);
  }

  /** One record (or a forwarded batch of one) is too large: no smaller batch can carry it. */
  private refusal(p: ProducePartition, index: number, item: OutboundItem, errorCode: number): RecordRefusedError {
    return new RecordRefusedError(
      this.cluster,
      index,
      0,
      `a record of about ${outboundItemBytes(item)} bytes is larger than ${p.topic}-${p.partition} takes (the target topic's max.message.bytes, or the broker's message.max.bytes); raise that limit on the target.`,
      { cause: kafkajsProtocolErrors().createErrorFromCode(errorCode) },
    );
  }

  /**
   * A forwarded batch the topic refused even alone: its records go as records, in as many
   * rounds as they need, so that only a record too large on its own is refused. Returns where
   * its first record landed, or -1 when one was refused (the others then do not sit at
   * consecutive offsets, which is what a forwarded batch's offset promises).
   */
  private async writeNarrowed(item: OutboundRecordBatch, index: number, options: WriteOptions, place: SequencePlace | undefined): Promise<number> {
    const records = await recordsOf(item);
    let refused = false;
    const { onRefused } = options;
    const nested: WriteOptions =
      onRefused === undefined
        ? {}
        : {
            onRefused: (r) => {
              refused = true;
              onRefused({ index, offsetInBatch: r.index, record: r.record, error: r.error.at(index, r.index) });
            },
          };
    try {
      const offsets = await firstValueFrom(this.writeAt(records, nested, place));
      return refused ? -1 : offsets[0]!;
    } catch (error) {
      throw error instanceof RecordRefusedError ? error.at(index, error.index) : error;
    }
  }
}

/** A forwarded record batch's records, addressed as it was. */
async function recordsOf(item: OutboundRecordBatch): Promise<OutboundRecord[]> {
  return (await decodeRecordBatch(item.batch.bytes)).map((r) => ({
    topic: item.topic,
    partition: item.partition,
    timestamp: Number(r.timestamp),
    key: r.key,
    value: r.value,
    headers: r.headers,
  }));
}

/** `topic "a"` or `topics "a", "b" and 3 more`: where the pending items of a write go, for messages. */
function topicsOf(items: readonly OutboundItem[], pending: readonly number[]): string {
  const topics = [...new Set(pending.map((i) => items[i]!.topic))];
  const shown = topics.slice(0, 5).map((t) => `"${t}"`);
  const more = topics.length - shown.length;
  return `${topics.length === 1 ? 'topic' : 'topics'} ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
