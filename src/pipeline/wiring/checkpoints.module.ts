import { ContainerModule } from 'inversify';
import type { FlowConfig, PipelineConfig } from '../../config';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { OffsetSyncsAdmin, SourceAdmin, TargetAdmin, type ClusterAdmin } from '../../core/ports/cluster-admin';
import { CheckpointsReader, OffsetSyncsReader, type TopicReader } from '../../core/ports/record-source';
import { CheckpointsWriter, type RecordWriter } from '../../core/ports/record-writer';
import { ReplicationPolicy, DefaultGroupFilter, DefaultTopicFilter } from '../../policy';
import { FlowStatus } from '../../flow/status/flow-status';
import { CheckpointFlow, CheckpointFlowParts } from '../../flow/checkpoints/checkpoint-flow';
import { flowGroupId, offsetSyncsPlace, preservedOffsetsGroup } from '../flow-names';
import { PipelineConfigToken } from './tokens';
import { MigrationWatch } from '../../flow/migration-state';

/**
 * MM2's MirrorCheckpointConnector. Loaded only for a flow that writes checkpoints and has offset
 * syncs to translate them with.
 */
export function checkpointsModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const { checkpoints } = flow;
    bind<CheckpointFlowParts>(CheckpointFlowParts)
      .toResolvedValue(
        (
          sourceAdmin: ClusterAdmin,
          targetAdmin: ClusterAdmin,
          offsetSyncsAdmin: ClusterAdmin,
          checkpointsReader: TopicReader,
          offsetSyncsReader: TopicReader,
          writer: RecordWriter,
          policy: ReplicationPolicy,
          scheduler: Scheduler,
          logger: Logger,
          status: FlowStatus,
          pipeline: PipelineConfig,
          migration: MigrationWatch | undefined,
        ): CheckpointFlowParts => ({
          settings: {
            source: flow.source,
            target: flow.target,
            intervalMs: checkpoints.interval_ms,
            refreshGroupsIntervalMs: checkpoints.refresh_groups_interval_ms,
            refreshGroups: checkpoints.refresh_groups_enabled,
            checkpointsTopic: policy.checkpointsTopic(flow.source),
            checkpointsReplicationFactor: checkpoints.replication_factor,
            offsetSyncsTopic: policy.offsetSyncsTopic(offsetSyncsPlace(flow).otherAlias),
            offsetSyncsReplicationFactor: flow.topic_sync.replication_factor,
            syncGroupOffsets: { enabled: checkpoints.sync_group_offsets.enabled, intervalMs: checkpoints.sync_group_offsets.interval_ms },
          },
          sourceAdmin,
          targetAdmin,
          offsetSyncsAdmin,
          checkpointsReader,
          offsetSyncsReader,
          writer,
          groupFilter: new DefaultGroupFilter({ include: checkpoints.groups, exclude: checkpoints.groups_exclude }),
          // MM2's checkpoint task uses the topic filter alone (shouldCheckpointTopic).
          topicFilter: new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude }),
          policy,
          scheduler,
          logger,
          status: status.checkpoints,
          outages: status.outages,
          ...(flow.offsets === 'preserve' ? { preservationMarkers: preservedOffsetsGroup(flowGroupId(pipeline.name, flow)) } : {}),
          ...(migration === undefined ? {} : { migration }),
        }),
        [
          SourceAdmin,
          TargetAdmin,
          OffsetSyncsAdmin,
          CheckpointsReader,
          OffsetSyncsReader,
          CheckpointsWriter,
          ReplicationPolicy,
          Scheduler,
          Logger,
          FlowStatus,
          PipelineConfigToken,
          { serviceIdentifier: MigrationWatch, optional: true },
        ],
      )
      .inSingletonScope();
    bind(CheckpointFlow).toSelf().inSingletonScope();
  });
}
