import { token } from './token';
import type { OutboundItem, OutboundRecord } from '../record';
import { KafkaTransportError } from '../errors';
import type { RefusedRecord } from './record-writer';

/**
 * The dead-letter records of one transaction attempt (errors.tolerance all), written after its
 * rounds and before its progress: asked first with no refusals (the records its batches' transforms
 * failed on), then, when the target refused records on their own (`index`: the item's place
 * across the rounds), with those too. Each attempt asks again.
 */
export type DeadLettersInTransaction = (refused: readonly RefusedRecord[]) => readonly OutboundRecord[];

/**
 * The exactly-once writer of a flow (`delivery: exactly_once`): one transactional producer per
 * slot this member owns, transactional id `<prefix>-<slot>`. A slot's records and the progress
 * records that say they were copied are committed in one Kafka transaction, so a reader with
 * read_committed sees both or neither.
 */
export interface SlotTransactions {
  readonly cluster: string;
  /**
   * Takes `slots` for this member after a new assignment: an InitProducerId for each fences
   * every earlier holder of its transactional id (its open transaction is aborted, its next
   * write or commit refused). Slots held before and not named are let go. `stillMember` asks
   * the group whether this member still belongs to its generation (before a producer is reset).
   */
  claim(slots: readonly number[], stillMember: () => Promise<boolean>): Promise<void>;
  /** Lets every slot go (before a rejoin): their next commit fails with SlotLostError. */
  release(): void;
  /**
   * One transaction of `slot`: the items (in produce rounds, each round at most one record batch
   * per partition, split further where the target refuses a batch as too large), the dead
   * letters, the progress records, then the commit. Resolves with the offset of each item of
   * the rounds, in order (for a forwarded batch, of its first record; -1 for a record refused and
   * dead-lettered). Rejects with SlotLostError when another member holds the slot now (nothing
   * of it is visible), with a retriable error once the transaction was given up (the same items
   * go again in a new one), or with RecordRefusedError when the target refuses a record on its
   * own and there are no `deadLetters` (or refuses a dead letter: its `index` then counts on
   * after the rounds' items); the transaction is then given up.
   */
  commit(
    slot: number,
    rounds: readonly (readonly OutboundItem[])[],
    progress: readonly OutboundRecord[],
    deadLetters?: DeadLettersInTransaction,
  ): Promise<Float64Array>;
  /** Fences the transactional ids of slots nobody owns any more (the slot count went down). */
  fence(slots: readonly number[]): Promise<void>;
  close(): Promise<void>;
}
/** DI token; a token and its interface share a name. */
export const SlotTransactions = token<SlotTransactions>('SlotTransactions');

/** The slot is another member's now (its producer was fenced, or it was let go): its work is dropped. */
export class SlotLostError extends KafkaTransportError {
  override readonly name: string = 'SlotLostError';

  constructor(
    cluster: string,
    readonly slot: number,
    reason: string,
    options: ErrorOptions = {},
  ) {
    super(cluster, `slot ${slot} is no longer this process's (${reason}); its uncommitted transaction is dropped`, false, options);
  }
}
