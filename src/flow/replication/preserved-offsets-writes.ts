import { type Observable, EMPTY, ignoreElements } from '#rxjs';
import type { Assignment, PartitionStart } from '../../core/ports/write-path';
import type { FlowBatch, SourceBatch } from '../../core/record';
import { AtLeastOnceWrites, type AtLeastOnceWritesParts } from './at-least-once-writes';
import type { OffsetPreservation } from './offset-preservation';
import type { RemoteNames } from './remote-names';

export interface PreservedOffsetsWritesParts extends AtLeastOnceWritesParts {
  readonly preservation: OffsetPreservation;
  readonly names: Pick<RemoteNames, 'refused' | 'remote'>;
}

/**
 * The write path of `offsets: preserve`: at-least-once (config validation refuses exactly-once
 * with it), with OffsetPreservation (offset-preservation.ts) keeping each partition at its
 * source's offsets while that holds. It decides where a partition starts, checks each fetched
 * batch for offsets without records and each acknowledgement against the source offset, and
 * stores its markers before each write and before the progress that passes them.
 */
export class PreservedOffsetsWrites extends AtLeastOnceWrites {
  constructor(protected override readonly parts: PreservedOffsetsWritesParts) {
    super(parts);
  }

  override assigning(_assignment: Assignment): Observable<never> {
    // Other processes may have written markers: read again at the next start.
    this.parts.preservation.reload();
    return EMPTY;
  }

  override startAt(start: PartitionStart): Promise<number> {
    return this.parts.preservation.start(start.tp, start.remote, start.progress, start.sourceLog);
  }

  override fetched(batch: SourceBatch, remote: string): void {
    this.parts.preservation.inspect(batch, remote);
  }

  override acknowledged(batch: FlowBatch, offsets: Float64Array, from: number): void {
    const { preservation, names } = this.parts;
    if (preservation.preserved(batch.source)) preservation.verify(batch, names.remote(batch.source.topic), offsets, from);
  }

  /** A partition that fell back is marked so before the next write and before the progress that passes it. */
  protected override beforeWrite(): Observable<never> {
    return this.parts.preservation.flush().pipe(ignoreElements());
  }
}
