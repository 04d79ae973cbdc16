/**
 * Produce request v3 (the body kafkajs reuses for v3-v7), installed in place of kafkajs's own so
 * that record batches come from record-batch-encoder.ts.
 *
 *   Produce Request (v3) => transactional_id acks timeout [topic_data]
 *     transactional_id => NULLABLE_STRING
 *     acks             => INT16
 *     timeout          => INT32
 *     topic_data       => topic [partition record_set]
 *       topic      => STRING
 *       partition  => INT32
 *       record_set => INT32 length + record batch
 *
 * A partition's messages may instead be forwarded batches (record batches as fetched from another
 * cluster): one is copied into the request with its producer fields rewritten; several
 * (uncompressed) are joined into one, since Kafka takes one batch per partition per request.
 *
 * A partition's first message may carry the producer fields of an idempotent or transactional
 * writer (`producer`: id, epoch, base sequence; see ../producer/sequence-source.ts), which then stand for the
 * whole partition's batch in place of the request's: the writer keeps its own sequences, counting the
 * records of forwarded batches, where kafkajs would count one per message. With a transactional
 * id (the exactly-once writer, ../transactions/kafkajs-transaction-port.ts) every batch has the transactional
 * bit set, forwarded ones too.
 *
 * The module keeps kafkajs's calling convention (same arguments, same request object), since
 * kafkajs's producer and its v4-v7 wrappers call it. The body is written into one buffer of the
 * exact size, after the headroom request-frame.ts asks for, so that the frame's header is
 * written in front of it in place: the records are copied into the request once, not twice. A
 * connection whose socket gathers (gathered-writes.ts) asks for a gathered body instead: that
 * buffer holds only what the request writes anew, and the long runs of fetched records (and
 * encoded or compressed batches) are referred to where they are, never copied.
 */
import { crc32c } from '@node-rs/crc32';
import type { OutboundItem, RawRecordBatch } from '../../core/record';
import { isRecordBatch } from '../../core/ports/record-writer';
import { encodeRecordBatch, forwardedBatchOwnBytes, writeForwardedBatch, type BatchOptions, type OutgoingMessage } from './record-batch-encoder';
import { BodyWriter } from './gathered-writes';
import { compressJoinedBatch, planJoinedBatch, type CompressedJoinedBatch, type JoinedBatch } from './record-batch-join';
import { kafkajsApiKeys, kafkajsLookupCodec } from './kafkajs-internals';
import type { ProducerStamp } from '../producer/producer-sequences';
import type { EncodedRequest } from './request-frame';

/** A message that stands for a whole fetched record batch, forwarded as it is. */
export interface ForwardedBatchMessage {
  readonly value: null;
  readonly recordBatch: RawRecordBatch;
}

/**
 * A produce request's place in its writer's send order (kafkajs-writer.ts): its encoding returns
 * only after `before` (the requests the writer sent before it were encoded, or gave up), then
 * calls `done`, so that kafkajs's connection queues requests in the order they were sent. Between
 * `sendBatch` and the encoding, kafkajs's producer passes a lock (its target topics) that lets a
 * later caller overtake an earlier one; an idempotent partition's batch that overtakes an earlier
 * one is refused as out of order and goes again.
 */
export interface SendTurn {
  readonly before: Promise<void>;
  done(): void;
}

/** Turns in one writer's send order: each request's encoding returns after those of the turns taken before it. */
export class SendOrder {
  /** Resolves once every turn so far was done. */
  private tail: Promise<void> = Promise.resolve();

  take(): SendTurn {
    const before = this.tail;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    this.tail = before.then(() => mine);
    return { before, done };
  }
}

/** The producer fields of a partition's batch, and the request's send order, on the partition's first message. */
export interface StampedMessage {
  readonly producer?: ProducerStamp;
  readonly sendTurn?: SendTurn;
}

/**
 * Appends one partition's messages for this request to `messages`: a record is its own message
 * (the encoder reads partition, key, value, numeric timestamp and the ordered header list from it,
 * so no copy is made), a forwarded batch a ForwardedBatchMessage; the first carries `stamp`, the
 * producer fields of the partition's batch, when there are any.
 */
export function pushPartitionMessages(
  messages: object[],
  partition: number,
  items: readonly OutboundItem[],
  stamp: ProducerStamp | undefined,
  sendTurn?: SendTurn,
): void {
  const first = messages.length;
  for (const item of items) {
    const message: (ForwardedBatchMessage & { partition: number }) | OutboundItem = isRecordBatch(item)
      ? { partition, value: null, recordBatch: item.batch }
      : item;
    messages.push(message);
  }
  if ((stamp !== undefined || sendTurn !== undefined) && messages.length > first) {
    const stamped: StampedMessage = {
      ...messages[first]!,
      ...(stamp === undefined ? {} : { producer: stamp }),
      ...(sendTurn === undefined ? {} : { sendTurn }),
    };
    messages[first] = stamped;
  }
}

interface PartitionData {
  readonly partition: number;
  readonly firstSequence?: number;
  /** Records to encode into one batch, or forwarded batches (one, or several uncompressed ones to join). */
  readonly messages: readonly (OutgoingMessage | ForwardedBatchMessage)[];
}

/**
 * A partition's record set: encoded here, a fetched batch copied into the request, or fetched
 * batches joined straight into the request.
 */
type RecordSet =
  | { readonly encoded: Buffer }
  | { readonly forwarded: Buffer; readonly options: BatchOptions }
  | { readonly joined: JoinedBatch }
  | { readonly compressed: CompressedJoinedBatch };

/** The fetched batches a partition's messages stand for, or undefined when they are records. */
function forwardedBatches(messages: PartitionData['messages']): RawRecordBatch[] | undefined {
  if ((messages[0] as Partial<ForwardedBatchMessage> | undefined)?.recordBatch === undefined) return undefined;
  return messages.map((message) => {
    const batch = (message as Partial<ForwardedBatchMessage>).recordBatch;
    if (batch === undefined) throw new Error('A partition of a produce request takes either records or forwarded record batches, not both.');
    return batch;
  });
}

/**
 * A partition's forwarded batches as one record set. One batch goes as fetched (a small
 * compressed one that arrived inflated, too: as it was compressed at the source). Several are
 * joined; when some of them were compressed at the source and the writer itself compresses
 * nothing (`producer.compression` none), the joined batch is compressed with their codec (the
 * first one's, should a partition mix codecs), so that the target keeps the source's compression.
 */
async function forwardedRecordSet(batches: readonly RawRecordBatch[], options: BatchOptions): Promise<RecordSet> {
  if (batches.length === 1) return { forwarded: batches[0]!.fetched?.bytes ?? batches[0]!.bytes, options };
  const fetched = batches.map((b) => b.bytes);
  const codecBits = options.compression === 0 ? batches.find((b) => b.fetched !== undefined)?.fetched?.codec : undefined;
  if (codecBits === undefined) return { joined: planJoinedBatch(fetched, options) };
  return { compressed: await compressJoinedBatch(fetched, codecBits, kafkajsLookupCodec()(codecBits), options) };
}

function recordSetSize(set: RecordSet): number {
  if ('encoded' in set) return set.encoded.length;
  if ('joined' in set) return set.joined.size;
  if ('compressed' in set) return set.compressed.header.length + set.compressed.body.length;
  return set.forwarded.length;
}

/** Bytes of a record set a body writer copies into its own buffer (BodyWriter: long runs are referred to when it gathers). */
function recordSetOwnBytes(set: RecordSet, gather: boolean): number {
  const placed = (bytes: number): number => (BodyWriter.refers(gather, bytes) ? 0 : bytes);
  if ('encoded' in set) return placed(set.encoded.length);
  if ('joined' in set) return set.joined.ownBytes(gather);
  if ('compressed' in set) return set.compressed.header.length + placed(set.compressed.body.length);
  return forwardedBatchOwnBytes(set.forwarded, gather);
}

function writeRecordSet(set: RecordSet, writer: BodyWriter): void {
  if ('encoded' in set) writer.place(set.encoded, 0, set.encoded.length);
  else if ('joined' in set) set.joined.writeTo(writer);
  else if ('compressed' in set) {
    writer.place(set.compressed.header, 0, set.compressed.header.length);
    writer.place(set.compressed.body, 0, set.compressed.body.length);
  } else writeForwardedBatch(set.forwarded, writer, set.options);
}

interface TopicData {
  readonly topic: string;
  readonly partitions: readonly PartitionData[];
}

/** kafkajs passes producer ids as its own Long (a BigInt wrapper) or a number. */
type LongLike = number | { toString(): string };

export interface ProduceRequestArgs {
  readonly acks: number;
  readonly timeout: number;
  readonly transactionalId?: string | null;
  readonly producerId?: LongLike;
  readonly producerEpoch?: number;
  readonly compression?: number;
  readonly topicData: readonly TopicData[];
}

/** The send order of a request (SendTurn), on the first message of one of its partitions. */
function sendTurnOf(topicData: readonly TopicData[]): SendTurn | undefined {
  for (const { partitions } of topicData) {
    for (const { messages } of partitions) {
      const turn = (messages[0] as StampedMessage | undefined)?.sendTurn;
      if (turn !== undefined) return turn;
    }
  }
  return undefined;
}

export function produceRequestV3(args: ProduceRequestArgs) {
  const compression = args.compression ?? 0;
  const codec = compression === 0 ? undefined : kafkajsLookupCodec()(compression);
  const producerId = args.producerId === undefined ? -1 : Number(args.producerId.toString());
  const transactionalId = args.transactionalId ?? null;
  const idempotent = producerId >= 0;
  return {
    apiKey: kafkajsApiKeys().Produce,
    apiVersion: 3,
    apiName: 'Produce',
    expectResponse: () => args.acks !== 0,
    encode: async (headroom = 0, gather = false): Promise<EncodedRequest> => {
      const topics: { name: Buffer; partitions: { partition: number; set: RecordSet }[] }[] = [];
      const transactionalIdBytes = transactionalId === null ? null : Buffer.from(transactionalId, 'utf8');
      let size = 2 + (transactionalIdBytes?.length ?? 0) + 2 + 4 + 4;
      let recordSetOwn = 0;
      for (const { topic, partitions } of args.topicData) {
        const name = Buffer.from(topic, 'utf8');
        const encoded: { partition: number; set: RecordSet }[] = [];
        size += 2 + name.length + 4;
        for (const data of partitions) {
          const stamp = (data.messages[0] as StampedMessage | undefined)?.producer;
          const options: BatchOptions =
            stamp === undefined
              ? {
                  compression,
                  codec,
                  crc32c,
                  producerId,
                  producerEpoch: idempotent ? (args.producerEpoch ?? 0) : -1,
                  firstSequence: idempotent ? (data.firstSequence ?? 0) : -1,
                  transactional: transactionalId !== null,
                }
              : {
                  compression,
                  codec,
                  crc32c,
                  producerId: stamp.producerId,
                  producerEpoch: stamp.producerEpoch,
                  firstSequence: stamp.baseSequence,
                  // A transactional id in the request makes every batch of it transactional.
                  transactional: transactionalId !== null,
                };
          const forwarded = forwardedBatches(data.messages);
          const set: RecordSet =
            forwarded === undefined
              ? { encoded: await encodeRecordBatch(data.messages as readonly OutgoingMessage[], options) }
              : await forwardedRecordSet(forwarded, options);
          encoded.push({ partition: data.partition, set });
          size += 4 + 4;
          recordSetOwn += recordSetOwnBytes(set, gather);
        }
        topics.push({ name, partitions: encoded });
      }
      const turn = sendTurnOf(args.topicData);
      if (turn !== undefined) {
        await turn.before;
        turn.done();
      }
      const writer = new BodyWriter(Buffer.allocUnsafe(headroom + size + recordSetOwn), gather);
      const body = writer.own;
      let offset = body.writeInt16BE(transactionalIdBytes === null ? -1 : transactionalIdBytes.length, headroom);
      if (transactionalIdBytes !== null) offset += transactionalIdBytes.copy(body, offset);
      offset = body.writeInt16BE(args.acks, offset);
      offset = body.writeInt32BE(args.timeout, offset);
      offset = body.writeInt32BE(topics.length, offset);
      writer.offset = offset;
      for (const topic of topics) {
        writer.offset = body.writeInt16BE(topic.name.length, writer.offset);
        writer.place(topic.name, 0, topic.name.length);
        writer.offset = body.writeInt32BE(topic.partitions.length, writer.offset);
        for (const { partition, set } of topic.partitions) {
          writer.offset = body.writeInt32BE(partition, writer.offset);
          writer.offset = body.writeInt32BE(recordSetSize(set), writer.offset);
          writeRecordSet(set, writer);
        }
      }
      const { head, tail } = writer.finish();
      return tail.length === 0 ? { buffer: head, headroom } : { buffer: head, headroom, tail };
    },
  };
}
