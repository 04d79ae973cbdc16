/** Following an offset-syncs topic into a fresh store, the forward flow's or (active-active) the reverse flow's. */
import { defer, type Observable, type SchedulerLike } from '#rxjs';
import { describeError } from '../../core/errors';
import type { Logger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import { retryWithBackoff, type RetryConfig } from '../../core/retry';
import type { OutageStatus } from '../status/outage-status';
import { countCheckpointError, type CheckpointStatus } from './checkpoint-status';
import type { OffsetSyncStore } from './offset-sync-store';

/** How following an offset-syncs topic starts over after it failed. */
const FOLLOW_BACKOFF: RetryConfig = { retries: Number.POSITIVE_INFINITY, initialDelayMs: 1000, maxDelayMs: 30_000, factor: 2, jitter: 0.2 };

export interface FollowOffsetSyncsParts {
  readonly logger: Logger;
  readonly status: CheckpointStatus;
  readonly outages: OutageStatus;
  readonly scheduler: SchedulerLike;
}

/**
 * Follows `topic` into a new store (from `create`), and into another after a backoff when it
 * fails, each failure counted and logged; emits once the store is read to the topic's end.
 */
export function followOffsetSyncs(parts: FollowOffsetSyncsParts, reader: TopicReader, topic: string, create: () => OffsetSyncStore): Observable<void> {
  const { logger, status, outages, scheduler } = parts;
  return defer(() => create().follow(reader, topic)).pipe(
    retryWithBackoff({
      ...FOLLOW_BACKOFF,
      scheduler,
      onRetry: (error, attempt, delayMs) => {
        status.errors++;
        countCheckpointError(outages, error, reader.cluster);
        logger.warn('Reading offset syncs failed; retrying.', { topic, error: describeError(error), attempt, delayMs });
      },
    }),
  );
}
