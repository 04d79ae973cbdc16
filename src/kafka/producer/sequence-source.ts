/**
 * What the produce engine (produce-engine.ts) asks of a producer's sequences: the producer fields
 * (id, epoch, base sequence) of each partition's batch in a round, and what the broker's answer
 * for that partition means for them. One implementation per kind of producer:
 *
 * - `UNSEQUENCED`: no producer id (`producer.idempotent: false`, MM2's Connect producer).
 * - `Idempotence` (idempotence.ts): the writer's own producer id, one send at a time.
 * - `InflightIdempotence` (inflight-idempotence.ts): the writer's own producer id, several sends
 *   in flight, each write with its place in each partition's order.
 * - `SlotSequences` (slot-sequences.ts): the producer id, epoch and sequences of an exactly-once
 *   slot, inside one of its transactions.
 */
import type { OutboundItem } from '../../core/record';
import type { ProducerStamp } from './producer-sequences';
import type { Ticket } from './inflight-sequences';

export const DUPLICATE_SEQUENCE_NUMBER = 46;

/** The broker's answer for one partition of a produce request. */
export interface PartitionAnswer {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
  /** The offset of the batch's first record; -1 when the broker does not say (a duplicate it no longer has offsets for). */
  readonly baseOffset: number;
}

/**
 * What an answer means: written (acknowledged, or a duplicate of what was), again (not written,
 * and nothing wrong with the items: a new producer id first, or an earlier write of the
 * partition), or failed (an error the engine handles: too large, or a failure to report).
 */
export type Verdict = 'written' | 'again' | 'failed';

/** One partition's part of a produce round: one record batch in the request. */
export interface ProducePartition {
  readonly topic: string;
  readonly partition: number;
  /** Records, or forwarded batches (one compressed, or several uncompressed), in order. */
  readonly items: OutboundItem[];
  /** Each item's index in the write. */
  readonly indices: number[];
  /** Records per item: 1 for a record, the record count for a forwarded batch. */
  readonly counts: number[];
  /** Records in all, what the partition's sequence moves by. */
  records: number;
  /** Item bytes, counted only under a learnt batch limit. */
  bytes: number;
  /** Items of this partition left for a later round, because the batch would be too large. */
  heldBack: boolean;
  /** The batch's producer fields, set by the sequence source before the send (none without a producer id). */
  stamp?: ProducerStamp;
  /** The broker's answer, set once sent; a partition the request left out has none. */
  answer?: PartitionAnswer;
  /** Set by the sequence source for each answered partition. */
  verdict?: Verdict;
  /** Nothing of it is left for the next round. */
  done?: boolean;
}

/** Where a write's records take their sequences in a partition's order (several writes in flight). */
export interface SequencePlace {
  readonly ticket: Ticket;
  /** Records of the write before this point, on the ticket's partition. */
  readonly position: number;
}

export interface SequenceSource {
  /**
   * The sequences of one write, when it is subscribed (and again for each subscription). `place`:
   * the write is a forwarded batch's records, written in the batch's place.
   */
  write(items: readonly OutboundItem[], place?: SequencePlace): WriteSequences;
}

export interface WriteSequences {
  /**
   * One produce round: stamps each partition (`stamp`), calls `send` (which sets each answered
   * partition's `answer`), and judges each answer (`verdict`). Rejects with what retrying inside
   * the write cannot cure (a producer fenced, too many new producer ids).
   */
  round(partitions: readonly ProducePartition[], send: () => Promise<void>): Promise<void>;
  /** The record of a partition's only item was refused for good and handed to the caller. */
  refused?(partition: ProducePartition): void;
  /** Where the records of item `index` of `partition` (a forwarded batch narrowed to its records) take their sequences. */
  place?(partition: ProducePartition, index: number): SequencePlace;
  /** The write was given up (unsubscribed) before it settled. */
  abandon?(): void;
}

/** The verdict on an answer that is not about the producer's sequences. */
export function writtenOrFailed(errorCode: number): Verdict {
  return errorCode === 0 || errorCode === DUPLICATE_SEQUENCE_NUMBER ? 'written' : 'failed';
}

/** No producer id: batches go without producer fields, and sends may overlap. */
export const UNSEQUENCED: SequenceSource & WriteSequences = {
  write: () => UNSEQUENCED,
  round: async (partitions, send) => {
    await send();
    for (const p of partitions) if (p.answer !== undefined) p.verdict = writtenOrFailed(p.answer.errorCode);
  },
};
