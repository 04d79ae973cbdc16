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
 * The module keeps kafkajs's calling convention (same arguments, same request object), since
 * kafkajs's producer and its v4-v7 wrappers call it. The body is written into one buffer of the
 * exact size; request-frame.ts only reads its `.buffer`.
 */
import { crc32c } from '@node-rs/crc32';
import { encodeRecordBatch, type OutgoingMessage } from './record-batch-encoder';
import { kafkajsApiKeys, kafkajsLookupCodec } from './kafkajs-internals';

interface PartitionData {
  readonly partition: number;
  readonly firstSequence?: number;
  readonly messages: readonly OutgoingMessage[];
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
    encode: async (): Promise<{ readonly buffer: Buffer }> => {
      const topics: { name: Buffer; partitions: { partition: number; batch: Buffer }[] }[] = [];
      const transactionalIdBytes = transactionalId === null ? null : Buffer.from(transactionalId, 'utf8');
      let size = 2 + (transactionalIdBytes?.length ?? 0) + 2 + 4 + 4;
      for (const { topic, partitions } of args.topicData) {
        const name = Buffer.from(topic, 'utf8');
        const encoded: { partition: number; batch: Buffer }[] = [];
        size += 2 + name.length + 4;
        for (const data of partitions) {
          const batch = await encodeRecordBatch(data.messages, {
            compression,
            codec,
            crc32c,
            producerId,
            producerEpoch: idempotent ? (args.producerEpoch ?? 0) : -1,
            firstSequence: idempotent ? (data.firstSequence ?? 0) : -1,
            transactional: transactionalId !== null,
          });
          encoded.push({ partition: data.partition, batch });
          size += 4 + 4 + batch.length;
        }
        topics.push({ name, partitions: encoded });
      }
      const body = Buffer.allocUnsafe(size);
      let offset = body.writeInt16BE(transactionalIdBytes === null ? -1 : transactionalIdBytes.length, 0);
      if (transactionalIdBytes !== null) offset += transactionalIdBytes.copy(body, offset);
      offset = body.writeInt16BE(args.acks, offset);
      offset = body.writeInt32BE(args.timeout, offset);
      offset = body.writeInt32BE(topics.length, offset);
      for (const topic of topics) {
        offset = body.writeInt16BE(topic.name.length, offset);
        offset += topic.name.copy(body, offset);
        offset = body.writeInt32BE(topic.partitions.length, offset);
        for (const { partition, batch } of topic.partitions) {
          offset = body.writeInt32BE(partition, offset);
          offset = body.writeInt32BE(batch.length, offset);
          offset += batch.copy(body, offset);
        }
      }
      return { buffer: body };
    },
  };
}
