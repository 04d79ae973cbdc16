import type { KafkaMessage } from '../kafkajs';
import type { ConsumeOptions } from '../../core/ports/record-source';
import { type KafkaRecord, type RawRecordBatch, type RecordHeader, type SourceBatch, recordBytes } from '../../core/record';
import { decodeRecordBatch, isFetchedRecordBatch, type FetchedRecordBatch } from '../wire/fetch-decoder';

/** kafkajs messages as our wire decoder (../wire/record-decoder.ts) makes them: headers are an ordered list. */
export type DecodedMessage = Omit<KafkaMessage, 'headers'> & { headers: RecordHeader[] };
/** What kafkajs hands `eachBatch` for one partition: decoded records, and whole record batches where forwarding is on. */
export type FetchedMessage = DecodedMessage | FetchedRecordBatch;

/** One fetch of one partition, as kafkajs handed it over. */
export interface FetchedPartition {
  readonly topic: string;
  readonly partition: number;
  /** The offset the flow reads next: records before it were already handed over. */
  readonly from: number;
  /** One past the fetch's last offset: where the partition is read next. */
  readonly nextOffset: number;
  readonly highWatermark: number;
}

const UNLIMITED: NonNullable<ConsumeOptions['maxBatch']> = { records: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY };

/**
 * Turns one fetch of a partition into source batches from `from` on: runs of decoded records and
 * runs of whole record batches, in offset order, each within `limit` (a whole record batch larger
 * than the limit goes alone). Each batch's `nextOffset` is where the next one starts, so progress
 * committed after any of them resumes exactly behind it. A whole batch that starts before `from`
 * (a restart in the middle of it) is decoded, and only its records from `from` on are kept.
 */
export async function splitFetch(fetched: FetchedPartition, messages: readonly FetchedMessage[], limit = UNLIMITED): Promise<SourceBatch[]> {
  const { topic, partition, from, nextOffset, highWatermark } = fetched;
  const pieces: SourceBatch[] = [];
  let records: KafkaRecord[] = [];
  let recordBatches: RawRecordBatch[] = [];
  /** Records in the piece being built: decoded ones, or those of its whole batches. */
  let count = 0;
  let bytes = 0;
  const cut = (next: number): void => {
    if (records.length > 0) pieces.push({ kind: 'records', topic, partition, records, nextOffset: next, highWatermark, bytes });
    else if (recordBatches.length > 0) pieces.push({ kind: 'batches', topic, partition, recordBatches, nextOffset: next, highWatermark, bytes });
    records = [];
    recordBatches = [];
    count = 0;
    bytes = 0;
  };
  /** True when `moreRecords` and `moreBytes` would take a non-empty piece past the limit. */
  const over = (moreRecords: number, moreBytes: number): boolean => count > 0 && (count + moreRecords > limit.records || bytes + moreBytes > limit.bytes);
  const addRecord = (m: DecodedMessage): void => {
    const offset = Number(m.offset);
    if (offset < from) return;
    const record: KafkaRecord = { topic, partition, offset, timestamp: Number(m.timestamp), key: m.key ?? null, value: m.value ?? null, headers: m.headers };
    const size = recordBytes(record);
    if (recordBatches.length > 0 || over(1, size)) cut(offset);
    records.push(record);
    count++;
    bytes += size;
  };
  for (const m of messages) {
    if (!isFetchedRecordBatch(m)) {
      addRecord(m);
      continue;
    }
    const whole = m.recordBatch;
    if (whole.baseOffset + whole.recordCount <= from) continue;
    if (whole.baseOffset < from) {
      for (const record of await decodeRecordBatch(whole.bytes)) addRecord(record as unknown as DecodedMessage);
      continue;
    }
    if (records.length > 0 || over(whole.recordCount, whole.bytes.length)) cut(whole.baseOffset);
    recordBatches.push(whole);
    count += whole.recordCount;
    bytes += whole.bytes.length;
  }
  if (records.length > 0 || recordBatches.length > 0) cut(nextOffset);
  // A fetch of nothing but records before `from` still moves the partition forward. (A fetch
  // whose records were all filtered out never gets to `eachBatch`: see END_BATCH_PROCESS in
  // kafkajs-source.ts.)
  else if (pieces.length === 0) pieces.push({ kind: 'records', topic, partition, records: [], nextOffset, highWatermark, bytes: 0 });
  return pieces;
}

/** The first offset a fetch holds: its first record's, or its first whole batch's base offset; undefined for an empty fetch. */
export function firstFetchedOffset(messages: readonly FetchedMessage[]): number | undefined {
  const first = messages[0];
  if (first === undefined) return undefined;
  return isFetchedRecordBatch(first) ? first.recordBatch.baseOffset : Number(first.offset);
}
