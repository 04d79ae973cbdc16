import { PluginError, RecordFailedError } from '../../core/errors';
import type { FlowBatch, SourceBatch, TopicPartition } from '../../core/record';
import { flowBatchDeadLetters, flowBatchForwardedCount, flowBatchNewestTimestamp, flowBatchRecordCount, topicPartitionKey } from '../../core/record';
import { AclSyncStatus } from '../topics/acl-sync-status';
import { CheckpointStatus } from '../checkpoints/checkpoint-status';
import { ConfigSyncStatus } from '../topics/config-sync-status';
import { ErrorCounts } from './error-counts';
import { HeartbeatStatus } from '../heartbeats/heartbeat-status';
import { MirrorMetrics } from './mirror-metrics';
import { OutageStatus } from './outage-status';
import type { PreservationStatus } from '../replication/preservation-status';
import type { ProvenanceCounts } from './provenance-counts';
import { TransformCounters } from './transform-counters';
import { VerifyStatus } from '../verify/verify-status';

export interface PartitionStatus {
  readonly topic: string;
  readonly partition: number;
  /** Next source offset to replicate (everything before it is on the target). */
  nextOffset: number;
  /** Source high watermark when last fetched. */
  highWatermark: number;
  /**
   * Epoch ms the partition's lag in time counts from while it lags: the latest of when it was
   * first fetched, when it was last seen caught up, the source timestamp of the newest record
   * replicated from it, and the first record of a fetch that found it caught up. The oldest
   * record not yet on the target came after it (see `partitionLagMs`).
   */
  lagSince: number;
}

/**
 * Live counters of one flow, read by the CLI's progress line (`mirrorflow run`).
 * Updated once per acknowledged batch, never per record.
 */
export class FlowStatus {
  recordsReplicated = 0;
  recordsDropped = 0;
  /** Records that failed (errors.tolerance all) and were acknowledged on the dead-letter topic. */
  recordsDeadLettered = 0;
  /** `provenance.enabled`: what the provenance headers kept off the target; undefined without them. */
  provenance: ProvenanceCounts | undefined;
  bytesReplicated = 0;
  /** Source record batches written to the target as fetched, without decoding their records. */
  recordBatchesForwarded = 0;
  writes = 0;
  /** Milliseconds from the source timestamp to the target's acknowledgement, for the last batch's newest record. */
  lastReplicationLatencyMs: number | undefined;
  /**
   * Milliseconds from the source timestamp of the last fetched batch's last record to its fetch
   * (MM2's record-age-ms, measured once per batch).
   */
  lastRecordAgeMs: number | undefined;
  topics = 0;
  /** Remote topics this flow created on the target. */
  topicsCreated = 0;
  /** Records decoded and encoded again for the target, not forwarded in their source batch. */
  recordsReencoded = 0;
  /**
   * Times a source partition's log was found to restart below the stored position (topic deleted
   * and recreated, or truncated) and replication resumed from the new log.
   */
  sourceResets = 0;
  /**
   * Source records removed (retention, DeleteRecords) before they were copied: the log's start
   * moved past the position the flow held, and it went on from there.
   */
  recordsExpired = 0;
  readonly partitions = new Map<string, PartitionStatus>();
  /** Source partitions the group assigned to this process (its share when several run the pipeline). */
  partitionsAssigned = 0;
  /** Whether this process runs the flow's once-per-flow jobs (checkpoints, heartbeats, topic creation). */
  elected = false;
  /** True while this process takes part in the flow's election (elected or standing by). */
  campaigning = false;
  /** `disabled`: the flow does not replicate (`enabled: false`), only its heartbeats may run. */
  state: 'disabled' | 'starting' | 'running' | 'draining' | 'stopped' | 'failed' = 'starting';
  /** The flow's checkpoints and group offset sync (state `disabled` when off). */
  readonly checkpoints = new CheckpointStatus();
  readonly heartbeats = new HeartbeatStatus();
  /** The periodic topic config sync (`enabled` false when off). */
  readonly configSync = new ConfigSyncStatus();
  /** The flow's topic ACL sync (state `disabled` when off). */
  readonly acls = new AclSyncStatus();
  /** The flow's continuous verification (state `disabled` when off). */
  readonly verify = new VerifyStatus();
  /** Errors since start by kind and cluster (outages, dead letters, checkpoint failures, the flow's failure). */
  readonly errors = new ErrorCounts();
  /**
   * Operations of this flow (replication, checkpoints, heartbeats) failing retriably against a
   * cluster right now, and since when: the flow keeps retrying them, and keeps running.
   */
  readonly outages = new OutageStatus(this.errors);
  /** The counters the flow's transforms keep (`context.metrics.counter`). */
  readonly transformCounters = new TransformCounters();
  /** Per partition, whether its offsets are preserved (`offsets: preserve`); undefined otherwise. */
  preservation: PreservationStatus | undefined;
  /** What ended the flow, when its state is `failed`. */
  failure: unknown;

  /**
   * MM2's per-partition metrics (with the records and bytes replicated per source partition, by
   * `topicPartitionKey`) and the age and latency histograms, read at scrape time.
   */
  readonly mirror = new MirrorMetrics();

  /** What bounds records fetched but not yet acknowledged (set by the running flow). */
  buffer: { readonly inFlightBytes: number; readonly maxBytes: number } | undefined;

  constructor(
    readonly source: string,
    readonly target: string,
  ) {}

  /** Bytes fetched from the source and not yet acknowledged by the target. */
  get bufferedBytes(): number {
    return this.buffer?.inFlightBytes ?? 0;
  }

  /**
   * A fetch of `partition` that starts at `firstOffset`: the partition counts in `lag` from
   * now on, not only once the target acknowledged something of it (a target that refuses every
   * write must not show a lag of 0).
   */
  recordFetch(tp: TopicPartition, firstOffset: number, highWatermark: number, now: number = Date.now(), firstTimestamp?: number): void {
    const key = topicPartitionKey(tp);
    const p = this.partitions.get(key);
    if (p) {
      // Caught up until this fetch: what it brings is the oldest record not yet on the target.
      if (p.nextOffset >= p.highWatermark && firstTimestamp !== undefined && firstTimestamp >= 0)
        p.lagSince = Math.max(p.lagSince, Math.min(now, firstTimestamp));
      p.highWatermark = Math.max(p.highWatermark, highWatermark);
    } else this.partitions.set(key, { topic: tp.topic, partition: tp.partition, nextOffset: firstOffset, highWatermark, lagSince: now });
  }

  /** A batch just fetched: the age of its last record (one timestamp per batch, not per record). */
  recordAge(batch: SourceBatch, now: number): void {
    const timestamp = batch.kind === 'records' ? batch.records.at(-1)?.timestamp : batch.recordBatches.at(-1)?.maxTimestamp;
    // Timestamps below 0 mean "none" (old message formats).
    if (timestamp !== undefined && timestamp >= 0) this.lastRecordAgeMs = Math.max(0, now - timestamp);
    this.mirror.fetched(batch, now);
  }

  recordWrite(batches: readonly FlowBatch[], now: number): void {
    this.writes++;
    let newest = Number.NEGATIVE_INFINITY;
    for (const batch of batches) {
      const records = flowBatchRecordCount(batch);
      this.recordsReplicated += records;
      const skips = batch.kind === 'records' ? batch.provenance : undefined;
      if (skips !== undefined) this.provenance?.add(skips);
      this.recordsDropped +=
        batch.sourceRecords - records - (flowBatchDeadLetters(batch)?.length ?? 0) - (skips === undefined ? 0 : skips.loops + skips.duplicates);
      this.bytesReplicated += batch.bytes;
      this.recordBatchesForwarded += flowBatchForwardedCount(batch);
      if (batch.kind === 'records') this.recordsReencoded += records;
      this.mirror.written(batch, records, now);
      const timestamp = flowBatchNewestTimestamp(batch);
      if (timestamp > newest) newest = timestamp;
      const key = topicPartitionKey(batch.source);
      let p = this.partitions.get(key);
      if (p) {
        p.nextOffset = batch.nextOffset;
        p.highWatermark = Math.max(p.highWatermark, batch.highWatermark);
      } else {
        p = { ...batch.source, nextOffset: batch.nextOffset, highWatermark: batch.highWatermark, lagSince: now };
        this.partitions.set(key, p);
      }
      if (timestamp >= 0) p.lagSince = Math.max(p.lagSince, Math.min(now, timestamp));
      if (p.nextOffset >= p.highWatermark) p.lagSince = now;
    }
    if (newest > Number.NEGATIVE_INFINITY) this.lastReplicationLatencyMs = Math.max(0, now - newest);
  }

  /**
   * An error the flow handled (a record set aside, the failure that ended it), counted by kind
   * and by the cluster it names: the source for a transform's failure, else the target.
   */
  recordError(error: unknown): void {
    const transform = (error instanceof RecordFailedError && error.stage.kind === 'transform') || error instanceof PluginError;
    this.errors.record(error, transform ? this.source : this.target);
  }

  /** A partition's source log restarted: replication resumes at `nextOffset` of a log ending at `logEnd`. */
  recordSourceReset(tp: TopicPartition, nextOffset: number, logEnd: number, now: number = Date.now()): void {
    this.sourceResets++;
    // The old log's end must not keep counting as lag of the new one.
    this.partitions.set(topicPartitionKey(tp), { topic: tp.topic, partition: tp.partition, nextOffset, highWatermark: logEnd, lagSince: now });
  }

  /** `records` source records expired before they were copied (see `recordsExpired`). */
  recordExpired(records: number): void {
    this.recordsExpired += records;
  }

  /** The source timestamp of a fetched batch's first record (a forwarded batch's first batch's newest), if it has one. */
  static firstTimestamp(batch: SourceBatch): number | undefined {
    return batch.kind === 'records' ? batch.records[0]?.timestamp : batch.recordBatches[0]?.maxTimestamp;
  }

  /** Records on the source not yet on the target, as of the last fetch of each partition. */
  get lag(): number {
    let lag = 0;
    for (const p of this.partitions.values()) lag += Math.max(0, p.highWatermark - p.nextOffset);
    return lag;
  }
}
