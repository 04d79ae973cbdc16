import { ContainerModule } from 'inversify';
import type { FlowConfig } from '../../config';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { SourceAdmin, TargetAdmin, type ClusterAdmin } from '../../core/ports/cluster-admin';
import { ReplicationPolicy, DefaultConfigPropertyFilter, DefaultTopicFilter, shouldReplicateTopic } from '../../policy';
import { topicAfterTransforms } from '../../plugins';
import { FlowStatus } from '../../flow/status/flow-status';
import { TopicConfigSync, TopicConfigSyncOptions } from '../../flow/topics/topic-config-sync';

/** The flow's config property filter: `configs_exclude` and `use_defaults_from` (MM2's DefaultConfigPropertyFilter). */
export function flowConfigFilter(flow: FlowConfig): DefaultConfigPropertyFilter {
  return new DefaultConfigPropertyFilter({ exclude: flow.topic_sync.configs_exclude, useDefaultsFrom: flow.topic_sync.use_defaults_from });
}

/**
 * The periodic topic config sync of MM2's MirrorSourceConnector (`sync.topic.configs.*`), a job
 * of its own beside replication: loaded for an enabled flow with `topic_sync.sync_configs`.
 */
export function configSyncModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<TopicConfigSyncOptions>(TopicConfigSyncOptions)
      .toResolvedValue(
        (sourceAdmin: ClusterAdmin, targetAdmin: ClusterAdmin, policy: ReplicationPolicy, scheduler: Scheduler, logger: Logger, status: FlowStatus) => {
          const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
          const renamed = topicAfterTransforms(flow.transforms, flow);
          return {
            source: flow.source,
            target: flow.target,
            sourceAdmin,
            targetAdmin,
            // Where topic sync created the remote topic: after the flow's rename_topic steps.
            remoteTopic: (topic: string) => renamed(policy.formatRemoteTopic(flow.source, topic)),
            shouldReplicate: (topic: string) =>
              shouldReplicateTopic(topic, { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats }),
            filter: flowConfigFilter(flow),
            intervalMs: flow.topic_sync.configs_interval_ms,
            scheduler,
            logger,
            status: status.configSync,
            outages: status.outages,
          };
        },
        [SourceAdmin, TargetAdmin, ReplicationPolicy, Scheduler, Logger, FlowStatus],
      )
      .inSingletonScope();
    bind(TopicConfigSync).toSelf().inSingletonScope();
  });
}
