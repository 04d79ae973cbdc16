/**
 * The transaction sequencing of an exactly-once flow (core/ports/slot-transactions.ts), over a
 * TransactionPort (the broker requests; kafkajs-transaction-port.ts), so it is specified
 * against a fake broker.
 *
 * Per owned slot a transactional producer: its id and epoch from InitProducerId with the slot's
 * transactional id, and per partition the sequences of what it sent (producer-sequences.ts).
 * A commit is AddPartitionsToTxn (the items' partitions, the progress records' and the dead
 * letters'), the produce rounds, the dead letters (a partition of theirs not added yet is added
 * first), the progress records, then EndTxn(commit). Every batch carries the transactional bit.
 *
 * The rounds go through the produce engine (../producer/produce-engine.ts) with the slot's
 * sequences (../producer/slot-sequences.ts) and the port's Produce, nothing retried outside the
 * transaction. A partition refused as too large wrote nothing and kept its sequence, so its items
 * go again within the transaction in smaller batches (the limit learnt per topic, shared by the
 * slots and kept across transactions), a forwarded batch refused alone as its records, and only
 * a record too large on its own is refused — written to the dead letters of the transaction, or,
 * without them, a RecordRefusedError that gives the transaction up. The coordinator takes no part
 * in a partition's refusal, so the transaction's other writes stand and it commits as usual
 * (Java's producer instead aborts on any failed send, since its caller cannot tell which records
 * failed; here each one is known).
 *
 * Failures:
 * - PRODUCER_FENCED, INVALID_PRODUCER_EPOCH: the transaction was aborted (nothing of it becomes
 *   visible). When the group moved on without this process, another member holds the slot now:
 *   SlotLostError before anything more is written, and the slot stays lost until the next claim.
 *   Otherwise the coordinator aborted it (a transaction past its timeout): reset, as below.
 * - What retrying cannot fix (a missing ACL on the transactional id, say) ends the flow; so does
 *   a record refused on its own without dead letters to take it (RecordRefusedError).
 * - A commit whose answer was lost: asked again (`endCommit`), never given up while in doubt.
 * - Anything else inside a transaction: the transaction is given up and the producer reset before
 *   its next one, by a new InitProducerId, asked only after the group confirmed that this member
 *   still belongs to its generation (a member the group left behind must not fence the slot's
 *   new holder). The InitProducerId aborts the open transaction and bumps the epoch, which also
 *   starts the sequences over. An EndTxn(abort) would keep the epoch and the sequences, and a
 *   produce whose answer was lost leaves its partition's sequence unknown: sent again with the
 *   same sequence it would be taken for a duplicate of the aborted batch (acknowledged, never
 *   visible: lost records); with the next, refused as out of order. kafkajs 2.2.4's
 *   InitProducerId cannot bump an epoch by producer id (KIP-360), hence the membership check.
 */
import { firstValueFrom } from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import type { OutboundItem, OutboundRecord } from '../../core/record';
import { KafkaAuthorizationError, KafkaTransportError, RecordRefusedError } from '../../core/errors';
import { SlotLostError, type DeadLettersInTransaction, type SlotTransactions } from '../../core/ports/slot-transactions';
import type { RefusedRecord } from '../../core/ports/record-writer';
import { toTransportError } from '../errors';
import { ProducerSequences, type ProducerIdentity } from '../producer/producer-sequences';
import { ProduceEngine, type ProducePartition } from '../producer/produce-engine';
import { FENCED_CODES, SlotSequences } from '../producer/slot-sequences';
import type { TransactionalPartition, TransactionPort } from './transaction-port';

export { FENCED_CODES } from '../producer/slot-sequences';
export type { PartitionAnswer, TransactionalPartition, TransactionPort } from './transaction-port';

const FENCED_TYPES = new Set(Object.values(FENCED_CODES));

/**
 * The fencing answer an error carries, if any. kafkajs 2.2.4 does not know PRODUCER_FENCED (90,
 * Kafka 2.7+): its error says "Unknown error code 90".
 */
export function fencedBy(error: unknown): string | undefined {
  const { type, message } = (typeof error === 'object' && error !== null ? error : {}) as { type?: unknown; message?: unknown };
  if (typeof type === 'string' && FENCED_TYPES.has(type)) return type;
  return typeof message === 'string' && /\bUnknown error code 90\b/.test(message) ? 'PRODUCER_FENCED' : undefined;
}

interface Slot {
  readonly id: string;
  readonly sequences: ProducerSequences;
  /** Set once fenced or let go: this object is never used again. */
  lost?: string;
  /** The producer must be reset (InitProducerId) before its next transaction. */
  reset: boolean;
  /** The slot's transactions run one at a time. */
  queue: Promise<unknown>;
}

export interface KafkaSlotTransactionsOptions {
  readonly cluster: string;
  /** The transactional id prefix: `<prefix>-<slot>`. */
  readonly prefix: string;
  readonly transactionTimeoutMs: number;
  /** How long a commit whose answer is in doubt is asked again before the flow stops; twice the transaction timeout by default. */
  readonly commitAnswerWaitMs?: number;
  readonly logger?: Logger;
}

export class KafkaSlotTransactions implements SlotTransactions {
  readonly cluster: string;
  private slots = new Map<number, Slot>();
  /** Per topic, learnt from a target refusing a batch as too large (../producer/produce-engine.ts); shared by the slots. */
  private readonly batchLimits = new Map<string, number>();
  private stillMember: () => Promise<boolean> = () => Promise.resolve(true);

  constructor(
    private readonly options: KafkaSlotTransactionsOptions,
    private readonly port: TransactionPort,
  ) {
    this.cluster = options.cluster;
  }

  async claim(slots: readonly number[], stillMember: () => Promise<boolean>): Promise<void> {
    this.release();
    this.stillMember = stillMember;
    const claimed = new Map<number, Slot>();
    await Promise.all(
      [...new Set(slots)].map(async (n) => {
        const slot: Slot = { id: this.id(n), sequences: new ProducerSequences(), reset: false, queue: Promise.resolve() };
        await this.init(slot);
        claimed.set(n, slot);
      }),
    );
    this.slots = claimed;
    this.options.logger?.info('Transactional producers ready; earlier holders of these slots are fenced.', {
      slots: [...claimed.keys()].sort((a, b) => a - b),
    });
  }

  release(): void {
    for (const slot of this.slots.values()) slot.lost ??= 'let go before a rejoin';
    this.slots = new Map();
  }

  async fence(slots: readonly number[]): Promise<void> {
    for (const n of slots) await this.port.initProducerId(this.id(n), this.options.transactionTimeoutMs);
  }

  commit(
    n: number,
    rounds: readonly (readonly OutboundItem[])[],
    progress: readonly OutboundRecord[],
    deadLetters?: DeadLettersInTransaction,
  ): Promise<Float64Array> {
    const slot = this.slots.get(n);
    if (slot === undefined) return Promise.reject(new SlotLostError(this.cluster, n, 'not assigned to this process'));
    const run = slot.queue.then(() => this.transaction(n, slot, rounds, progress, deadLetters));
    slot.queue = run.catch(() => undefined); // the queue only orders; the caller gets `run` and its failure
    return run;
  }

  close(): Promise<void> {
    this.release();
    return this.port.close();
  }

  private id(n: number): string {
    return `${this.options.prefix}-${n}`;
  }

  private async init(slot: Slot): Promise<void> {
    slot.sequences.start(await this.port.initProducerId(slot.id, this.options.transactionTimeoutMs).catch((error: unknown) => this.refusedId(slot, error)));
    slot.reset = false;
  }

  /** A transactional id the principal may not use says which ACLs it lacks; any other failure passes as it is. */
  private refusedId(slot: Slot, error: unknown): never {
    const failure = toTransportError(this.cluster, error, `Starting the transactional producer ${slot.id} (FindCoordinator, InitProducerId)`);
    if (!(failure instanceof KafkaAuthorizationError) || failure.principal !== undefined) throw error;
    throw new KafkaAuthorizationError(
      this.cluster,
      `${failure.detail}: exactly-once needs WRITE and DESCRIBE on the TransactionalId resource, for the ids with the prefix "${this.options.prefix}-" (or "mirrorflow.<pipeline>." for every flow of the pipeline)`,
      undefined,
      { cause: error },
    );
  }

  private async transaction(
    n: number,
    slot: Slot,
    rounds: readonly (readonly OutboundItem[])[],
    progress: readonly OutboundRecord[],
    deadLetters: DeadLettersInTransaction | undefined,
  ): Promise<Float64Array> {
    if (slot.lost !== undefined) throw new SlotLostError(this.cluster, n, slot.lost);
    if (slot.reset) {
      if (!(await this.stillMember())) return this.lose(n, slot, 'the group moved on without this process: another process holds the slot');
      try {
        await this.init(slot);
      } catch (error) {
        return this.failed(n, slot, error);
      }
    }
    const identity = slot.sequences.identity!;
    const dead = deadLetters?.([]) ?? [];
    const partitions = partitionsOf([...rounds, progress, dead]);
    if (partitions.size === 0) return new Float64Array(0);
    const items = rounds.reduce((sum, r) => sum + r.length, 0);
    const offsets = new Float64Array(items);
    const engine = new ProduceEngine({
      cluster: this.cluster,
      transport: { send: (parts) => this.port.produce(slot.id, identity, stamped(parts)) },
      sequences: new SlotSequences(this.cluster, slot.sequences),
      batchLimits: this.batchLimits,
      delivery: { kind: 'transaction' },
    });
    const produceItems = (list: readonly OutboundItem[], onRefused?: (refused: RefusedRecord) => void): Promise<Float64Array> =>
      firstValueFrom(engine.write(list, onRefused === undefined ? {} : { onRefused }));
    try {
      await this.port.addPartitionsToTxn(slot.id, identity, topicPartitions(partitions));
      const refused: RefusedRecord[] = [];
      let base = 0;
      for (const round of rounds) {
        if (round.length === 0) continue;
        const at = base;
        const onRefused =
          deadLetters && ((r: RefusedRecord): void => void refused.push({ ...r, index: at + r.index, error: r.error.at(at + r.index, r.offsetInBatch) }));
        try {
          offsets.set(await produceItems(round, onRefused), base);
        } catch (error) {
          throw error instanceof RecordRefusedError ? error.at(at + error.index, error.offsetInBatch) : error;
        }
        base += round.length;
      }
      // Records refused on their own go to the dead-letter topic, in this transaction.
      const letters = refused.length === 0 ? dead : deadLetters!(refused);
      if (letters.length > 0) {
        const added = partitionsOf([letters]);
        for (const [topic, set] of partitions) for (const p of set) added.get(topic)?.delete(p);
        if ([...added.values()].some((set) => set.size > 0)) await this.port.addPartitionsToTxn(slot.id, identity, topicPartitions(added));
        try {
          await produceItems(letters);
        } catch (error) {
          // A dead letter refused too: its index follows the items of the rounds.
          throw error instanceof RecordRefusedError ? error.at(items + error.index, 0) : error;
        }
      }
      if (progress.length > 0) await produceItems(progress);
      await this.endCommit(n, slot, identity);
    } catch (error) {
      return this.failed(n, slot, error);
    }
    return offsets;
  }

  /**
   * EndTxn(commit), asked again with the same producer id and epoch while its answer is in doubt
   * (a connection lost, a coordinator moving): the coordinator may have taken the commit, and
   * giving the transaction up would then write its records again in the next one — twice for a
   * read_committed consumer. Asked again, the coordinator completes a prepared commit and answers
   * a finished one as done, as Java's producer relies on. A commit left unanswered past
   * `commitAnswerWaitMs` (twice the transaction timeout unless set) ends the flow: whether it
   * committed is unknown, and a restart reads what was committed from the progress topic.
   */
  private async endCommit(n: number, slot: Slot, identity: ProducerIdentity): Promise<void> {
    const waitMs = this.options.commitAnswerWaitMs ?? 2 * this.options.transactionTimeoutMs;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.port.endTxn(slot.id, identity, true);
        return;
      } catch (error) {
        if (fencedBy(error) !== undefined || slot.lost !== undefined) throw error;
        const failure = toTransportError(this.cluster, error, `Committing the transaction of slot ${n}`);
        if (!failure.retriable) throw error;
        const delayMs = Math.min(100 * 2 ** (attempt - 1), 5_000);
        if (Date.now() - started + delayMs > waitMs) {
          throw new KafkaTransportError(
            this.cluster,
            `The commit of slot ${n}'s transaction was not answered for ${Math.round((Date.now() - started) / 1000)} s (${failure.message}); whether it committed is unknown, and writing its records again could copy them twice, so the flow stops — started again, it resumes from what was committed`,
            false,
            { cause: error },
          );
        }
        if (attempt === 1) this.options.logger?.warn('The commit of a transaction was not answered; asking again.', { slot: n, error: failure.message });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }

  /**
   * The transaction is given up; the producer is reset before the next. Fenced too: the reset
   * asks the group first, and loses the slot when this process no longer belongs to its
   * generation (another process was given the slot and fenced it). While it still belongs, nobody
   * else holds the slot, and the fencing came from the coordinator itself: a transaction open
   * past its timeout (a commit asked again through a long outage, say) is aborted with the epoch
   * bumped; its records go again in a new transaction rather than the slot stalling until the
   * next rebalance.
   */
  private failed(n: number, slot: Slot, error: unknown): never {
    const fenced = fencedBy(error);
    slot.reset = true;
    // A record the target refuses on its own, without a dead-letter topic: retrying cannot help.
    if (error instanceof RecordRefusedError) throw error;
    if (fenced !== undefined) {
      throw new KafkaTransportError(
        this.cluster,
        `Transaction of slot ${n} fenced (${fenced}); given up, to be written again unless another process holds the slot`,
        true,
        {
          cause: error,
        },
      );
    }
    const failure = toTransportError(this.cluster, error, `Writing the transaction of slot ${n}`);
    if (!failure.retriable) throw failure;
    throw new KafkaTransportError(this.cluster, `Transaction of slot ${n} given up, to be written again: ${failure.message}`, true, { cause: error });
  }

  private lose(n: number, slot: Slot, reason: string, cause?: unknown): never {
    slot.lost = reason;
    if (this.slots.get(n) === slot) this.slots.delete(n);
    this.options.logger?.warn('Slot lost: its uncommitted records are dropped; the group gives the slot to another process.', { slot: n, reason });
    throw new SlotLostError(this.cluster, n, reason, cause === undefined ? {} : { cause });
  }
}

/** The round's partitions, every one stamped by the slot's sequences before the send. */
function stamped(partitions: readonly ProducePartition[]): readonly TransactionalPartition[] {
  for (const p of partitions) if (p.stamp === undefined) throw new Error(`${p.topic}-${p.partition} has no producer fields`);
  return partitions as readonly TransactionalPartition[];
}

/** The partitions of some records, by topic. */
function partitionsOf(lists: readonly (readonly OutboundItem[])[]): Map<string, Set<number>> {
  const partitions = new Map<string, Set<number>>();
  for (const list of lists) {
    for (const item of list) {
      let set = partitions.get(item.topic);
      if (!set) partitions.set(item.topic, (set = new Set()));
      set.add(item.partition);
    }
  }
  return partitions;
}

function topicPartitions(partitions: Map<string, Set<number>>): { topic: string; partitions: number[] }[] {
  return [...partitions].filter(([, set]) => set.size > 0).map(([topic, set]) => ({ topic, partitions: [...set].sort((a, b) => a - b) }));
}
