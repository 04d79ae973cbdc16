import type { Container } from '#inversify';
import { type Observable, EMPTY, ReplaySubject, defer, finalize, merge } from '#rxjs';
import type { FlowConfig, PipelineConfig } from '../config';
import type { KafkaClients } from '../core/ports/kafka-clients';
import type { Logger } from '../core/ports/logger';
import { whileElected } from '../flow/elected-jobs';
import { flowContainer } from './wiring/flow-container';
import { FlowJobs } from './wiring/flow-jobs';
import { resolve } from './wiring/bind-parts';
import { electionTopicReplicationFactor, flowGroupId } from './flow-names';
import { groupTimings } from './wiring/settings/client-settings';

/** A flow the pipeline runs: its container, what it runs (FlowJobs) and how it is stopped. */
export interface RunningFlow extends FlowJobs {
  readonly pipeline: string;
  readonly config: FlowConfig;
  readonly container: Container;
  /** Stops this flow alone (a reload removed or changed it); the pipeline's stop stops every flow. */
  readonly stop$: ReplaySubject<void>;
  /** Resolves once the flow has ended: drained, progress stored. */
  readonly ended: Promise<void>;
  readonly markEnded: () => void;
}

/**
 * One flow's container and parts, the composition of a flow: everything it runs is resolved here,
 * once (FlowJobs), and nothing is looked up while it runs. Plugin problems surface here, before
 * any connection.
 */
export function buildRunningFlow(pipeline: Container, pipelineName: string, flow: FlowConfig, pipelineLogger: Logger): RunningFlow {
  const container = flowContainer(pipeline, flow, pipelineLogger);
  const jobs = resolve(container, FlowJobs);
  const { status, logger } = jobs;
  // Nothing would ever move a flow that does not replicate out of `starting`.
  if (!flow.enabled) status.state = 'disabled';
  // MM2 rejects checkpoints without offset syncs to translate with; config validation should too.
  if (flow.enabled && flow.checkpoints.enabled && !flow.offset_syncs.enabled) {
    logger.warn('Checkpoints need offset syncs, which this flow does not write; it writes no checkpoints.', { flow: flow.name });
  }
  let markEnded = (): void => {};
  const ended = new Promise<void>((done) => (markEnded = done));
  return {
    ...jobs,
    pipeline: pipelineName,
    config: flow,
    container,
    stop$: new ReplaySubject<void>(1),
    ended,
    markEnded,
  };
}

/**
 * One flow as docs/architecture.md draws it: replication (with its topic sync), checkpoints,
 * heartbeats, topic config sync and ACL sync, merged. Every process of the pipeline replicates its
 * share of the partitions, and verifies them when `verify.enabled`; the once-per-flow jobs run on the one elected by the flow's election
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
            topic: flow.election.topic,
            replicationFactor: electionTopicReplicationFactor(config),
            group: groupTimings(config),
          },
          onElected: (elected) => (status.elected = elected),
          scheduler: flow.election.scheduler,
          logger: flow.logger,
        },
        jobs,
        stop$,
      );
  const campaign$ = defer(() => {
    status.campaigning = true;
    return elected$;
  }).pipe(finalize(() => (status.campaigning = false)));
  return merge(flow.replication?.run(stop$) ?? EMPTY, flow.verify?.run(stop$) ?? EMPTY, campaign$);
}

/** As MM2's driver: a pair whose flow is off still gets its heartbeats, unless those are off too. */
export function runningFlows(config: PipelineConfig): FlowConfig[] {
  return config.flows.filter((f) => f.enabled || f.heartbeats.enabled);
}
