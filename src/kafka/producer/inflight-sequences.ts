/**
 * The idempotent producer's sequences with several writes in flight per partition (as Kafka's
 * Java producer keeps up to `max.in.flight.requests.per.connection` ≤ 5 batches in flight with
 * `enable.idempotence`). The serial writer's bookkeeping is producer-sequences.ts.
 *
 * Each write takes, per partition, a ticket: a range of sequences as long as the records the
 * write holds for that partition, placed after the tickets taken before it. A produce round of
 * the write stamps its part of the range (ticket base + the records of the write before it in the
 * partition), so a write split into several rounds, sent again after a lost answer (by the writer,
 * or by the flow with the same items), or narrowed from a forwarded batch into its records, keeps
 * its place: the broker appends a partition's batches only in sequence order, which is what keeps
 * records in order while several writes are in flight.
 *
 * A new producer id (the broker lost the producer's state) gives every ticket a new place in the
 * same order: a ticket's new base is taken when it is next stamped, and only once every earlier
 * ticket of its partition has one (`ready`), so a later write cannot overtake an earlier one that
 * is waiting to go again.
 *
 * Sequences order a partition's writes only once the broker knows the producer id there: a
 * partition that holds nothing of it appends a batch with any sequence (Kafka's
 * ProducerStateManager accepts any first sequence from a producer it has no state for). So until
 * something of the current producer id was acknowledged on a partition, only its earliest
 * unfinished ticket goes (`ready`): a later write sent beside a first one that failed would
 * otherwise be appended before it, and the first, sent again, refused as out of order.
 *
 * A broker recognises a batch sent again only among the last five it appended for the producer
 * on the partition (Kafka's ProducerStateEntry keeps five); an older one, sent again after its
 * answer was lost, is refused as out of order, and its records would go again under a new
 * producer id: written twice. Java's producer never has more than five batches of a partition
 * unacknowledged. Here a write waiting to go again (its leader moved, its retry backing off) is
 * not in flight on any connection while later writes go on, so the rule is kept per partition:
 * while its earliest ticket is unfinished, the tickets after it send at most MAX_AHEAD new rounds
 * (`ready`), and the rest wait until it is acknowledged.
 */
import type { ProducerIdentity, ProducerStamp } from './producer-sequences';

/**
 * New rounds the tickets after a partition's earliest unfinished one may send: with that one's
 * last round, five batches, the most a broker recognises when a batch comes again.
 */
export const MAX_AHEAD = 4;

/** A write's range of sequences on one partition. */
export interface Ticket {
  readonly topic: string;
  readonly partition: number;
  /** The write's first item on the partition: the same object when the same write goes again. */
  readonly key: object;
  /** Records of the write on this partition (a forwarded batch counts its records). */
  readonly total: number;
}

interface TicketState extends Ticket {
  /** Sequence of the ticket's first record under the current producer id; undefined until stamped under it. */
  base: number | undefined;
  /** Records acknowledged, from the ticket's start. */
  acked: number;
  done: boolean;
  /** Position of the last round stamped under the current producer id; -1 before the first. */
  stampedAt: number;
  /** The partition's round count when that round was stamped. */
  stampedRound: number;
  /** A round of it was refused as behind an earlier write and is not stamped again yet: later tickets of the partition wait for it. */
  again: boolean;
}

interface PartitionState {
  /** Unfinished tickets, in the order they were taken. */
  readonly tickets: TicketState[];
  /** Sequence after the last ticket that has a base. */
  next: number;
  /** Something was acknowledged on the partition under the current producer id: the broker orders its sequences. */
  known: boolean;
  /** New rounds stamped under the current producer id (a round sent again counts once). */
  rounds: number;
}

export class InflightSequences {
  private current: ProducerIdentity | undefined;
  private readonly partitions = new Map<string, PartitionState>();

  get identity(): ProducerIdentity | undefined {
    return this.current;
  }

  /**
   * A producer id, the first or a new one: every unfinished ticket keeps its place and takes a
   * new base at its next stamp (records it had acknowledged stay acknowledged).
   */
  start(identity: ProducerIdentity): void {
    this.current = identity;
    this.last.clear();
    for (const state of this.partitions.values()) {
      state.next = 0;
      state.known = false;
      state.rounds = 0;
      for (const t of state.tickets) {
        t.base = undefined;
        t.stampedAt = -1;
        t.stampedRound = 0;
        t.again = false;
      }
    }
  }

  forget(): void {
    this.current = undefined;
  }

  /**
   * The write's ticket on a partition: the one it took before (same first item and record count),
   * or a new one after every ticket taken so far. A ticket with the same first item and another
   * count is another write: the old one is dropped ('conflict', the caller takes a new producer
   * id, since its sequences may be half used).
   */
  ticket(topic: string, partition: number, key: object, total: number): { ticket: Ticket; conflict: boolean } {
    const state = this.partition(topic, partition);
    const found = state.tickets.find((t) => t.key === key);
    if (found !== undefined && found.total === total) return { ticket: found, conflict: false };
    let conflict = false;
    if (found !== undefined) {
      this.drop(found);
      conflict = true;
    }
    const ticket: TicketState = { topic, partition, key, total, base: undefined, acked: 0, done: false, stampedAt: -1, stampedRound: 0, again: false };
    state.tickets.push(ticket);
    return { ticket, conflict };
  }

  /**
   * Whether a round of the ticket from `position` on can be stamped and sent now: on a partition
   * where the broker knows the producer id, when the ticket has a base or every earlier ticket of
   * its partition has one, and a new round does not take the partition more than MAX_AHEAD
   * rounds past its earliest unfinished ticket; on a partition where it does not yet, only when
   * the ticket is the earliest unfinished one. Never while an earlier ticket of the partition has
   * a round to send again (`goesAgain`): sent before it, the round would be refused as out of
   * order too, and go again itself, behind the next ones, which would then be refused in turn:
   * every batch sent twice (as Java's producer, which sends a partition's batches only in
   * sequence order while one is retried).
   */
  ready(ticket: Ticket, position: number): boolean {
    const t = ticket as TicketState;
    if (t.done) return true;
    const state = this.partition(t.topic, t.partition);
    if (state.tickets[0] === t) return true;
    if (!state.known) return false;
    if (position > t.stampedAt && this.roundsAhead(state) >= MAX_AHEAD) return false;
    for (const other of state.tickets) {
      if (other === t) return true;
      if (other.again || (t.base === undefined && other.base === undefined)) return false;
    }
    return true;
  }

  /** A round of the ticket was refused as behind an earlier write: it goes again, and later tickets of the partition wait until it is stamped. */
  goesAgain(ticket: Ticket): void {
    const t = ticket as TicketState;
    if (!t.done) t.again = true;
  }

  /** Whether the ticket has a round to send again (`goesAgain`) that is not stamped yet. */
  sendsAgain(ticket: Ticket): boolean {
    return (ticket as TicketState).again;
  }

  /** New rounds stamped on the partition after the last one of its earliest unfinished ticket. */
  private roundsAhead(state: PartitionState): number {
    const earliest = state.tickets[0];
    return earliest === undefined || earliest.stampedAt < 0 ? 0 : state.rounds - earliest.stampedRound;
  }

  /** The producer fields of a round that sends the ticket's records from `position` on. */
  stamp(ticket: Ticket, position: number): ProducerStamp {
    const identity = this.current;
    if (identity === undefined) throw new Error('No producer id yet: start() comes first.');
    const t = ticket as TicketState;
    t.again = false;
    if (t.base === undefined) {
      const state = this.partition(t.topic, t.partition);
      // Records before `position` were acknowledged under an earlier producer id (or refused):
      // the range starts so that this round's first record takes the partition's next sequence.
      t.base = state.next - position;
      state.next = wrap(t.base + t.total);
    }
    if (position > t.stampedAt) {
      const state = this.partition(t.topic, t.partition);
      t.stampedAt = position;
      t.stampedRound = ++state.rounds;
    }
    return { ...identity, baseSequence: wrap(t.base + position) };
  }

  /** The broker wrote (or had written) `count` records of the ticket from `position` on. */
  acknowledged(ticket: Ticket, position: number, count: number): void {
    const t = ticket as TicketState;
    if (!t.done) this.partition(t.topic, t.partition).known = true;
    this.advance(t, position, count);
  }

  /**
   * Records of the ticket the target refused for good (one larger than the topic takes): they
   * count as done, leaving a gap in the ticket's range. True when something of the partition
   * follows the gap, whose sequences the broker would then refuse as out of order (the caller
   * takes a new producer id, which closes it); false when the gap is at the partition's end, whose
   * next sequence moves back to it.
   */
  skip(ticket: Ticket, position: number, count: number): boolean {
    const t = ticket as TicketState;
    const state = this.partition(t.topic, t.partition);
    const atEnd = state.tickets[state.tickets.length - 1] === t && position + count >= t.total;
    if (atEnd && t.base !== undefined) state.next = wrap(t.base + position);
    // Nothing was appended: the broker knows the producer id no better than before.
    this.advance(t, position, count);
    return !atEnd;
  }

  private advance(t: TicketState, position: number, count: number): void {
    t.acked = Math.max(t.acked, position + count);
    if (t.acked >= t.total) this.drop(t);
  }

  /** Whether an earlier ticket of the partition is unfinished: an out-of-order answer then means "behind it", not a lost producer state. */
  behind(ticket: Ticket): boolean {
    const t = ticket as TicketState;
    const state = this.partition(t.topic, t.partition);
    for (const other of state.tickets) {
      if (other === t) return false;
      if (!other.done) return true;
    }
    return false;
  }

  /** Whether the ticket is finished (acknowledged whole, or dropped). */
  finished(ticket: Ticket): boolean {
    return (ticket as TicketState).done;
  }

  /** A write given up (unsubscribed, or failed for good): its tickets no longer hold a place. */
  drop(ticket: Ticket): void {
    const t = ticket as TicketState;
    if (t.done) return;
    t.done = true;
    const state = this.partition(t.topic, t.partition);
    const at = state.tickets.indexOf(t);
    if (at >= 0) state.tickets.splice(at, 1);
    if (state.tickets.length === 0) {
      const key = partitionKey(t.topic, t.partition);
      this.partitions.delete(key);
      this.last.set(key, { next: state.next, known: state.known });
    }
  }

  /** Unfinished tickets, for specs and messages. */
  outstanding(): number {
    let n = 0;
    for (const state of this.partitions.values()) n += state.tickets.length;
    return n;
  }

  private partition(topic: string, partition: number): PartitionState {
    const key = partitionKey(topic, partition);
    let state = this.partitions.get(key);
    if (state === undefined) {
      // A partition seen first (or again, once its tickets were all done) under this producer id
      // continues where it was: kept in `last` so that sequences never go back.
      const last = this.last.get(key);
      state = { tickets: [], next: last?.next ?? 0, known: last?.known ?? false, rounds: 0 };
      this.partitions.set(key, state);
    }
    return state;
  }

  /** Per partition without open tickets, the next sequence under the current producer id, and whether the broker knows it there. */
  private readonly last = new Map<string, { next: number; known: boolean }>();
}

/** Sequences count modulo 2^31, wrapping past int32's maximum to 0 as Kafka's do (producer-sequences.ts `incrementSequence`). */
const SEQUENCES = 2 ** 31;
const wrap = (sequence: number): number => ((sequence % SEQUENCES) + SEQUENCES) % SEQUENCES;

const partitionKey = (topic: string, partition: number): string => `${topic}\0${partition}`;
