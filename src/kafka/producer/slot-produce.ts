/**
 * The produce requests of one transaction of an exactly-once slot (slot-transactions.ts): items
 * grouped one record batch per partition, each partition stamped with the slot producer's
 * sequences, answers read partition by partition.
 *
 * A partition refused as too large (MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE) is handled inside
 * the transaction, as the at-least-once writer handles it (kafkajs-writer.ts): the broker wrote
 * nothing of it and kept its sequence (`notWritten`), so its items go again in smaller batches
 * (half as many bytes for that topic from then on), a forwarded batch refused alone goes again
 * as its records, and only a record too large on its own is refused — handed to `onRefused`,
 * which writes it elsewhere in the transaction, or, without one, a RecordRefusedError that
 * gives the transaction up. The coordinator takes no part in a partition's refusal, so the
 * transaction's other writes stand and it commits as usual (Java's producer instead aborts on
 * any failed send, since its caller cannot tell which records failed; here each one is known).
 */
import type { OutboundItem, OutboundRecord, OutboundRecordBatch } from '../../core/record';
import { KafkaTransportError, RecordRefusedError } from '../../core/errors';
import { isRecordBatch, outboundItemBytes, type RefusedRecord } from '../../core/ports/record-writer';
import { kafkajsProtocolErrors } from '../wire/kafkajs-internals';
import { isBatchTooLarge } from '../wire/produce-response';
import { decodeRecordBatch } from '../wire/fetch-decoder';
import type { ProducerIdentity, ProducerSequences, ProducerStamp } from './producer-sequences';

/** Error codes of the answers that say another producer holds the transactional id now. */
export const FENCED_CODES: Readonly<Record<number, string>> = {
  47: 'INVALID_PRODUCER_EPOCH',
  90: 'PRODUCER_FENCED',
};

/** One partition's part of a produce request: the stamp stands for its whole record batch. */
export interface TransactionalPartition {
  readonly topic: string;
  readonly partition: number;
  readonly stamp: ProducerStamp;
  /** Records, or forwarded batches (one compressed, or several uncompressed), as the writer groups them. */
  readonly items: readonly OutboundItem[];
}

export interface PartitionAnswer {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
  readonly baseOffset: number;
}

/** The broker requests of a transactional producer. Failures reject with an error whose `type` names Kafka's error, when the broker gave one. */
export interface TransactionPort {
  /** InitProducerId at the transactional id's coordinator (retrying while it is busy: CONCURRENT_TRANSACTIONS and the like). */
  initProducerId(transactionalId: string, transactionTimeoutMs: number): Promise<ProducerIdentity>;
  addPartitionsToTxn(
    transactionalId: string,
    identity: ProducerIdentity,
    partitions: readonly { topic: string; partitions: readonly number[] }[],
  ): Promise<void>;
  /** Produce requests (one per leader), acks=all; every partition answered. */
  produce(transactionalId: string, identity: ProducerIdentity, partitions: readonly TransactionalPartition[]): Promise<PartitionAnswer[]>;
  endTxn(transactionalId: string, identity: ProducerIdentity, commit: boolean): Promise<void>;
  close(): Promise<void>;
}

/** What one transaction's produce requests go through. */
export interface SlotProducer {
  readonly cluster: string;
  readonly port: TransactionPort;
  readonly transactionalId: string;
  readonly identity: ProducerIdentity;
  readonly sequences: ProducerSequences;
  /**
   * Per topic, the most item bytes of one partition that go in one request, learnt from the
   * target refusing a batch as too large (kept by the slot's writer across transactions).
   */
  readonly batchLimits: Map<string, number>;
}

interface PartitionGroup {
  readonly topic: string;
  readonly partition: number;
  readonly indices: number[];
  readonly counts: number[];
  bytes: number;
  heldBack: boolean;
}

/**
 * Writes `items` in as many produce requests as they need (at most one record batch per
 * partition in each, in item order); resolves with the offset of each item (for a forwarded
 * batch, of its first record), -1 for a refused one (also for a forwarded batch with a refused
 * record: its others do not sit at consecutive offsets). `onRefused` gets `index` and
 * `offsetInBatch` in `items`.
 */
export async function produceItems(
  producer: SlotProducer,
  items: readonly OutboundItem[],
  onRefused?: (refused: RefusedRecord) => void,
): Promise<Float64Array> {
  const offsets = new Float64Array(items.length);
  let pending: number[] = items.map((_, i) => i);
  while (pending.length > 0) {
    const { groups, heldBack } = groupItems(producer, items, pending);
    const parts: TransactionalPartition[] = [];
    for (const g of groups.values()) {
      const stamp = producer.sequences.stamp(
        g.topic,
        g.partition,
        g.counts.reduce((a, b) => a + b, 0),
        items[g.indices[0]!]!,
      );
      // A fresh producer per transaction attempt never has a send in doubt.
      if (stamp === 'in-doubt') throw new KafkaTransportError(producer.cluster, `a write to ${g.topic}-${g.partition} is in doubt`, true);
      parts.push({ topic: g.topic, partition: g.partition, stamp, items: g.indices.map((i) => items[i]!) });
    }
    const answers = await producer.port.produce(producer.transactionalId, producer.identity, parts);
    const again = heldBack;
    const answered = new Set<string>();
    let failure: { code: number; where: string } | undefined;
    for (const a of answers) {
      const key = `${a.topic}\0${a.partition}`;
      const g = groups.get(key);
      if (!g) continue;
      answered.add(key);
      if (a.errorCode === 0) {
        producer.sequences.acknowledged(a.topic, a.partition);
        let offset = a.baseOffset;
        for (let j = 0; j < g.indices.length; j++) {
          offsets[g.indices[j]!] = offset;
          offset += g.counts[j]!;
        }
        continue;
      }
      const fenced = FENCED_CODES[a.errorCode];
      if (fenced !== undefined) throw Object.assign(new Error(`${a.topic}-${a.partition} answered ${fenced}`), { type: fenced });
      if (!isBatchTooLarge(a.errorCode)) {
        failure ??= { code: a.errorCode, where: `${a.topic}-${a.partition}` };
        continue;
      }
      // Nothing of the partition's batch was written; its sequence is free again.
      producer.sequences.notWritten(a.topic, a.partition);
      if (g.indices.length > 1) {
        // Half as much for this topic from now on; the items go again in the next request.
        producer.batchLimits.set(a.topic, Math.min(producer.batchLimits.get(a.topic) ?? Infinity, Math.floor(g.bytes / 2)));
        again.push(...g.indices);
        continue;
      }
      const index = g.indices[0]!;
      offsets[index] = await tooLargeAlone(producer, items[index]!, index, a.errorCode, onRefused);
    }
    if (failure !== undefined) throw kafkajsProtocolErrors().createErrorFromCode(failure.code);
    if (answered.size !== groups.size) throw new Error('partitions missing from the produce answers');
    // Items that go again follow what was written of their partition: in item order, they stay in order.
    pending = again.sort((a, b) => a - b);
  }
  return offsets;
}

/** The pending items by partition; a partition's items past its topic's learnt limit wait for the next request. */
function groupItems(
  producer: SlotProducer,
  items: readonly OutboundItem[],
  pending: readonly number[],
): { groups: Map<string, PartitionGroup>; heldBack: number[] } {
  const groups = new Map<string, PartitionGroup>();
  const heldBack: number[] = [];
  for (const i of pending) {
    const item = items[i]!;
    const key = `${item.topic}\0${item.partition}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { topic: item.topic, partition: item.partition, indices: [], counts: [], bytes: 0, heldBack: false }));
    const bytes = outboundItemBytes(item);
    const limit = producer.batchLimits.get(item.topic);
    if (limit !== undefined && (group.heldBack || (group.indices.length > 0 && group.bytes + bytes > limit))) {
      group.heldBack = true;
      heldBack.push(i);
      continue;
    }
    group.bytes += bytes;
    group.indices.push(i);
    group.counts.push(isRecordBatch(item) ? item.batch.recordCount : 1);
  }
  return { groups, heldBack };
}

/**
 * One item refused as too large on its own: a forwarded batch of several records goes again as
 * its records; a record is refused. Returns the item's offset, or -1.
 */
async function tooLargeAlone(
  producer: SlotProducer,
  item: OutboundItem,
  index: number,
  errorCode: number,
  onRefused: ((refused: RefusedRecord) => void) | undefined,
): Promise<number> {
  if (isRecordBatch(item) && item.batch.recordCount > 1) {
    let refused = false;
    const nested =
      onRefused &&
      ((r: RefusedRecord): void => {
        refused = true;
        onRefused({ index, offsetInBatch: r.index, record: r.record, error: r.error.at(index, r.index) });
      });
    try {
      const offsets = await produceItems(producer, await decodeForwarded(item), nested);
      return refused ? -1 : offsets[0]!;
    } catch (error) {
      throw error instanceof RecordRefusedError ? error.at(index, error.index) : error;
    }
  }
  const error = new RecordRefusedError(
    producer.cluster,
    index,
    0,
    `a record of about ${outboundItemBytes(item)} bytes is larger than ${item.topic}-${item.partition} takes (the target topic's max.message.bytes, or the broker's message.max.bytes); raise that limit on the target.`,
    { cause: kafkajsProtocolErrors().createErrorFromCode(errorCode) },
  );
  if (onRefused === undefined) throw error;
  const record = isRecordBatch(item) ? (await decodeForwarded(item))[0]! : item;
  onRefused({ index, offsetInBatch: 0, record, error });
  return -1;
}

/** A forwarded record batch's records, addressed as it was. */
async function decodeForwarded(item: OutboundRecordBatch): Promise<OutboundRecord[]> {
  return (await decodeRecordBatch(item.batch.bytes)).map((r) => ({
    topic: item.topic,
    partition: item.partition,
    timestamp: Number(r.timestamp),
    key: r.key,
    value: r.value,
    headers: r.headers,
  }));
}
