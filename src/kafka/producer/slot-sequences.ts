/**
 * The sequences of an exactly-once slot's transactional producer inside one of its transactions,
 * as a sequence source of the produce engine (../transactions/slot-transactions.ts makes one per
 * transaction): the slot's producer id and epoch, and per partition the sequences of what it sent
 * (producer-sequences.ts). The producer is fresh for each transaction attempt (a failure resets it
 * with a new InitProducerId), so nothing is ever in doubt within one; and an answer that says
 * another producer holds the transactional id now ends the transaction at once.
 */
import { KafkaTransportError } from '../../core/errors';
import { isBatchTooLarge } from '../wire/produce-response';
import type { ProducerSequences } from './producer-sequences';
import type { ProducePartition, SequenceSource, WriteSequences } from './sequence-source';

/** Error codes of the answers that say another producer holds the transactional id now. */
export const FENCED_CODES: Readonly<Record<number, string>> = {
  47: 'INVALID_PRODUCER_EPOCH',
  90: 'PRODUCER_FENCED',
};

export class SlotSequences implements SequenceSource, WriteSequences {
  constructor(
    private readonly cluster: string,
    private readonly sequences: ProducerSequences,
  ) {}

  /** The transaction's writes share the slot's sequences (they run one after the other). */
  write(): WriteSequences {
    return this;
  }

  async round(partitions: readonly ProducePartition[], send: () => Promise<void>): Promise<void> {
    for (const p of partitions) {
      const stamp = this.sequences.stamp(p.topic, p.partition, p.records, p.items[0]!);
      // A fresh producer per transaction attempt never has a send in doubt.
      if (stamp === 'in-doubt') throw new KafkaTransportError(this.cluster, `a write to ${p.topic}-${p.partition} is in doubt`, true);
      p.stamp = stamp;
    }
    await send();
    for (const p of partitions) {
      if (p.answer === undefined) continue;
      const { errorCode } = p.answer;
      if (errorCode === 0) {
        this.sequences.acknowledged(p.topic, p.partition);
        p.verdict = 'written';
        continue;
      }
      const fenced = FENCED_CODES[errorCode];
      if (fenced !== undefined) throw Object.assign(new Error(`${p.topic}-${p.partition} answered ${fenced}`), { type: fenced });
      // Nothing of the partition's batch was written; its sequence is free again.
      if (isBatchTooLarge(errorCode)) this.sequences.notWritten(p.topic, p.partition);
      p.verdict = 'failed';
    }
  }
}
