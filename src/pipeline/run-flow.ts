import { Container } from 'inversify';
import { type Observable, EMPTY, ReplaySubject, defer, finalize, merge } from 'rxjs';
import type { FlowConfig, PipelineConfig } from '../config';
import { KafkaClients } from '../core/ports/kafka-clients';
import { Logger } from '../core/ports/logger';
import { Scheduler } from '../core/ports/scheduler';
import { TransformChain } from '../plugins';
import { FlowStatus } from '../flow/status/flow-status';
import { ReplicationFlow } from '../flow/replication/replication-flow';
import { CheckpointFlow } from '../flow/checkpoints/checkpoint-flow';
import { TopicConfigSync } from '../flow/topics/topic-config-sync';
import { HeartbeatFlow } from '../flow/heartbeats/heartbeat-flow';
import { AclSync } from '../flow/topics/acl-sync';
import { whileElected } from '../flow/elected-jobs';
import { ReplicationPolicy } from '../policy';
import { flowContainer } from './wiring/flow-container';
import { MigrationWatch } from './flow-migration';
import { electionTopicReplicationFactor, flowGroupId } from './flow-names';

/** A flow the pipeline runs: its container, its parts and how it is stopped. */
export interface RunningFlow {
  readonly pipeline: string;
  readonly config: FlowConfig;
  readonly container: Container;
  /** Undefined for a flow that is not enabled but still emits heartbeats (MM2's heartbeat-only herder). */
  readonly flow: ReplicationFlow | undefined;
  /** The periodic topic config sync, when the flow replicates with `topic_sync.sync_configs`. */
  readonly configSync: TopicConfigSync | undefined;
  readonly checkpoints: CheckpointFlow | undefined;
  readonly heartbeats: HeartbeatFlow | undefined;
  readonly acls: AclSync | undefined;
  readonly migration: MigrationWatch | undefined;
  readonly status: FlowStatus;
  /** Stops this flow alone (a reload removed or changed it); the pipeline's stop stops every flow. */
  readonly stop$: ReplaySubject<void>;
  /** Resolves once the flow has ended: drained, progress stored. */
  readonly ended: Promise<void>;
  readonly markEnded: () => void;
}

/** One flow's container and parts; plugin problems surface here, before any connection. */
export function buildRunningFlow(pipeline: Container, pipelineName: string, flow: FlowConfig, pipelineLogger: Logger): RunningFlow {
  const container = flowContainer(pipeline, flow, pipelineLogger);
  if (flow.enabled) container.get(TransformChain);
  const status = container.get(FlowStatus);
  // Nothing would ever move a flow that does not replicate out of `starting`.
  if (!flow.enabled) status.state = 'disabled';
  // MM2 rejects checkpoints without offset syncs to translate with; config validation should too.
  if (flow.enabled && flow.checkpoints.enabled && !flow.offset_syncs.enabled) {
    container.get<Logger>(Logger).warn('Checkpoints need offset syncs, which this flow does not write; it writes no checkpoints.', { flow: flow.name });
  }
  let markEnded = (): void => {};
  const ended = new Promise<void>((resolve) => (markEnded = resolve));
  return {
    pipeline: pipelineName,
    config: flow,
    container,
    flow: flow.enabled ? container.get(ReplicationFlow) : undefined,
    configSync: container.isBound(TopicConfigSync) ? container.get(TopicConfigSync) : undefined,
    checkpoints: container.isBound(CheckpointFlow) ? container.get(CheckpointFlow) : undefined,
    heartbeats: container.isBound(HeartbeatFlow) ? container.get(HeartbeatFlow) : undefined,
    acls: container.isBound(AclSync) ? container.get(AclSync) : undefined,
    migration: container.isBound(MigrationWatch) ? container.get(MigrationWatch) : undefined,
    status,
    stop$: new ReplaySubject<void>(1),
    ended,
    markEnded,
  };
}

/**
 * One flow as docs/architecture.md draws it: replication (with its topic sync), checkpoints,
 * heartbeats, topic config sync and ACL sync, merged. Every process of the pipeline replicates its
 * share of the partitions; the once-per-flow jobs run on the one elected by the flow's election
 * group on the target.
 */
export function runFlow(flow: RunningFlow, stop$: Observable<void>, clients: KafkaClients): Observable<never> {
  const { config, status } = flow;
  const { checkpoints, heartbeats, configSync, acls } = flow;
  const jobs = (end$: Observable<void>): Observable<never> =>
    merge(checkpoints?.run(end$) ?? EMPTY, heartbeats?.run(end$) ?? EMPTY, configSync?.run(end$) ?? EMPTY, acls?.run(end$) ?? EMPTY);
  const elected$ = [checkpoints, heartbeats, configSync, acls].every((job) => job === undefined)
    ? EMPTY
    : whileElected(
        {
          election: clients.election?.(config.target),
          campaign: {
            groupId: `${flowGroupId(flow.pipeline, config)}.elected`,
            topic: flow.container.get<ReplicationPolicy>(ReplicationPolicy).heartbeatsTopic(),
            replicationFactor: electionTopicReplicationFactor(config),
          },
          onElected: (elected) => (status.elected = elected),
          scheduler: flow.container.get<Scheduler>(Scheduler),
          logger: flow.container.get<Logger>(Logger),
        },
        jobs,
        stop$,
      );
  const campaign$ = defer(() => {
    status.campaigning = true;
    return elected$;
  }).pipe(finalize(() => (status.campaigning = false)));
  return merge(flow.flow?.run(stop$) ?? EMPTY, campaign$);
}

/** As MM2's driver: a pair whose flow is off still gets its heartbeats, unless those are off too. */
export function runningFlows(config: PipelineConfig): FlowConfig[] {
  return config.flows.filter((f) => f.enabled || f.heartbeats.enabled);
}
