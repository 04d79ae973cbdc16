/**
 * Produce response v3 (whose `parse` kafkajs's v4-v7 responses share), installed in place of
 * kafkajs's own so that a writer can learn which partitions of a request were written when
 * others failed.
 *
 *   Produce Response (v3) => [responses] throttle_time_ms
 *     responses => topic [partition error_code base_offset log_append_time]
 *
 * kafkajs's `parse` throws the first partition error of a response, and its producer then sends
 * the whole request again: the partitions the broker did write are written twice. (A topic just
 * created answers NOT_LEADER_OR_FOLLOWER on some partitions for a moment, so this happens on
 * every first start.) A writer's connections (connection-behaviour.ts) parse with
 * `parsePartialProduceResponse` instead, which gives the response as it is,
 * each partition with its error code, whenever at least one partition was written or one was
 * refused as too large (which the writer answers by splitting the batch, where kafkajs gives up);
 * or answered as an idempotent producer's (a duplicate, a sequence out of order, a producer id
 * the broker no longer knows: ../producer/idempotence.ts handles them, which kafkajs's retry cannot);
 * a response where every partition failed otherwise still throws, so kafkajs's own retry resends
 * nothing written.
 */
import { kafkajsFetchDecoding, kafkajsProtocolErrors, type KafkajsResponseDecoder } from './kafkajs-internals';

export interface ProducePartitionResponse {
  readonly partition: number;
  readonly errorCode: number;
  readonly baseOffset: string;
  readonly logAppendTime: string;
}

export interface ProduceResponse {
  readonly topics: readonly { readonly topicName: string; readonly partitions: readonly ProducePartitionResponse[] }[];
  readonly throttleTime: number;
}

/** MESSAGE_TOO_LARGE and RECORD_LIST_TOO_LARGE: a batch over the topic's `max.message.bytes`. */
const TOO_LARGE = new Set([10, 18]);

/**
 * OUT_OF_ORDER_SEQUENCE_NUMBER, DUPLICATE_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH and
 * UNKNOWN_PRODUCER_ID: answers about an idempotent producer's sequences, for the writer to handle.
 */
const PRODUCER_STATE = new Set([45, 46, 47, 59]);

/** Whether a partition's produce error says its batch was larger than the topic takes. */
export function isBatchTooLarge(errorCode: number): boolean {
  return TOO_LARGE.has(errorCode);
}

const readPartition = (decoder: KafkajsResponseDecoder): ProducePartitionResponse => ({
  partition: decoder.readInt32(),
  errorCode: decoder.readInt16(),
  baseOffset: decoder.readInt64().toString(),
  logAppendTime: decoder.readInt64().toString(),
});

async function decode(rawData: Buffer): Promise<ProduceResponse> {
  const decoder = new (kafkajsFetchDecoding().Decoder)(rawData);
  const topics = decoder.readArray((d) => ({ topicName: d.readString(), partitions: d.readArray(readPartition) }));
  return { topics, throttleTime: decoder.readInt32() };
}

/** kafkajs's parse: the first partition error is thrown. */
function parse(data: ProduceResponse): Promise<ProduceResponse> {
  return parseProduceResponse(data, false);
}

/** A writer's parse: partition failures are reported instead of thrown where the writer handles them (see above). */
export function parsePartialProduceResponse(data: ProduceResponse): Promise<ProduceResponse> {
  return parseProduceResponse(data, true);
}

async function parseProduceResponse(data: ProduceResponse, partial: boolean): Promise<ProduceResponse> {
  const { failure, createErrorFromCode } = kafkajsProtocolErrors();
  let failed: ProducePartitionResponse | undefined;
  let written = 0;
  let handled = false;
  for (const topic of data.topics) {
    for (const partition of topic.partitions) {
      if (failure(partition.errorCode)) {
        failed ??= partition;
        handled ||= isBatchTooLarge(partition.errorCode) || PRODUCER_STATE.has(partition.errorCode);
      } else written++;
    }
  }
  if (failed === undefined || (partial && (written > 0 || handled))) return data;
  throw createErrorFromCode(failed.errorCode);
}

export const produceResponseV3 = { decode, parse };
