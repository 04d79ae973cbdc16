import { createHash } from 'node:crypto';
import { firstValueFrom, type Observable, defer } from '#rxjs';
import type { ClusterAdmin, PartitionOffsets } from '../../core/ports/cluster-admin';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import type { Logger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import { topicPartitionKey, type FlowBatch, type KafkaRecord, type SourceBatch, type TopicPartition } from '../../core/record';
import { MirrorflowError } from '../../core/errors';
import type { PreservationStatus } from './preservation-status';
import { PreservationMarkers, type PreservationMarker } from './preservation-markers';

/** Header of the records written below a source's log start offset, deleted before anything is copied. */
export const FILLER_HEADER = 'mirrorflow.filler';
/** Filler records per write: tombstones of a few bytes each. */
const FILLER_CHUNK = 10_000;

export interface OffsetPreservationParts {
  readonly targetAdmin: ClusterAdmin;
  /** The flow's replication writer: fillers go through the same idempotent producer as the records. */
  readonly writer: RecordWriter;
  /**
   * Read single records of the source and of the target: before a partition resumes at the
   * target's end after a crash, the records there are compared with the source's at the same offsets.
   */
  readonly readers: { readonly source: TopicReader; readonly target: TopicReader };
  /**
   * The group on the target whose committed offsets keep each partition's state across
   * restarts (offset: where it is preserved from, or where it fell back; metadata: why).
   */
  readonly markerGroup: string;
  readonly status: PreservationStatus;
  readonly logger: Logger;
  readonly now: () => number;
}

/**
 * `offsets: preserve`: each target partition holds its source partition's records at the same
 * offsets, as long as that holds, and says so when it stops holding.
 *
 * Kafka's broker assigns offsets by count: a batch of n records written to a partition ending at
 * offset x takes x … x+n-1. So a target partition that starts empty, takes every source record
 * once and in order from one idempotent producer (a resent batch is dropped by its sequence), and
 * whose source has no offsets without a record (compaction holes, transaction markers), matches
 * its source offset for offset. A source whose log starts above 0 is matched by filler records
 * (tombstones with the `mirrorflow.filler` header) up to its log start, deleted with DeleteRecords
 * before the first real record is written.
 *
 * `start` decides, per partition, where copying starts and whether it is preserved; `verify`
 * compares the offset the target assigned to each written item with its source offset. A
 * partition that cannot be (or stops being) preserved falls back to ordinary replication —
 * nothing else changes: offset syncs are written for every partition anyway — with a warning,
 * `FlowStatus.preservation` and a marker. Markers are committed offsets of a group of their own
 * on the target (`markerGroup`), written before the progress that passes them (`flush`), so that
 * after a crash a partition resumes at the target's end only when it was preserved up to there.
 */
export class OffsetPreservation {
  /** Target offsets per remote topic, read once per assignment. */
  private readonly targets = new Map<string, Promise<readonly PartitionOffsets[]>>();
  private readonly markers: PreservationMarkers;
  /** Per preserved partition, the source offset its next fetched record should have. */
  private readonly expected = new Map<string, number>();

  constructor(private readonly parts: OffsetPreservationParts) {
    this.markers = new PreservationMarkers(parts.targetAdmin, parts.markerGroup, parts.now);
  }

  /** Reads the markers again at the next `start` (a new assignment: other processes may have written some). */
  reload(): void {
    this.markers.reload();
    this.targets.clear();
  }

  /**
   * Where a newly assigned partition starts, and whether it is preserved. `progress` is the
   * stored next offset, if any; `source` the source partition's offsets. Fills the target below
   * a source log start above 0. Resolves with the offset to read from.
   */
  async start(tp: TopicPartition, remote: string, progress: number | undefined, source: () => Promise<PartitionOffsets | undefined>): Promise<number> {
    const offset = await this.decide(tp, remote, progress, source);
    if (this.preserved(tp)) this.expected.set(topicPartitionKey(tp), offset);
    return offset;
  }

  private async decide(tp: TopicPartition, remote: string, progress: number | undefined, source: () => Promise<PartitionOffsets | undefined>): Promise<number> {
    const { logger } = this.parts;
    let offsets = this.targets.get(remote);
    if (offsets === undefined) {
      const reading = firstValueFrom(this.parts.targetAdmin.partitionOffsets(remote));
      this.targets.set(remote, (offsets = reading));
      reading.catch(() => this.targets.get(remote) === reading && this.targets.delete(remote));
    }
    const target = this.partitionOf(await offsets, remote, tp.partition);
    const marker = (await this.markers.load()).get(topicPartitionKey({ topic: remote, partition: tp.partition }));
    if (marker !== undefined && !marker.preserved) {
      const from = progress ?? (await source())?.earliest ?? 0;
      this.fallBack(tp, remote, marker.reason ?? 'it fell back in an earlier run', marker.offset, marker);
      return from;
    }
    if (progress === undefined && marker?.preserved === true) {
      // An earlier run began here and stopped before it stored progress: during the fill, or
      // after records were written at their offsets.
      const since = marker.offset;
      if (target.latest > since) {
        const differs = await this.foreignRecords(tp, remote, since, target.latest);
        if (differs !== undefined) {
          this.fallBack(tp, remote, differs, since, marker);
          return since;
        }
        this.preserve(tp, remote, since, marker);
        return this.resumeAtEnd(tp, undefined, target.latest);
      }
      this.preserve(tp, remote, since, marker);
      await this.fill(remote, tp.partition, target.latest, since);
      return since;
    }
    if (progress === undefined) {
      const from = (await source())?.earliest ?? 0;
      if (target.latest > 0) {
        this.fallBack(tp, remote, `the target partition was not empty at the start (it ends at offset ${target.latest})`, from, marker);
        return from;
      }
      // Stored before the fill or the first record, so that a restart knows both are ours.
      this.preserve(tp, remote, from, marker);
      await this.markers.commit();
      if (from > 0) await this.fill(remote, tp.partition, 0, from);
      logger.info('Offsets preserved from the source log start.', { topic: tp.topic, partition: tp.partition, from });
      return from;
    }
    if (target.latest === progress) {
      this.preserve(tp, remote, marker?.offset ?? target.earliest, marker);
      return progress;
    }
    if (target.latest > progress && marker?.preserved === true) {
      // Written up to there at the source's offsets before a crash: the records between the
      // stored progress and the target's end are there already, at their own offsets — unless
      // another program wrote to the partition and the fallback it caused was never stored.
      const differs = await this.foreignRecords(tp, remote, progress, target.latest);
      if (differs !== undefined) {
        this.fallBack(tp, remote, differs, progress, marker);
        return progress;
      }
      this.preserve(tp, remote, marker.offset, marker);
      return this.resumeAtEnd(tp, progress, target.latest);
    }
    this.fallBack(tp, remote, `the target partition ends at offset ${target.latest}, the stored progress is at ${progress}`, progress, marker);
    return progress;
  }

  /**
   * Before a preserved partition resumes at the target's end, past `from` (its stored progress):
   * the target's records at `from` and at its last offset must be the source's records at the same
   * offsets (key, value, headers, timestamp). Another writer's records there would otherwise make
   * the flow skip as many source records. Says why not, when they are not.
   */
  private async foreignRecords(tp: TopicPartition, remote: string, from: number, end: number): Promise<string | undefined> {
    const { readers } = this.parts;
    for (const offset of new Set([from, end - 1])) {
      const [source, target] = await Promise.all([
        readers.source.recordAt(tp.topic, tp.partition, offset),
        readers.target.recordAt(remote, tp.partition, offset),
      ]);
      if (target === undefined || target.offset !== offset) continue; // deleted on the target since: nothing to compare
      if (source === undefined || source.offset !== offset)
        return `the target partition ends at offset ${end}, past the stored progress (${from}), but the source has no record at offset ${offset} that the target has: another program wrote to the target partition`;
      if (recordDigest(source) !== recordDigest(target))
        return `the target partition ends at offset ${end}, past the stored progress (${from}), and its record at offset ${offset} is not the source's (key, value, headers or timestamp differ): another program wrote to the target partition`;
    }
    return undefined;
  }

  private resumeAtEnd(tp: TopicPartition, progress: number | undefined, end: number): number {
    this.parts.logger.info('Offsets preserved: resuming at the end of the target partition, past the stored progress.', {
      topic: tp.topic,
      partition: tp.partition,
      progress: progress ?? 'none',
      resumeAt: end,
    });
    return end;
  }

  /** True when the partition is preserved so far. */
  preserved(tp: TopicPartition): boolean {
    return this.parts.status.get(tp)?.preserved === true;
  }

  /**
   * Compares, for one acknowledged flow batch of a preserved partition, the offset the target
   * gave each item (`offsets[from …]`) with its source offset; the partition falls back at the
   * first that differs. Returns the index just after the batch's items.
   */
  verify(batch: FlowBatch, remote: string, offsets: Float64Array, from: number): number {
    const tp = batch.source;
    let i = from;
    // -1: written earlier (a duplicate the broker has no offsets for); the item after it shows
    // whether the partition is still aligned.
    const aligned = (sourceOffset: number): boolean => {
      const target = offsets[i++]!;
      if (target < 0 || target === sourceOffset) return true;
      this.fallBack(tp, remote, `the target put source offset ${sourceOffset} at offset ${target}`, sourceOffset, undefined);
      return false;
    };
    switch (batch.kind) {
      case 'records':
        for (const r of batch.records) if (!aligned(r.source.offset)) return from + batch.records.length;
        return i;
      case 'batches':
        for (const { batch: whole } of batch.recordBatches) if (!aligned(whole.baseOffset)) return from + batch.recordBatches.length;
        return i;
    }
  }

  /**
   * Before a fetched batch of a preserved partition is written: a source offset without a record
   * (compacted away, a transaction marker, a record that failed) cannot be reproduced on the
   * target, so the partition falls back at the first record after it. The flow writes the
   * marker before the batch (`flush`).
   */
  inspect(batch: SourceBatch, remote: string): void {
    const key = topicPartitionKey(batch);
    let next = this.expected.get(key);
    if (next === undefined || !this.preserved(batch)) return;
    const gap = (offset: number): boolean => {
      if (offset === next) return false;
      this.fallBack(
        batch,
        remote,
        `the source has no records at offsets ${next} to ${offset - 1} (compacted away, transaction markers, or records not written)`,
        offset,
        undefined,
      );
      return true;
    };
    switch (batch.kind) {
      case 'records':
        for (const r of batch.records) {
          if (gap(r.offset)) return;
          next = r.offset + 1;
        }
        break;
      case 'batches':
        for (const whole of batch.recordBatches) {
          if (gap(whole.baseOffset)) return;
          next = whole.baseOffset + whole.recordCount;
        }
        break;
    }
    this.expected.set(key, next!);
  }

  /** Commits the markers that changed (and, once an hour, all of them): before the progress that passes them. */
  flush(): Observable<void> {
    return defer(() => this.markers.commit());
  }

  private preserve(tp: TopicPartition, remote: string, since: number, marker: PreservationMarker | undefined): void {
    this.parts.status.preserved(tp, since);
    this.expected.delete(topicPartitionKey(tp));
    this.markers.hold(remote, tp.partition, { preserved: true, offset: since }, marker?.preserved === true && marker.offset === since);
  }

  private fallBack(tp: TopicPartition, remote: string, reason: string, fromOffset: number, marker: PreservationMarker | undefined): void {
    const known = marker !== undefined && !marker.preserved;
    this.parts.status.fellBack(tp, reason, fromOffset, this.parts.now(), !known);
    this.expected.delete(topicPartitionKey(tp));
    if (!known)
      this.parts.logger.warn('Offsets no longer preserved for a partition: it is replicated with offset translation from here on.', {
        topic: tp.topic,
        partition: tp.partition,
        fromOffset,
        reason,
      });
    this.markers.hold(remote, tp.partition, { preserved: false, offset: fromOffset, reason }, known);
  }

  private async targetOffsets(topic: string, partition: number): Promise<PartitionOffsets> {
    return this.partitionOf(await firstValueFrom(this.parts.targetAdmin.partitionOffsets(topic)), topic, partition);
  }

  private partitionOf(offsets: readonly PartitionOffsets[], topic: string, partition: number): PartitionOffsets {
    const found = offsets.find((o) => o.partition === partition);
    if (found === undefined)
      throw new MirrorflowError(
        `Cluster "${this.parts.targetAdmin.cluster}": topic "${topic}" has no partition ${partition}, so its offsets cannot be preserved.`,
      );
    return found;
  }

  /**
   * Writes filler records from `from` to `upTo` (tombstones keyed and marked with the filler header, so that a
   * compacted target topic takes them too) to an empty target partition, then deletes them: the
   * partition's log then starts where its source's does, and the first record copied lands at
   * the source's log start offset.
   */
  private async fill(topic: string, partition: number, from: number, upTo: number): Promise<void> {
    const { writer, targetAdmin, logger } = this.parts;
    if (from < upTo) logger.info('Offsets preserved: writing filler records up to the source log start, then deleting them.', { topic, partition, from, upTo });
    const key = Buffer.from(FILLER_HEADER);
    const headers = [{ key: FILLER_HEADER, value: Buffer.from('1') }];
    for (let next = from; next < upTo;) {
      const count = Math.min(FILLER_CHUNK, upTo - next);
      const timestamp = this.parts.now();
      const records: OutboundRecord[] = Array.from({ length: count }, () => ({ topic, partition, timestamp, key, value: null, headers }));
      const offsets = await firstValueFrom(writer.write(records));
      if (offsets[0] !== next)
        throw new MirrorflowError(
          `Cluster "${writer.cluster}": filler records for ${topic}-${partition} landed at offset ${offsets[0]}, not ${next}; something else writes to the partition.`,
        );
      next += count;
    }
    if ((await this.targetOffsets(topic, partition)).earliest < upTo)
      await firstValueFrom(targetAdmin.deleteRecords(topic, partition, upTo), { defaultValue: undefined });
    const after = await this.targetOffsets(topic, partition);
    if (after.earliest !== upTo || after.latest !== upTo)
      throw new MirrorflowError(
        `Cluster "${targetAdmin.cluster}": after filling ${topic}-${partition} to ${upTo} and deleting the fillers, its log spans ${after.earliest} to ${after.latest}.`,
      );
  }
}

/** What makes a record the same copy: its key, value, headers in order (null values kept) and timestamp. */
export function recordDigest(record: Pick<KafkaRecord, 'key' | 'value' | 'headers' | 'timestamp'>): string {
  const hash = createHash('sha256');
  const part = (bytes: Buffer | null): void => {
    const length = Buffer.alloc(4);
    length.writeInt32BE(bytes === null ? -1 : bytes.length);
    hash.update(length);
    if (bytes !== null) hash.update(bytes);
  };
  hash.update(String(record.timestamp));
  part(record.key);
  part(record.value);
  for (const h of record.headers) {
    part(Buffer.from(h.key));
    part(h.value);
  }
  return hash.digest('hex');
}
