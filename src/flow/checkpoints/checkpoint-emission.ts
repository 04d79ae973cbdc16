import { type Observable, type SchedulerLike, EMPTY, concatMap, endWith, from, ignoreElements, map, of } from '#rxjs';
import type { GroupOffset } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import type { OutboundRecord, RecordWriter } from '../../core/ports/record-writer';
import { describeError } from '../../core/errors';
import { retryWithBackoff } from '../../core/retry';
import { type Checkpoint, encodeCheckpointKey, encodeCheckpointValue } from '../../formats';
import type { OutageStatus, OutageTracker } from '../status/outage-status';
import { checkpointStepFailed, type CheckpointStatus } from './checkpoint-status';
import type { CheckpointStore } from './checkpoint-store';
import { translateOffsets, type CheckpointTranslation } from './checkpoint-translation';

/** Checkpoint records per produce request. */
const WRITE_CHUNK = 2000;

/** A pass's translation, and the checkpoints written so far, which decide what is emitted. */
export interface CheckpointContext extends CheckpointTranslation {
  readonly store: CheckpointStore;
}

/**
 * MM2's `checkpointsForGroup`: the checkpoints a group's committed source offsets give now —
 * translated (checkpoint-translation.ts), and emitted only when more recent than the last one
 * written (`CheckpointStore.isMoreRecent`). When a checkpoint is emitted is decided here alone.
 */
export function checkpointsForGroup(group: string, upstream: readonly GroupOffset[], ctx: CheckpointContext): Checkpoint[] {
  return translateOffsets(group, upstream, ctx).filter((cp) => ctx.store.isMoreRecent(cp));
}

/** One group's part of a pass. */
export interface GroupCheckpoints {
  readonly group: string;
  /** When the group's source offsets were read: the records' timestamp (as MM2). */
  readonly timestamp: number;
  /** What `checkpointsForGroup` emits for it. */
  readonly checkpoints: readonly Checkpoint[];
  /** `groupTranslationLag` of the offsets read; undefined when no partition translates. */
  readonly translationLag: number | undefined;
}

export interface CheckpointEmissionParts {
  readonly writer: RecordWriter;
  /** `<source>.checkpoints.internal`: partition 0 takes every checkpoint. */
  readonly checkpointsTopic: string;
  /** The cluster the checkpoints go to, for failures no outage tracker counts. */
  readonly target: string;
  /** The flow's outage of writing checkpoints. */
  readonly outage: OutageTracker;
  readonly outages: OutageStatus;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly status: CheckpointStatus;
}

/**
 * Writes a pass's checkpoints, byte-identical to MM2's, to partition 0 of the checkpoints topic;
 * only acknowledged checkpoints count as emitted (the store and the status learn them then), so
 * a failed write is retried by the next pass, which reports it and never ends the flow.
 */
export class CheckpointEmission {
  constructor(private readonly parts: CheckpointEmissionParts) {}

  /** A pass of the groups read (`read`, of the checkpointed `groups`), started at `startedAt`; its failure goes to `failed`. */
  emit(read: readonly GroupCheckpoints[], store: CheckpointStore, startedAt: number, groups: readonly string[]): Observable<void> {
    const { scheduler, logger, status, outage } = this.parts;
    const results = read.filter((g) => g.checkpoints.length > 0);
    return this.write(results).pipe(
      map(() => {
        let written = 0;
        let oldest = Number.POSITIVE_INFINITY;
        for (const r of results) {
          store.update(r.checkpoints);
          written += r.checkpoints.length;
          oldest = Math.min(oldest, r.timestamp);
        }
        const now = scheduler.now();
        for (const r of results)
          status.recordLatencies(
            r.group,
            r.checkpoints.map((c) => c.topicPartition),
            r.timestamp,
            now,
          );
        status.recordPass(written, startedAt, now, written > 0 ? Math.max(0, now - oldest) : undefined);
        status.recordTranslationLag(read, groups);
        if (written > 0) logger.debug('Checkpoints written.', { checkpoints: written, groups: results.length });
        outage.succeeded();
      }),
    );
  }

  /** A pass that failed (its write, mostly): reported, and the next pass tries again. */
  failed(error: unknown): Observable<never> {
    const { outages, target, logger, status, outage } = this.parts;
    checkpointStepFailed(error, { status, outage, outages, cluster: target, logger, warning: 'Writing checkpoints failed; will retry at the next interval.' });
    return EMPTY;
  }

  private write(results: readonly GroupCheckpoints[]): Observable<void> {
    const { writer, checkpointsTopic, scheduler, logger } = this.parts;
    const records: OutboundRecord[] = [];
    for (const r of results) {
      for (const cp of r.checkpoints) {
        records.push({
          topic: checkpointsTopic,
          partition: 0,
          timestamp: r.timestamp,
          key: encodeCheckpointKey(cp),
          value: encodeCheckpointValue(cp),
          headers: [],
        });
      }
    }
    if (records.length === 0) return of(undefined);
    const chunks: OutboundRecord[][] = [];
    for (let i = 0; i < records.length; i += WRITE_CHUNK) chunks.push(records.slice(i, i + WRITE_CHUNK));
    return from(chunks).pipe(
      concatMap((chunk) =>
        writer.write(chunk).pipe(
          retryWithBackoff({
            retries: 3,
            initialDelayMs: 500,
            maxDelayMs: 5000,
            factor: 2,
            jitter: 0.2,
            scheduler,
            onRetry: (error, attempt, delayMs) => logger.warn('Writing checkpoints failed; retrying.', { error: describeError(error), attempt, delayMs }),
          }),
        ),
      ),
      ignoreElements(),
      endWith(undefined),
    );
  }
}
