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
 * The module keeps kafkajs's calling convention exactly (same arguments, same request object),
 * since kafkajs's producer and its v4-v7 wrappers call it.
 */
import { encodeRecordBatch, type OutgoingMessage } from './record-batch-encoder';
import { crc32c } from '@node-rs/crc32';
import { kafkajsApiKeys, kafkajsEncoderClass, kafkajsLookupCodec, type KafkajsEncoder } from './kafkajs-internals';

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
  const Encoder = kafkajsEncoderClass();
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
    encode: async (): Promise<KafkajsEncoder> => {
      const topics: KafkajsEncoder[] = [];
      for (const { topic, partitions } of args.topicData) {
        const encodedPartitions: KafkajsEncoder[] = [];
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
          encodedPartitions.push(new Encoder().writeInt32(data.partition).writeInt32(batch.length).writeBuffer(batch));
        }
        topics.push(new Encoder().writeString(topic).writeArray(encodedPartitions));
      }
      return new Encoder().writeString(transactionalId).writeInt16(args.acks).writeInt32(args.timeout).writeArray(topics);
    },
  };
}
