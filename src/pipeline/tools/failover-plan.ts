/**
 * What a failover plans and does, for a consumer group (failover.ts) and a share group
 * (share-failover.ts): its plan per partition, and the rule that decides each partition.
 */
import type { GroupOffset, GroupState, TopicConfigChange } from '../../core/ports/cluster-admin';
import type { DirectionRequest } from './pipeline-tools';
import type { ChangeStep } from './change-steps';

export interface FailoverRequest extends DirectionRequest {
  readonly group: string;
  /** Move target offsets backwards too, when the checkpoint is behind them. */
  readonly force: boolean;
  readonly timeoutMs?: number;
}

/**
 * - `commit`: the target has no offset, or one behind the translated offset.
 * - `unchanged`: the target already has exactly the translated offset.
 * - `keep-target`: the target is ahead of the translated offset; kept (use force to rewind).
 * - `rewind`: the target is ahead and force was given: it is moved back.
 * - `missing-partition`: the checkpoint names a partition the target does not have.
 * - `no-checkpoint`: the group has a committed offset on the source but no checkpoint for it.
 * - `not-translated`: a share group's start offset on the source that no offset sync translates.
 *
 * For a share group, "offset" is its share-partition start offset and `commit` sets it.
 */
export type FailoverAction = 'commit' | 'unchanged' | 'keep-target' | 'rewind' | 'missing-partition' | 'no-checkpoint' | 'not-translated';

export interface FailoverPartition {
  /** Topic-partition on the target (for `no-checkpoint`, the name it would have there). */
  readonly topic: string;
  readonly partition: number;
  /** The group's committed offset on the source now, when the source could be read. */
  readonly sourceOffset?: number;
  /** The group's source offset the newest checkpoint was taken at. */
  readonly checkpointOffset?: number;
  /** When that checkpoint was taken (epoch ms). */
  readonly checkpointedAt?: number;
  /** The offset on the target the checkpoint translates to. */
  readonly translatedOffset?: number;
  /** The group's committed offset on the target before the failover. */
  readonly targetOffset?: number;
  readonly metadata: string;
  readonly action: FailoverAction;
  /**
   * The flow has `offsets: preserve` and this partition holds its source's offsets: the group's
   * source offset is taken as it is (up to the target partition's end), not the checkpoint's.
   */
  readonly preserved?: true;
}

export interface FailoverPlan {
  readonly group: string;
  /** A consumer group (translated by the checkpoints) or a share group (by the offset syncs, share-failover.ts). */
  readonly groupType: 'consumer' | 'share';
  /** A share group's configs set on the source group that the target group gets (share-group-configs.ts). */
  readonly groupConfigs?: readonly TopicConfigChange[];
  readonly source: string;
  readonly target: string;
  readonly checkpointsTopic: string;
  readonly force: boolean;
  readonly targetState: GroupState;
  /** Undefined when the source could not be reached (the usual case in a disaster). */
  readonly sourceState?: GroupState;
  readonly partitions: readonly FailoverPartition[];
  /** Things the operator should know; the failover can still proceed. */
  readonly warnings: readonly string[];
  /** Why the failover cannot proceed, if it cannot. */
  readonly refusal?: string;
  /** What `executeFailover` does, in order (nothing when refused). */
  readonly steps: readonly ChangeStep[];
}

export interface FailoverResult {
  /** Offsets written to the target. */
  readonly committed: readonly GroupOffset[];
}

/** Whether (and how) one partition's target offset changes. */
export function decideAction(translated: number, current: number | undefined, force: boolean): FailoverAction {
  if (current === undefined || current < translated) return 'commit';
  if (current === translated) return 'unchanged';
  return force ? 'rewind' : 'keep-target';
}

export function isWritten(action: FailoverAction): boolean {
  return action === 'commit' || action === 'rewind';
}
