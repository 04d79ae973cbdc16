/**
 * Replacement for kafkajs's producer/groupMessagesPerPartition, which copies the partition's
 * whole array for every message (`[...current, message]`): quadratic in the batch size, and the
 * top of the profile for batches of thousands of records. Same contract, linear; a message that
 * names its partition skips the partitioner, as kafkajs's own default partitioner would.
 */
interface PartitionedMessage {
  readonly partition?: number;
}

export interface GroupArgs<M extends PartitionedMessage> {
  readonly topic: string;
  readonly partitionMetadata: readonly unknown[];
  readonly messages: readonly M[];
  readonly partitioner: (args: { topic: string; partitionMetadata: readonly unknown[]; message: M }) => number;
}

export function groupMessagesPerPartition<M extends PartitionedMessage>({
  topic,
  partitionMetadata,
  messages,
  partitioner,
}: GroupArgs<M>): Record<number, M[]> {
  const result: Record<number, M[]> = {};
  if (partitionMetadata.length === 0) return result;
  for (const message of messages) {
    const partition = typeof message.partition === 'number' ? message.partition : partitioner({ topic, partitionMetadata, message });
    (result[partition] ??= []).push(message);
  }
  return result;
}
