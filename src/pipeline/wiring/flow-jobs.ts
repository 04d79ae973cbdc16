import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { token } from '../../core/ports/token';
import { ReplicationPolicy } from '../../policy';
import { TransformChain } from '../../plugins';
import { FlowStatus } from '../../flow/status/flow-status';
import { ReplicationFlow } from '../../flow/replication/replication-flow';
import { CheckpointFlow } from '../../flow/checkpoints/checkpoint-flow';
import { TopicConfigSync } from '../../flow/topics/topic-config-sync';
import { HeartbeatFlow } from '../../flow/heartbeats/heartbeat-flow';
import { AclSync } from '../../flow/topics/acl-sync';
import { MigrationWatch } from '../../flow/migration-state';
import { VerifyJob } from '../../flow/verify/verify-job';
import { bindParts, optional } from './bind-parts';

/**
 * Everything one flow runs, resolved at once when the flow is built (src/pipeline/run-flow.ts),
 * so that nothing is looked up in a container while it runs. A job the flow's config leaves
 * off is undefined.
 */
export interface FlowJobs {
  /** Undefined for a flow that is not enabled but still emits heartbeats (MM2's heartbeat-only herder). */
  readonly replication: ReplicationFlow | undefined;
  /** The periodic topic config sync, when the flow replicates with `topic_sync.sync_configs`. */
  readonly configSync: TopicConfigSync | undefined;
  readonly checkpoints: CheckpointFlow | undefined;
  readonly heartbeats: HeartbeatFlow | undefined;
  readonly acls: AclSync | undefined;
  readonly migration: MigrationWatch | undefined;
  /** Continuous verification, when the flow replicates with `verify.enabled`: runs on every process, beside replication. */
  readonly verify: VerifyJob | undefined;
  readonly status: FlowStatus;
  /** The flow's own logger. */
  readonly logger: Logger;
  /** What the election of the process that runs the once-per-flow jobs uses: it campaigns on the heartbeats topic. */
  readonly election: { readonly topic: string; readonly scheduler: Scheduler };
}
export const FlowJobs = token<FlowJobs>('FlowJobs');

/** Binds FlowJobs from the jobs the other modules of the flow's container bound. */
export const flowJobsModule = new ContainerModule(({ bind }) => {
  bindParts(
    bind,
    FlowJobs,
    {
      // First: a plugin problem surfaces before any part that makes a client is built.
      transforms: optional(TransformChain),
      replication: optional(ReplicationFlow),
      configSync: optional(TopicConfigSync),
      checkpoints: optional(CheckpointFlow),
      heartbeats: optional(HeartbeatFlow),
      acls: optional(AclSync),
      migration: optional(MigrationWatch),
      verify: optional(VerifyJob),
      status: FlowStatus,
      logger: Logger,
      policy: ReplicationPolicy,
      scheduler: Scheduler,
    },
    ({ transforms: _built, policy, scheduler, ...jobs }) => ({ ...jobs, election: { topic: policy.heartbeatsTopic(), scheduler } }),
  );
});
