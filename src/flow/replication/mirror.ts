import { isObservable, map } from '#rxjs';
import type { WritePath } from '../../core/ports/write-path';
import {
  sourceBatchFirstOffset,
  sourceBatchRecordCount,
  type DecodedFlowBatch,
  type DecodedSourceBatch,
  type FlowBatch,
  type MirrorRecord,
  type RecordFailure,
  type SourceBatch,
} from '../../core/record';
import { FlowStatus } from '../status/flow-status';
import type { Answer } from '../operators/step-in-order';
import type { LogLifetimes } from './log-lifetimes';
import type { RegistrySchemaFetch } from './registry-schema-fetch';
import type { RecordProvenance } from './record-provenance';
import type { RemoteNames } from './remote-names';
import type { ReplicatedPartitions } from './replicated-partitions';
import type { SchemaIdTranslation } from './schema-id-translation';

export interface MirrorParts {
  readonly names: Pick<RemoteNames, 'remote'>;
  /** Moves each partition's position past what was fetched. */
  readonly partitions: Pick<ReplicatedPartitions, 'fetched'>;
  readonly lifetimes: Pick<LogLifetimes, 'stamp' | 'carry'>;
  readonly writePath: Pick<WritePath, 'fetched'>;
  /** The flow's transforms; the identity function when there are none. Failures go to the array given. */
  readonly transform: (records: readonly MirrorRecord[], failures?: RecordFailure[]) => readonly MirrorRecord[];
  /**
   * A record a transform throws on: `none` ends its batch just before it (the flow stops there);
   * `all` sends it to the dead letters on its batch.
   */
  readonly errorTolerance: 'none' | 'all';
  /** The registry converters' writer schemas, read before the transforms run. */
  readonly writerSchemas?: RegistrySchemaFetch;
  /** `schema_registry`: the records' schema ids moved to the target's registry, after the transforms. */
  readonly schemaIds?: SchemaIdTranslation;
  /** `provenance.enabled`: loops dropped before the transforms, the header stamped (and diamonds dropped) after them. */
  readonly provenance?: RecordProvenance;
  readonly status: FlowStatus;
}

/**
 * A fetched batch as the target gets it: its records under their remote topic (the replication
 * policy's name), through the transforms with their failures per errors.tolerance, or its record
 * batches forwarded whole; before the transforms the writer schemas of its records, after them
 * its schema ids translated. Each batch is stamped with the lifetime of the log it was fetched
 * from (log-lifetimes.ts). Work per record happens only in the transforms' loop; the rest is once
 * per batch.
 */
export class Mirror {
  /** Before `mirror`, for a flow with registry converters. */
  readonly withWriterSchemas: ((batch: SourceBatch) => Answer<SourceBatch>) | undefined;
  /** After `mirror`, for a flow with a schema registry. */
  readonly translateSchemaIds: ((batch: FlowBatch) => Answer<FlowBatch>) | undefined;

  constructor(private readonly parts: MirrorParts) {
    const { writerSchemas, schemaIds } = parts;
    this.withWriterSchemas = writerSchemas && ((batch) => writerSchemas.prepare(batch));
    this.translateSchemaIds = schemaIds && ((batch) => this.translated(batch, schemaIds));
  }

  mirror(batch: SourceBatch): FlowBatch {
    const { names, writePath, partitions, lifetimes, status } = this.parts;
    const remote = names.remote(batch.topic);
    writePath.fetched(batch, remote);
    const lifetime = partitions.fetched(batch);
    const fetchedAt = Date.now();
    status.recordFetch(batch, sourceBatchFirstOffset(batch), batch.highWatermark, fetchedAt, FlowStatus.firstTimestamp(batch));
    status.recordAge(batch, fetchedAt);
    switch (batch.kind) {
      case 'records':
        return lifetimes.stamp(lifetime, this.transformed(batch, remote));
      case 'batches':
        // Whole record batches: the source only forwards them to flows without transforms.
        return lifetimes.stamp(lifetime, {
          kind: 'batches',
          source: { topic: batch.topic, partition: batch.partition },
          recordBatches: batch.recordBatches.map((b) => ({ topic: remote, partition: batch.partition, batch: b })),
          nextOffset: batch.nextOffset,
          highWatermark: batch.highWatermark,
          bytes: batch.bytes,
          sourceRecords: sourceBatchRecordCount(batch),
        });
    }
  }

  /** Decoded records under their remote topic, through the transforms; failures per errors.tolerance. */
  private transformed(batch: DecodedSourceBatch, remote: string): DecodedFlowBatch {
    const records: MirrorRecord[] = new Array<MirrorRecord>(batch.records.length);
    for (let i = 0; i < batch.records.length; i++) {
      const r = batch.records[i]!;
      records[i] = {
        source: { topic: r.topic, partition: r.partition, offset: r.offset },
        topic: remote,
        partition: r.partition,
        timestamp: r.timestamp,
        key: r.key,
        value: r.value,
        headers: r.headers,
      };
    }
    const { provenance } = this.parts;
    const admitted = provenance?.admit(records);
    const failures: RecordFailure[] = [];
    const transformed = this.parts.transform(admitted?.records ?? records, failures);
    const stamped = admitted === undefined ? undefined : provenance!.stamp(admitted, transformed);
    const written = stamped?.records ?? transformed;
    const flowBatch: DecodedFlowBatch = {
      kind: 'records',
      source: { topic: batch.topic, partition: batch.partition },
      records: written,
      nextOffset: batch.nextOffset,
      highWatermark: batch.highWatermark,
      bytes: batch.bytes,
      sourceRecords: batch.records.length,
      ...(stamped === undefined ? {} : { provenance: { loops: admitted!.loops, duplicates: stamped.duplicates, unchecked: stamped.unchecked } }),
    };
    if (failures.length === 0) return flowBatch;
    if (this.parts.errorTolerance === 'all') return { ...flowBatch, deadLetters: failures };
    // Tolerance none: the batch ends just before the first failing record.
    const failed = failures[0]!;
    const at = failed.record.source.offset;
    let kept = 0;
    while (kept < written.length && written[kept]!.source.offset < at) kept++;
    let read = 0;
    while (read < records.length && records[read]!.source.offset < at) read++;
    const ended = { ...flowBatch, records: written.slice(0, kept), nextOffset: at, sourceRecords: read, failure: failed.error };
    if (admitted === undefined || stamped === undefined) return ended;
    // Only what comes before the failure is committed, so only its skips count.
    const before = (list: readonly MirrorRecord[]): number => {
      let n = 0;
      while (n < list.length && list[n]!.source.offset < at) n++;
      return n;
    };
    const skips = { loops: read - before(admitted.records), duplicates: before(transformed) - kept, unchecked: Math.min(stamped.unchecked, kept) };
    return { ...ended, provenance: skips };
  }

  /** The batch with its records' schema ids moved (schema-id-translation.ts), keeping its stamp; the registries are asked only for ids new to the flow. */
  private translated(batch: FlowBatch, schemaIds: SchemaIdTranslation): Answer<FlowBatch> {
    // Forwarding is off for such a flow; a batch that failed before (tolerance none) still goes, up to its failure.
    if (batch.kind !== 'records') return batch;
    const { lifetimes } = this.parts;
    const translated = schemaIds.translate(batch);
    return isObservable(translated) ? translated.pipe(map((b) => lifetimes.carry(batch, b))) : lifetimes.carry(batch, translated);
  }
}
