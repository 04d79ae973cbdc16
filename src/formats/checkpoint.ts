/**
 * Checkpoint records on `<source>.checkpoints.internal` (MM2's `Checkpoint`, connect-mirror-client).
 * "Group `group` has committed `upstreamOffset` on the source; on the target that is `offset`."
 *
 *   key    group: STRING
 *          topic: STRING            TARGET-side (renamed) topic
 *          partition: INT32
 *   value  version: INT16 (= 0)
 *          upstreamOffset: INT64
 *          offset: INT64            translated downstream offset
 *          metadata: STRING         the source commit's metadata, "" when it had none
 *
 * Readers decode every version with the V0 layout (Java only asserts the version, and assertions
 * are off in production) and ignore trailing bytes. Written to partition 0, no headers.
 * Example (`group-1`, `us-west.orders`, 3, 1000 → 987, ""):
 *   key   00 07 67 72 6f 75 70 2d 31 00 0e 75 73 2d 77 65 73 74 2e 6f 72 64 65 72 73 00 00 00 03
 *   value 00 00 | 00 00 00 00 00 00 03 e8 | 00 00 00 00 00 00 03 db | 00 00
 */
import type { TopicPartition } from '../core/record';
import { RecordFormatError } from './record-format-error';
import { StructReader, StructWriter } from './struct';

export const CHECKPOINT_VERSION = 0;

export interface Checkpoint {
  readonly consumerGroupId: string;
  /** The target-side topic-partition. */
  readonly topicPartition: TopicPartition;
  readonly upstreamOffset: number;
  readonly downstreamOffset: number;
  readonly metadata: string;
}

export function encodeCheckpointKey(cp: Pick<Checkpoint, 'consumerGroupId' | 'topicPartition'>): Buffer {
  return new StructWriter(32 + cp.consumerGroupId.length + cp.topicPartition.topic.length)
    .string('group', cp.consumerGroupId)
    .string('topic', cp.topicPartition.topic)
    .int32('partition', cp.topicPartition.partition)
    .toBuffer();
}

export function encodeCheckpointValue(cp: Pick<Checkpoint, 'upstreamOffset' | 'downstreamOffset' | 'metadata'>): Buffer {
  return new StructWriter(24 + cp.metadata.length)
    .int16('version', CHECKPOINT_VERSION)
    .int64('upstreamOffset', cp.upstreamOffset)
    .int64('offset', cp.downstreamOffset)
    .string('metadata', cp.metadata)
    .toBuffer();
}

export function decodeCheckpoint(key: Buffer | null, value: Buffer | null): Checkpoint {
  if (key === null) throw new RecordFormatError('Malformed checkpoint: null key');
  if (value === null) throw new RecordFormatError('Malformed checkpoint: null value');
  const k = new StructReader(key, 'checkpoint key');
  const consumerGroupId = k.string('group');
  const topic = k.string('topic');
  const partition = k.int32('partition');
  const v = new StructReader(value, 'checkpoint value');
  v.int16('version');
  const upstreamOffset = v.int64('upstreamOffset');
  const downstreamOffset = v.int64('offset');
  const metadata = v.string('metadata');
  return { consumerGroupId, topicPartition: { topic, partition }, upstreamOffset, downstreamOffset, metadata };
}

/** The same text as Java's `Checkpoint.toString()` (MM2's `CheckpointFormatter` prints it). */
export function formatCheckpoint(cp: Checkpoint): string {
  const { topic, partition } = cp.topicPartition;
  return (
    `Checkpoint{consumerGroupId=${cp.consumerGroupId}, topicPartition=${topic}-${partition}, ` +
    `upstreamOffset=${cp.upstreamOffset}, downstreamOffset=${cp.downstreamOffset}, metadata=${cp.metadata}}`
  );
}
