import type { SchedulerLike } from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import type { FlowStatus } from '../status/flow-status';
import type { OutageTracker } from '../status/outage-status';

/** Every cluster operation of a replication flow retries through outages, each reported on the flow status as its own. */
export interface ReplicationOutages {
  readonly loading: OutageTracker;
  readonly topics: OutageTracker;
  readonly reading: OutageTracker;
  readonly writing: OutageTracker;
  readonly progress: OutageTracker;
  /** On the cluster the offset syncs are written to; undefined for a flow without them. */
  readonly offsetSyncs: OutageTracker | undefined;
  readonly deadLetters: OutageTracker;
}

export interface ReplicationOutagesOf {
  readonly source: string;
  readonly target: string;
  /** Where the offset syncs go; undefined for a flow without them. */
  readonly offsetSyncsCluster: string | undefined;
  readonly status: FlowStatus;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
}

/** The replication flow's outage trackers. */
export function replicationOutages({ source, target, offsetSyncsCluster, status, logger, scheduler }: ReplicationOutagesOf): ReplicationOutages {
  const track = (cluster: string, operation: string): OutageTracker => status.outages.tracker(cluster, operation, logger, () => scheduler.now());
  return {
    loading: track(target, 'loading progress'),
    topics: track(source, 'syncing topics'),
    reading: track(source, 'reading records'),
    writing: track(target, 'writing records'),
    progress: track(target, 'storing progress'),
    offsetSyncs: offsetSyncsCluster === undefined ? undefined : track(offsetSyncsCluster, 'writing offset syncs'),
    deadLetters: track(target, 'creating the dead-letter topic'),
  };
}
