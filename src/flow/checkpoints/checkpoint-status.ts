import type { Logger } from '../../core/ports/logger';
import { describeError, errorKind, isRetriable } from '../../core/errors';
import type { OutageStatus, OutageTracker } from '../status/outage-status';
import type { GroupSyncStates } from './group-sync-states';
import type { TopicPartition } from '../../core/record';
import { SampledStat } from '../status/sampled-stat';
/**
 * Live counters of one flow's checkpoints and consumer-group offset sync, read through
 * `FlowStatus.checkpoints` (tests, tools). Updated once per
 * pass, never per record.
 */
export class CheckpointStatus {
  /**
   * `retrying`: the flow failed retriably (a cluster down) and starts over after a backoff;
   * `failed`: it failed otherwise, and also starts over, less often. Neither stops replication.
   */
  state: 'disabled' | 'starting' | 'loading' | 'running' | 'retrying' | 'failed' | 'stopped' = 'disabled';
  /** Why the flow last failed, while it is `retrying` or `failed`. */
  lastError: string | undefined;
  /** Consumer groups being checkpointed (found on the source by the last group refresh). */
  groups = 0;
  passes = 0;
  /** Checkpoint records written and acknowledged. */
  checkpointsWritten = 0;
  /** Epoch ms of the last completed pass. */
  lastPassAt: number | undefined;
  lastPassDurationMs: number | undefined;
  /**
   * MM2's `checkpoint-latency-ms` for the last pass: from reading a group's source offsets (the
   * checkpoint's record timestamp) to the target's acknowledgement of its checkpoints; the
   * largest over the pass's groups.
   */
  lastCheckpointLatencyMs: number | undefined;
  /** Passes, group refreshes and group syncs that failed (each is retried at its next interval). */
  errors = 0;
  /** Offset syncs loaded and followed: partitions known, malformed records skipped. */
  offsetSyncPartitions = 0;
  readonly groupSync = new GroupSyncStatus();
  /** Every consumer group's sync state with its reason, once the checkpoint flow is made (group-sync-states.ts). */
  groupStates: GroupSyncStates | undefined;
  /**
   * Per group, its translation lag at the last pass whose checkpoints were acknowledged
   * (`groupTranslationLag`, records); groups no partition of which translates are absent.
   */
  translationLag: ReadonlyMap<string, number> = new Map();

  /**
   * The translation lag of the groups a pass read (`read`); a group of `groups` whose offsets
   * could not be read this pass keeps its last value, a group no longer checkpointed is dropped.
   */
  recordTranslationLag(read: readonly { readonly group: string; readonly translationLag: number | undefined }[], groups: readonly string[]): void {
    const next = new Map<string, number>();
    const fresh = new Map(read.map((g) => [g.group, g.translationLag]));
    for (const group of groups) {
      const lag = fresh.has(group) ? fresh.get(group) : this.translationLag.get(group);
      if (lag !== undefined) next.set(group, lag);
    }
    this.translationLag = next;
  }

  /**
   * MM2's checkpoint-latency-ms (MirrorCheckpointMetrics) per group and remote topic-partition:
   * from reading the group's offsets (the checkpoint's timestamp) to its acknowledgement.
   */
  readonly latencies = new Map<string, { readonly group: string; readonly topic: string; readonly partition: number; readonly stat: SampledStat }>();

  /** The checkpoints of `group` for `partitions` (remote), read at `readAt`, acknowledged at `now`. */
  recordLatencies(group: string, partitions: readonly TopicPartition[], readAt: number, now: number): void {
    const latency = Math.max(0, now - readAt);
    for (const tp of partitions) {
      const key = `${group}\u0000${tp.topic}\u0000${tp.partition}`;
      let entry = this.latencies.get(key);
      if (entry === undefined) {
        entry = { group, topic: tp.topic, partition: tp.partition, stat: new SampledStat() };
        this.latencies.set(key, entry);
      }
      entry.stat.record(now, 1, latency, latency, latency, latency);
    }
  }

  /** Called after a pass whose checkpoints were acknowledged. */
  recordPass(written: number, startedAt: number, now: number, latencyMs: number | undefined): void {
    this.passes++;
    this.checkpointsWritten += written;
    this.lastPassAt = now;
    this.lastPassDurationMs = Math.max(0, now - startedAt);
    if (latencyMs !== undefined) this.lastCheckpointLatencyMs = latencyMs;
  }
}

/**
 * Group offset sync into the target (`checkpoints.sync_group_offsets`): consumer groups' offsets
 * committed, and share groups' start offsets altered, counted together.
 */
export class GroupSyncStatus {
  enabled = false;
  passes = 0;
  /** Groups whose offsets were committed (share groups: start offsets altered) on the target. */
  groupsSynced = 0;
  /** Partition offsets committed, and share-partition start offsets altered. */
  offsetsCommitted = 0;
  /**
   * Times a group was left alone because it had active members on the target (MM2 only logs
   * this, which is why "sync.group.offsets.enabled doesn't work" is a common report).
   */
  skippedActive = 0;
  /** The consumer groups skipped as active in the last pass. */
  activeConsumerGroups: readonly string[] = [];
  /** The share groups skipped as active in the last pass (share-group-offset-sync.ts). */
  activeShareGroups: readonly string[] = [];

  /** The groups skipped as active in the last pass, consumer groups then share groups. */
  get activeGroups(): readonly string[] {
    return this.activeShareGroups.length === 0 ? this.activeConsumerGroups : [...this.activeConsumerGroups, ...this.activeShareGroups];
  }
  errors = 0;
}

/** A checkpoint failure no outage tracker counts: by its kind, `checkpoint-failed` when it has no other. */
export function countCheckpointError(outages: OutageStatus, error: unknown, cluster: string): void {
  const kind = errorKind(error);
  outages.errors.record(error, cluster, kind === 'other' ? 'checkpoint-failed' : kind);
}

/** Where a checkpoint step that failed is reported. */
export interface CheckpointStep {
  readonly status: CheckpointStatus;
  /** The step's outage, when retrying can help. */
  readonly outage: OutageTracker;
  readonly outages: OutageStatus;
  /** The cluster the step works on. */
  readonly cluster: string;
  readonly logger: Logger;
  /** The warning otherwise, a constant sentence. */
  readonly warning: string;
}

/**
 * A checkpoint step failed and is tried again at its next tick: counted on the status, and an
 * outage when retrying can help; otherwise counted by kind and logged as a warning.
 */
export function checkpointStepFailed(error: unknown, step: CheckpointStep): void {
  step.status.errors++;
  if (isRetriable(error)) step.outage.failed(error);
  else {
    countCheckpointError(step.outages, error, step.cluster);
    step.logger.warn(step.warning, { error: describeError(error) });
  }
}
