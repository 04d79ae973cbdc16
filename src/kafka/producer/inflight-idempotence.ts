/**
 * The idempotent writer with several produce requests in flight (`producer.max_in_flight` > 1):
 * the producer id, the tickets of inflight-sequences.ts, and the broker's answers handled as
 * Kafka's Java producer handles them with `max.in.flight.requests.per.connection` ≤ 5:
 * - success and DUPLICATE_SEQUENCE_NUMBER: the round's records are written.
 * - OUT_OF_ORDER_SEQUENCE_NUMBER behind an earlier write of the partition that is not yet
 *   acknowledged (it failed, or its answer is still on the way, or it reached the broker after
 *   this one), or to a round sent while another of the partition was unanswered: not written,
 *   and nothing wrong with the producer id; the round waits until the earlier writes are
 *   acknowledged and goes again with the same sequences.
 * - OUT_OF_ORDER_SEQUENCE_NUMBER with nothing earlier outstanding, UNKNOWN_PRODUCER_ID,
 *   INVALID_PRODUCER_EPOCH: the broker lost the producer's state. Once every request in flight has
 *   been answered, a new producer id is taken (logged as a warning, as the serial writer's); every
 *   unfinished write keeps its place in its partition's order under it (inflight-sequences.ts).
 * More than MAX_RENEWALS new producer ids in a row without anything acknowledged end the write.
 */
import { KafkaTransportError } from '../../core/errors';
import type { OutboundItem } from '../../core/record';
import type { Logger } from '../../core/ports/logger';
import { isRecordBatch } from '../../core/ports/record-writer';
import { MAX_RENEWALS, type InitProducerId } from './idempotence';
import { InflightSequences, type Ticket } from './inflight-sequences';
import type { ProducerStamp } from './producer-sequences';
import {
  DUPLICATE_SEQUENCE_NUMBER,
  writtenOrFailed,
  type ProducePartition,
  type SequencePlace,
  type SequenceSource,
  type WriteSequences,
} from './sequence-source';

const OUT_OF_ORDER_SEQUENCE_NUMBER = 45;
const RENEW_ON: Readonly<Record<number, string>> = { 47: 'INVALID_PRODUCER_EPOCH', 59: 'UNKNOWN_PRODUCER_ID' };

/** One partition's part of a produce round: the write's ticket, and where in it the round starts. */
export type TicketPart = SequencePlace;

export type { Ticket } from './inflight-sequences';

export class InflightIdempotence implements SequenceSource {
  private readonly sequences = new InflightSequences();
  /** Why a new producer id is needed before the next round, if it is. */
  private renewal: string | undefined;
  private renewals = 0;
  /** Rounds stamped whose answer has not come. */
  private inFlight = 0;
  /** Per partition (`topic\0partition`), its parts of those rounds. */
  private readonly roundsInFlight = new Map<string, number>();
  /** Counts producer ids taken, so a round can tell whether one was taken since it was answered. */
  private generation = 0;
  private starting: Promise<void> | undefined;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly cluster: string,
    private readonly initProducerId: InitProducerId,
    private readonly logger?: Logger,
  ) {}

  /**
   * A write's tickets, one per partition, each item placed in its partition's (the same tickets
   * when the same items go again). `place`: a forwarded batch narrowed to its records takes the
   * batch's ticket from the batch's place on.
   */
  write(items: readonly OutboundItem[], place?: SequencePlace): WriteSequences {
    const positions = new Float64Array(items.length);
    const partitions = new Map<string, { topic: string; partition: number; first: object; total: number }>();
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const key = partitionKey(item.topic, item.partition);
      let p = partitions.get(key);
      if (p === undefined) partitions.set(key, (p = { topic: item.topic, partition: item.partition, first: item, total: 0 }));
      positions[i] = (place?.position ?? 0) + p.total;
      p.total += isRecordBatch(item) ? item.batch.recordCount : 1;
    }
    const tickets = new Map<string, Ticket>();
    for (const [key, p] of partitions) tickets.set(key, place?.ticket ?? this.ticket(p.topic, p.partition, p.first, p.total));
    return new InflightWrite(this, positions, tickets, place !== undefined);
  }

  /** The write's ticket on a partition (see InflightSequences.ticket). */
  ticket(topic: string, partition: number, key: object, total: number): Ticket {
    const { ticket, conflict } = this.sequences.ticket(topic, partition, key, total);
    if (conflict) this.renewal ??= `another write to ${topic}-${partition} came with the first item of an unfinished one`;
    return ticket;
  }

  /**
   * Waits until the round may be stamped (a producer id without a renewal pending, and every
   * earlier write of its partitions placed under it), then stamps it and counts it in flight; the
   * caller sends it at once, then calls `settled`. `sentBehind`, per part: another round of its
   * partition was still unanswered when it went (see `answer`).
   */
  async dispatch(parts: readonly TicketPart[]): Promise<{ stamps: ProducerStamp[]; sentBehind: boolean[] }> {
    for (;;) {
      if (this.sequences.identity === undefined || this.renewal !== undefined) {
        await this.start();
        continue;
      }
      if (parts.every((p) => this.sequences.ready(p.ticket, p.position))) break;
      await this.changed();
    }
    this.inFlight++;
    const sentBehind = parts.map((p) => {
      const key = partitionKey(p.ticket.topic, p.ticket.partition);
      const before = this.roundsInFlight.get(key) ?? 0;
      this.roundsInFlight.set(key, before + 1);
      return before > 0;
    });
    const resent = parts.some((p) => this.sequences.sendsAgain(p.ticket));
    const stamps = parts.map((p) => this.sequences.stamp(p.ticket, p.position));
    // The later writes of its partitions held back for it (InflightSequences.ready) may go now.
    if (resent) this.notify();
    return { stamps, sentBehind };
  }

  /** A round dispatched was answered, or failed without an answer. */
  settled(parts: readonly TicketPart[]): void {
    this.inFlight--;
    for (const p of parts) {
      const key = partitionKey(p.ticket.topic, p.ticket.partition);
      const left = (this.roundsInFlight.get(key) ?? 1) - 1;
      if (left === 0) this.roundsInFlight.delete(key);
      else this.roundsInFlight.set(key, left);
    }
    this.notify();
  }

  /**
   * The broker's answer for a partition of a round of `count` records: 'renew' (not written; a
   * new producer id comes first, then it goes again), 'behind' (not written; goes again once
   * `whenAhead`), undefined otherwise (written, or an error the writer handles as without
   * idempotence). An out-of-order answer to a round sent while another of its partition was
   * unanswered says nothing about the producer id even when the earlier writes are acknowledged
   * by now: that round may have reached the broker after this one (it went through the
   * connection of a kafkajs producer the writer has since replaced; the broker orders requests
   * per connection only), so it goes again with the same sequences; sent again alone and refused
   * again, the broker lost the producer's state.
   */
  answer(part: TicketPart, count: number, errorCode: number, sentBehind = false): 'renew' | 'behind' | undefined {
    if (errorCode === 0 || errorCode === DUPLICATE_SEQUENCE_NUMBER) {
      this.sequences.acknowledged(part.ticket, part.position, count);
      this.renewals = 0;
      this.notify();
      return undefined;
    }
    const { topic, partition } = part.ticket;
    if (errorCode === OUT_OF_ORDER_SEQUENCE_NUMBER) {
      if (this.sequences.behind(part.ticket) || sentBehind) {
        this.sequences.goesAgain(part.ticket);
        return 'behind';
      }
      this.renewal ??= `${topic}-${partition} answered OUT_OF_ORDER_SEQUENCE_NUMBER`;
      return 'renew';
    }
    const renewOn = RENEW_ON[errorCode];
    if (renewOn === undefined) return undefined;
    this.renewal ??= `${topic}-${partition} answered ${renewOn}`;
    return 'renew';
  }

  /** Records the target refused for good: done, and a new producer id when later sequences would be out of order. */
  refused(part: TicketPart, count: number): void {
    const { topic, partition } = part.ticket;
    if (this.sequences.skip(part.ticket, part.position, count)) this.renewal ??= `a record refused by ${topic}-${partition} leaves a gap in its sequences`;
    this.notify();
  }

  /** Resolves once the earlier writes of the ticket's partition are acknowledged, or a new producer id was taken. */
  async whenAhead(ticket: Ticket): Promise<void> {
    const generation = this.generation;
    while (this.sequences.behind(ticket) && this.generation === generation && this.renewal === undefined) await this.changed();
  }

  /** A write given up: its tickets no longer hold their partitions' places. */
  drop(tickets: Iterable<Ticket>): void {
    for (const t of tickets) this.sequences.drop(t);
    this.notify();
  }

  /** Unfinished tickets (specs). */
  outstanding(): number {
    return this.sequences.outstanding();
  }

  /** The first producer id, or a new one once nothing is in flight; shared by the rounds that wait for it. */
  private start(): Promise<void> {
    this.starting ??= (async () => {
      try {
        while (this.inFlight > 0) await this.changed();
        const reason = this.renewal;
        const old = this.sequences.identity;
        if (old !== undefined && reason !== undefined) {
          if (this.renewals >= MAX_RENEWALS) {
            throw new KafkaTransportError(
              this.cluster,
              `Writing records failed: the target refused the producer's sequences after ${this.renewals} new producer ids in a row with nothing written in between (last: ${reason})`,
              false,
            );
          }
          this.renewals++;
        }
        const identity = await this.initProducerId();
        this.sequences.start(identity);
        this.generation++;
        this.renewal = undefined;
        if (old === undefined) this.logger?.debug('Writing idempotently.', { producerId: identity.producerId, producerEpoch: identity.producerEpoch });
        else
          this.logger?.warn('Writing with a new producer id; records of a write whose answer was lost may be on the target twice.', {
            reason,
            oldProducerId: old.producerId,
            producerId: identity.producerId,
          });
      } finally {
        this.starting = undefined;
        this.notify();
      }
    })();
    return this.starting;
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

const partitionKey = (topic: string, partition: number): string => `${topic}\0${partition}`;

/** One write's rounds with several in flight: each partition's items placed by the write's ticket. */
class InflightWrite implements WriteSequences {
  constructor(
    private readonly inflight: InflightIdempotence,
    /** Per item, the records before it in the write's ticket of its partition. */
    private readonly positions: Float64Array,
    /** Per partition (`topic\0partition`), the write's ticket. */
    private readonly tickets: ReadonlyMap<string, Ticket>,
    /** A forwarded batch's records, written on its parent write's ticket. */
    private readonly nested: boolean,
  ) {}

  /**
   * Stamped when its partitions' earlier writes are placed, sent at once (so requests leave in
   * the order of their sequences), each answer taken by its ticket. 'behind' partitions go again
   * once the earlier writes are acknowledged.
   */
  async round(partitions: readonly ProducePartition[], send: () => Promise<void>): Promise<void> {
    const parts = partitions.map((p) => this.place(p, p.indices[0]!));
    const { stamps, sentBehind } = await this.inflight.dispatch(parts);
    for (let i = 0; i < partitions.length; i++) partitions[i]!.stamp = stamps[i]!;
    try {
      await send();
    } finally {
      this.inflight.settled(parts);
    }
    const behind: Ticket[] = [];
    partitions.forEach((p, i) => {
      if (p.answer === undefined) return;
      const verdict = this.inflight.answer(parts[i]!, p.records, p.answer.errorCode, sentBehind[i]);
      if (verdict === 'behind') behind.push(parts[i]!.ticket);
      p.verdict = verdict === undefined ? writtenOrFailed(p.answer.errorCode) : 'again';
    });
    // Not written, because an earlier write of the partition is not yet: in order after it.
    if (behind.length > 0) await Promise.all(behind.map((ticket) => this.inflight.whenAhead(ticket)));
  }

  refused(partition: ProducePartition): void {
    this.inflight.refused(this.place(partition, partition.indices[0]!), partition.counts[0]!);
  }

  place(partition: ProducePartition, index: number): SequencePlace {
    return { ticket: this.tickets.get(partitionKey(partition.topic, partition.partition))!, position: this.positions[index]! };
  }

  /** Its tickets no longer hold their partitions' places, so later writes are not held behind it. */
  abandon(): void {
    if (!this.nested) this.inflight.drop(this.tickets.values());
  }
}
