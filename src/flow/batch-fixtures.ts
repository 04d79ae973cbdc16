import type { FlowBatch, KafkaRecord, RecordFailure, SourceBatch } from '../core/record';
import { RecordFailedError } from '../core/errors';

/** For specs: a fetched batch of `count` records of `topic`-0 from offset `from`, 10 bytes each. */
export function sourceBatch(topic: string, from = 0, count = 1): SourceBatch {
  const records: KafkaRecord[] = Array.from({ length: count }, (_, i) => ({
    topic,
    partition: 0,
    offset: from + i,
    timestamp: 0,
    key: null,
    value: Buffer.from(`${topic}:${from + i}`),
    headers: [],
  }));
  return { kind: 'records', topic, partition: 0, records, nextOffset: from + count, highWatermark: from + count, bytes: count * 10 };
}

/** For specs: `batch` as mirrored to `remote.<topic>`, with what the transforms left of it. */
export function flowBatch(batch: SourceBatch, over: { readonly failure?: string; readonly deadLetters?: readonly string[] } = {}): FlowBatch {
  if (batch.kind !== 'records') throw new Error('flowBatch takes decoded batches');
  const records = batch.records.map((r) => ({ ...r, source: { topic: r.topic, partition: r.partition, offset: r.offset }, topic: `remote.${r.topic}` }));
  const failed = (offset: number, reason: string): RecordFailure => ({
    record: records.find((r) => r.offset === offset) ?? records[0]!,
    error: new RecordFailedError({ topic: batch.topic, partition: batch.partition, offset }, { kind: 'write' }, reason),
  });
  return {
    kind: 'records',
    source: { topic: batch.topic, partition: batch.partition },
    records,
    nextOffset: batch.nextOffset,
    highWatermark: batch.highWatermark,
    bytes: batch.bytes,
    sourceRecords: records.length,
    ...(over.failure === undefined ? {} : { failure: failed(batch.nextOffset - 1, over.failure).error }),
    ...(over.deadLetters === undefined ? {} : { deadLetters: over.deadLetters.map((reason, i) => failed(batch.records[i]!.offset, reason)) }),
  };
}
