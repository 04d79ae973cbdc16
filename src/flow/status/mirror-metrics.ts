/**
 * MM2's per-partition metrics (MirrorSourceMetrics) and checkpoint latency (MirrorCheckpointMetrics)
 * with MM2's meanings, kept beside mirrorflow's own counters and read at scrape time:
 *
 * - record-count / record-rate: records the target acknowledged (MM2 counts them in commitRecord);
 * - byte-count / byte-rate: bytes replicated, counted when acknowledged: keys, values and headers
 *   (MM2 counts record values alone, at poll);
 * - record-age-ms: at fetch, now minus each record's source timestamp (MM2: at poll);
 * - replication-latency-ms: at the target's acknowledgement, now minus each record's source timestamp;
 * (checkpoint-latency-ms is kept by the checkpoints' own status, `CheckpointStatus.latencies`.)
 *
 * Each has Kafka's windowed min, max and avg (`SampledStat`), and the flow's histograms of age and
 * latency (per record) serve mirrorflow's own metrics. A forwarded batch is not decoded: its
 * records' timestamps are taken as spread from its first to its newest (the batch header's
 * firstTimestamp and maxTimestamp), which bounds min and max exactly and the average closely.
 */
import type { FlowBatch, RawRecordBatch, SourceBatch, TopicPartition } from '../../core/record';
import { topicPartitionKey } from '../../core/record';
import { BucketCounts, LATENCY_BUCKETS_MS, SampledStat } from './sampled-stat';

/** One source partition's MM2 metrics. */
export class PartitionMirrorMetrics {
  records = 0;
  bytes = 0;
  /** The offset after the last record fetched: what lies between the acknowledged position and it is in flight. */
  fetchedThrough = 0;
  readonly recordWindow = new SampledStat();
  readonly byteWindow = new SampledStat();
  readonly recordAge = new SampledStat();
  readonly replicationLatency = new SampledStat();

  constructor(readonly source: TopicPartition) {}
}

/** Timestamps of a run of records: how many, their sum, oldest, newest, and the last one's. */
interface Stamps {
  count: number;
  sum: number;
  oldest: number;
  newest: number;
  last: number;
}

/** Byte offset of firstTimestamp in a v2 record batch: baseOffset 8, length 4, leader epoch 4, magic 1, crc 4, attributes 2, lastOffsetDelta 4. */
const FIRST_TIMESTAMP_AT = 27;

function emptyStamps(): Stamps {
  return { count: 0, sum: 0, oldest: Number.POSITIVE_INFINITY, newest: Number.NEGATIVE_INFINITY, last: Number.NaN };
}

function addStamp(s: Stamps, timestamp: number, count = 1, sum = timestamp * count, oldest = timestamp, newest = timestamp): void {
  // Timestamps below 0 mean "none" (old message formats): MM2's age of such a record is meaningless too.
  if (timestamp < 0 || count <= 0) return;
  s.count += count;
  s.sum += sum;
  s.oldest = Math.min(s.oldest, oldest);
  s.newest = Math.max(s.newest, newest);
  s.last = timestamp;
}

function addRawBatch(s: Stamps, batch: RawRecordBatch): void {
  if (batch.recordCount <= 0 || batch.maxTimestamp < 0) return;
  const first = batch.bytes.length >= FIRST_TIMESTAMP_AT + 8 ? Number(batch.bytes.readBigInt64BE(FIRST_TIMESTAMP_AT)) : batch.maxTimestamp;
  const oldest = first >= 0 && first <= batch.maxTimestamp ? first : batch.maxTimestamp;
  addStamp(s, batch.maxTimestamp, batch.recordCount, ((oldest + batch.maxTimestamp) / 2) * batch.recordCount, oldest, batch.maxTimestamp);
}

/** The flow's MM2 metrics per source partition, its checkpoint latencies, and its age and latency histograms. */
export class MirrorMetrics {
  readonly partitions = new Map<string, PartitionMirrorMetrics>();
  /** Per record: age at fetch, ms (mirrorflow_record_age_ms). */
  readonly recordAgeHistogram = new BucketCounts(LATENCY_BUCKETS_MS);
  /** Per record: source timestamp to the target's acknowledgement, ms (mirrorflow_replication_latency_ms). */
  readonly replicationLatencyHistogram = new BucketCounts(LATENCY_BUCKETS_MS);

  private partition(tp: TopicPartition): PartitionMirrorMetrics {
    const key = topicPartitionKey(tp);
    let p = this.partitions.get(key);
    if (p === undefined) {
      p = new PartitionMirrorMetrics({ topic: tp.topic, partition: tp.partition });
      this.partitions.set(key, p);
    }
    return p;
  }

  /** A batch just fetched: each record's age (MM2's recordAge, at poll). */
  fetched(batch: SourceBatch, now: number): void {
    const s = emptyStamps();
    const p = this.partition({ topic: batch.topic, partition: batch.partition });
    p.fetchedThrough = Math.max(p.fetchedThrough, batch.nextOffset);
    if (batch.kind === 'records') for (const r of batch.records) addStamp(s, r.timestamp);
    else for (const b of batch.recordBatches) addRawBatch(s, b);
    if (s.count === 0) return;
    const avgAge = now - s.sum / s.count;
    p.recordAge.record(now, s.count, (now - s.sum / s.count) * s.count, Math.max(0, now - s.newest), Math.max(0, now - s.oldest), Math.max(0, now - s.last));
    this.recordAgeHistogram.observe(Math.max(0, avgAge), s.count);
  }

  /** A batch the target acknowledged: its records and bytes, and each record's replication latency (MM2's commitRecord). */
  written(batch: FlowBatch, records: number, now: number): void {
    const p = this.partition(batch.source);
    p.records += records;
    p.bytes += batch.bytes;
    p.recordWindow.record(now, 1, records, records, records, records);
    p.byteWindow.record(now, 1, batch.bytes, batch.bytes, batch.bytes, batch.bytes);
    const s = emptyStamps();
    if (batch.kind === 'records') for (const r of batch.records) addStamp(s, r.timestamp);
    else for (const b of batch.recordBatches) addRawBatch(s, b.batch);
    if (s.count === 0) return;
    const avg = now - s.sum / s.count;
    p.replicationLatency.record(now, s.count, avg * s.count, Math.max(0, now - s.newest), Math.max(0, now - s.oldest), Math.max(0, now - s.last));
    this.replicationLatencyHistogram.observe(Math.max(0, avg), s.count);
  }

  /** Connect's offset-commit-avg/max-time-ms: how long storing the flow's progress took, ms. */
  readonly offsetCommit = new SampledStat();

  offsetCommitted(startedAt: number, now: number): void {
    const ms = Math.max(0, now - startedAt);
    this.offsetCommit.record(now, 1, ms, ms, ms, ms);
  }

  /** A partition no longer replicated by this process: MM2 drops its task's metrics with the task. */
  forget(tp: TopicPartition): void {
    this.partitions.delete(topicPartitionKey(tp));
  }
}
