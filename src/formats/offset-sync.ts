/**
 * OffsetSync records on `mm2-offset-syncs.<cluster>.internal` (MM2's `OffsetSync`, connect-mirror).
 * "The source record at `upstreamOffset` was written to the target at `offset`."
 *
 *   key    topic: STRING            source topic, never renamed
 *          partition: INT32
 *   value  upstreamOffset: INT64
 *          offset: INT64            downstream offset of the copy
 *
 * No version header. Written to partition 0, no headers, producer-assigned timestamp.
 * Example (`orders`, 3, 1000 → 987):
 *   key   00 06 6f 72 64 65 72 73 00 00 00 03
 *   value 00 00 00 00 00 00 03 e8 00 00 00 00 00 00 03 db
 */
import type { TopicPartition } from '../core/record';
import { RecordFormatError } from './record-format-error';
import { StructReader, StructWriter } from './struct';

export interface OffsetSync {
  /** The source topic-partition. */
  readonly topicPartition: TopicPartition;
  readonly upstreamOffset: number;
  readonly downstreamOffset: number;
}

export function encodeOffsetSyncKey(tp: TopicPartition): Buffer {
  return new StructWriter(16 + tp.topic.length).string('topic', tp.topic).int32('partition', tp.partition).toBuffer();
}

export function encodeOffsetSyncValue(sync: OffsetSync): Buffer {
  return new StructWriter(16).int64('upstreamOffset', sync.upstreamOffset).int64('offset', sync.downstreamOffset).toBuffer();
}

export function decodeOffsetSync(key: Buffer | null, value: Buffer | null): OffsetSync {
  if (key === null) throw new RecordFormatError('Malformed offset-sync: null key');
  if (value === null) throw new RecordFormatError('Malformed offset-sync: null value');
  const k = new StructReader(key, 'offset-sync key');
  const topic = k.string('topic');
  const partition = k.int32('partition');
  const v = new StructReader(value, 'offset-sync value');
  const upstreamOffset = v.int64('upstreamOffset');
  const downstreamOffset = v.int64('offset');
  return { topicPartition: { topic, partition }, upstreamOffset, downstreamOffset };
}

/** The same text as Java's `OffsetSync.toString()`, for logs that match MM2's. */
export function formatOffsetSync(sync: OffsetSync): string {
  const { topic, partition } = sync.topicPartition;
  return `OffsetSync{topicPartition=${topic}-${partition}, upstreamOffset=${sync.upstreamOffset}, downstreamOffset=${sync.downstreamOffset}}`;
}
