/**
 * The idempotent producer's bookkeeping (Kafka's KIP-98): the producer id and epoch the target
 * gave (InitProducerId), and per partition the sequence of the next record. Every batch carries
 * its base sequence; the broker appends a batch only when that is the next one it expects of the
 * producer, and answers a batch it already has (the same sequence range, among the last five it
 * keeps per partition) with the offsets of the first copy. A write sent again after its
 * acknowledgement was lost therefore lands once, provided it goes with the same sequences.
 *
 * A send whose answer never came is in doubt: the broker may or may not have appended it, so the
 * partition's sequence cannot move on. The same items sent again reuse its sequences (what
 * deduplicates them); anything else sent to that partition would either be taken for a copy of
 * the doubtful batch (same range: records lost) or refused as out of order, so `stamp` answers
 * 'in-doubt' and the writer starts a new producer id first.
 */

export interface ProducerIdentity {
  /** int64, within 2^53 (brokers hand them out counting up from 0). */
  readonly producerId: number;
  readonly producerEpoch: number;
}

/** The producer fields of one partition's batch in one produce request. */
export interface ProducerStamp extends ProducerIdentity {
  readonly baseSequence: number;
}

interface InDoubt {
  readonly baseSequence: number;
  readonly count: number;
  /** The first item of the send: the same object when the same write goes again. */
  readonly first: object;
}

const MAX_SEQUENCE = 0x7fffffff;

/** `sequence + increment`, wrapping past int32's maximum to 0 as Kafka's DefaultRecordBatch.incrementSequence does. */
export function incrementSequence(sequence: number, increment: number): number {
  return sequence > MAX_SEQUENCE - increment ? increment - (MAX_SEQUENCE - sequence) - 1 : sequence + increment;
}

export class ProducerSequences {
  private current: ProducerIdentity | undefined;
  private readonly next = new Map<string, number>();
  private readonly inDoubt = new Map<string, InDoubt>();

  /** The producer id in use, or undefined before the first InitProducerId (or after `forget`). */
  get identity(): ProducerIdentity | undefined {
    return this.current;
  }

  /** A new producer id: every partition starts again at sequence 0, nothing is in doubt. */
  start(identity: ProducerIdentity): void {
    this.current = identity;
    this.next.clear();
    this.inDoubt.clear();
  }

  /** Drops the producer id (the broker no longer knows it); the next send asks for a new one. */
  forget(): void {
    this.current = undefined;
    this.next.clear();
    this.inDoubt.clear();
  }

  /**
   * The producer fields for a send of `count` records to a partition, `first` being its first
   * item; the send is in doubt until `acknowledged` or `notWritten`. 'in-doubt' when an earlier
   * send of other items to the partition was never answered (a new producer id is needed first).
   */
  stamp(topic: string, partition: number, count: number, first: object): ProducerStamp | 'in-doubt' {
    const identity = this.current;
    if (identity === undefined) throw new Error('No producer id yet: start() comes first.');
    const key = partitionKey(topic, partition);
    const doubt = this.inDoubt.get(key);
    if (doubt !== undefined) {
      if (doubt.first !== first || doubt.count !== count) return 'in-doubt';
      return { ...identity, baseSequence: doubt.baseSequence };
    }
    const baseSequence = this.next.get(key) ?? 0;
    this.inDoubt.set(key, { baseSequence, count, first });
    return { ...identity, baseSequence };
  }

  /** The partition's send was written (or was a duplicate of what was): its sequence moves past it. */
  acknowledged(topic: string, partition: number): void {
    const key = partitionKey(topic, partition);
    const doubt = this.inDoubt.get(key);
    if (doubt === undefined) return;
    this.inDoubt.delete(key);
    this.next.set(key, incrementSequence(doubt.baseSequence, doubt.count));
  }

  /** The broker answered that it did not write the partition's send: its sequences are free again. */
  notWritten(topic: string, partition: number): void {
    this.inDoubt.delete(partitionKey(topic, partition));
  }

  /** The partitions with a send in doubt, as `topic-partition`, for messages. */
  doubtful(): string[] {
    return [...this.inDoubt.keys()].map((key) => key.replace('\0', '-'));
  }
}

const partitionKey = (topic: string, partition: number): string => `${topic}\0${partition}`;
