import { ContainerModule, type ResolutionContext } from 'inversify';
import type { SchedulerLike } from 'rxjs';
import type { FlowConfig, PipelineConfig } from '../config';
import { KafkaClients } from '../core/ports/kafka-clients';
import { Logger } from '../core/ports/logger';
import type { MirrorRecord, RecordFailure } from '../core/record';
import {
  type ReplicationPolicy,
  DefaultConfigPropertyFilter,
  DefaultGroupFilter,
  DefaultTopicFilter,
  newTopicConfigs,
  shouldReplicateTopic,
} from '../policy';
import { buildTransformChain, type PluginRegistry } from '../plugins';
import { FlowStatus } from '../flow/flow-status';
import { TopicSync } from '../flow/topic-sync';
import { ProgressStore } from '../flow/progress-store';
import { OffsetSyncWriter } from '../flow/offset-sync-writer';
import { OffsetSyncEmitter } from '../flow/offset-sync-emitter';
import { ReplicationFlow } from '../flow/replication-flow';
import { DeadLetterSink } from '../flow/dead-letter-sink';
import { CheckpointFlow } from '../flow/checkpoint-flow';
import { HeartbeatFlow } from '../flow/heartbeat-flow';
import {
  CheckpointFlowToken,
  DeadLetterSinkToken,
  FlowStatusToken,
  HeartbeatFlowToken,
  OffsetSyncEmitterToken,
  OffsetSyncsToken,
  PipelineConfigToken,
  PluginRegistryToken,
  ProgressStoreToken,
  ReplicationFlowToken,
  ReplicationPolicyToken,
  SchedulerToken,
  TopicSyncToken,
  TransformChainToken,
} from './tokens';
import { flowReplicationPolicy } from './flow-policy';

/** Connect's name for the offsets topic of a herder whose source is `alias` (mm2-offsets.<alias>.internal). */
export const progressTopicName = (sourceAlias: string): string => `mm2-offsets.${sourceAlias}.internal`;

/** Each flow's consumer group on its source: shares partitions between processes of one pipeline. */
export const flowGroupId = (pipeline: string, flow: FlowConfig): string => `mirrorflow.${pipeline}.${flow.source}-${flow.target}`;

/**
 * Everything one flow is made of, bound in the flow's own child container. Every part is a
 * singleton of that container, so the flow's graph shares one policy, one store, one status.
 */
export function flowModule(flow: FlowConfig, pipelineLogger: Logger): ContainerModule {
  return new ContainerModule(({ bind }) => {
    // The flow's own logger shadows the pipeline's in this child container.
    bind<Logger>(Logger).toConstantValue(pipelineLogger.child({ flow: flow.name }));

    bind<ReplicationPolicy>(ReplicationPolicyToken)
      .toDynamicValue(() => flowReplicationPolicy(flow))
      .inSingletonScope();

    bind<FlowStatus>(FlowStatusToken).toConstantValue(new FlowStatus(flow.source, flow.target));

    bind<TopicSync>(TopicSyncToken)
      .toDynamicValue((ctx) => {
        const clients = ctx.get<KafkaClients>(KafkaClients);
        const policy = ctx.get<ReplicationPolicy>(ReplicationPolicyToken);
        const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
        const configFilter = new DefaultConfigPropertyFilter({ exclude: flow.topic_sync.configs_exclude });
        return new TopicSync({
          sourceAdmin: clients.admin(flow.source),
          targetAdmin: clients.admin(flow.target),
          remoteTopic: (topic) => policy.formatRemoteTopic(flow.source, topic),
          shouldReplicate: (topic) =>
            shouldReplicateTopic(topic, { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats }),
          targetConfig: (entries) => newTopicConfigs(configFilter, entries),
          syncConfigs: flow.topic_sync.sync_configs,
          replicationFactor: flow.topic_sync.replication_factor,
          logger: flowLogger(ctx),
        });
      })
      .inSingletonScope();

    bind<ProgressStore>(ProgressStoreToken)
      .toDynamicValue((ctx) => {
        const clients = ctx.get<KafkaClients>(KafkaClients);
        return new ProgressStore({
          sourceAlias: flow.source,
          topic: progressTopicName(flow.source),
          replicationFactor: flow.topic_sync.replication_factor,
          targetAdmin: clients.admin(flow.target),
          reader: clients.reader(flow.target),
          writer: clients.writer(flow.target, { role: `${flow.name}|progress`, compression: 'none' }),
          logger: flowLogger(ctx),
        });
      })
      .inSingletonScope();

    bind<OffsetSyncWriter>(OffsetSyncsToken).toConstantValue(new OffsetSyncWriter({ offsetLagMax: flow.offset_syncs.lag_max }));

    bind<OffsetSyncEmitter | undefined>(OffsetSyncEmitterToken)
      .toDynamicValue((ctx) => {
        if (!flow.offset_syncs.enabled) return undefined;
        const clients = ctx.get<KafkaClients>(KafkaClients);
        const policy = ctx.get<ReplicationPolicy>(ReplicationPolicyToken);
        const onSource = flow.offset_syncs.location === 'source';
        const cluster = onSource ? flow.source : flow.target;
        return new OffsetSyncEmitter(ctx.get<OffsetSyncWriter>(OffsetSyncsToken), {
          // The name carries the alias of the other cluster (MirrorSourceConfig.offsetSyncsTopic).
          topic: policy.offsetSyncsTopic(onSource ? flow.target : flow.source),
          admin: clients.admin(cluster),
          writer: clients.writer(cluster, { role: `${flow.name}|offset-syncs`, compression: 'none' }),
          replicationFactor: flow.topic_sync.replication_factor,
        });
      })
      .inSingletonScope();

    // The flow's dead-letter topic on the target, a sink of its own (errors.tolerance all).
    bind<DeadLetterSink | undefined>(DeadLetterSinkToken)
      .toDynamicValue((ctx) => {
        const { tolerance, deadletterqueue } = flow.errors;
        if (tolerance !== 'all' || deadletterqueue.topic_name === undefined) return undefined;
        const clients = ctx.get<KafkaClients>(KafkaClients);
        return new DeadLetterSink({
          flow: flow.name,
          topic: deadletterqueue.topic_name,
          replicationFactor: deadletterqueue.replication_factor,
          admin: clients.admin(flow.target),
          writer: clients.writer(flow.target, { role: `${flow.name}|dead-letters`, compression: 'none' }),
          scheduler: ctx.get<SchedulerLike>(SchedulerToken),
          logger: flowLogger(ctx),
          status: ctx.get<FlowStatus>(FlowStatusToken),
        });
      })
      .inSingletonScope();

    bind<(records: readonly MirrorRecord[], failures?: RecordFailure[]) => readonly MirrorRecord[]>(TransformChainToken)
      .toDynamicValue((ctx) =>
        buildTransformChain(flow.transforms, ctx.get<PluginRegistry>(PluginRegistryToken), {
          flow: { source: flow.source, target: flow.target },
          logger: flowLogger(ctx),
        }),
      )
      .inSingletonScope();

    bind<ReplicationFlow>(ReplicationFlowToken)
      .toDynamicValue((ctx) => {
        const pipeline = ctx.get<PipelineConfig>(PipelineConfigToken);
        const clients = ctx.get<KafkaClients>(KafkaClients);
        const policy = ctx.get<ReplicationPolicy>(ReplicationPolicyToken);
        return new ReplicationFlow({
          settings: {
            source: flow.source,
            target: flow.target,
            groupId: flowGroupId(pipeline.name, flow),
            start: flow.start,
            autoOffsetReset: flow.consumer.auto_offset_reset,
            refreshIntervalMs: flow.topic_sync.refresh_interval_ms,
            flushIntervalMs: flow.progress.flush_interval_ms,
            batching: {
              maxRecords: flow.batching.max_records,
              maxBytes: flow.batching.max_bytes,
              maxWaitMs: flow.batching.max_wait_ms,
              maxPartitionBytes: flow.producer.max_request_bytes,
            },
            maxInFlightBytes: flow.buffer.max_bytes,
            errorTolerance: flow.errors.tolerance,
            // Records nobody looks into travel in their source batches; with the target
            // compressing differently, only batches already compressed that way do.
            ...(flow.transforms.length === 0 && flow.batching.forward_batches
              ? {
                  forwardRecordBatches: {
                    minCompressedBytes: flow.batching.forward_compressed_min_bytes,
                    maxBytes: flow.producer.max_request_bytes,
                    ...(flow.producer.compression === 'none' ? {} : { compression: flow.producer.compression }),
                  },
                }
              : {}),
          },
          sourceRecords: clients.source(flow.source, {
            role: `${flow.name}|replication-consumer`,
            isolationLevel: flow.consumer.isolation_level,
            maxBytesPerPartition: flow.consumer.max_bytes_per_partition,
            maxWaitMs: flow.consumer.max_wait_ms,
            minBytes: flow.consumer.min_bytes,
          }),
          sourceAdmin: clients.admin(flow.source),
          writer: clients.writer(flow.target, { role: `${flow.name}|replication-producer`, compression: flow.producer.compression }),
          topicSync: ctx.get<TopicSync>(TopicSyncToken),
          progress: ctx.get<ProgressStore>(ProgressStoreToken),
          offsetSyncEmitter: ctx.get<OffsetSyncEmitter | undefined>(OffsetSyncEmitterToken),
          remoteTopic: (topic) => policy.formatRemoteTopic(flow.source, topic),
          transform: ctx.get(TransformChainToken),
          deadLetters: ctx.get<DeadLetterSink | undefined>(DeadLetterSinkToken),
          scheduler: ctx.get<SchedulerLike>(SchedulerToken),
          logger: flowLogger(ctx),
          status: ctx.get<FlowStatus>(FlowStatusToken),
        });
      })
      .inSingletonScope();

    // MM2's MirrorCheckpointConnector; none when checkpoints are off, or when there are no offset
    // syncs to translate with (MM2 rejects that combination; config validation should too).
    bind<CheckpointFlow | undefined>(CheckpointFlowToken)
      .toDynamicValue((ctx) => {
        if (!flow.checkpoints.enabled) return undefined;
        const logger = flowLogger(ctx);
        if (!flow.offset_syncs.enabled) {
          logger.warn('Checkpoints need offset syncs, which this flow does not write; it writes no checkpoints.', { flow: flow.name });
          return undefined;
        }
        const clients = ctx.get<KafkaClients>(KafkaClients);
        const policy = ctx.get<ReplicationPolicy>(ReplicationPolicyToken);
        const onSource = flow.offset_syncs.location === 'source';
        const syncsCluster = onSource ? flow.source : flow.target;
        const { checkpoints } = flow;
        return new CheckpointFlow({
          settings: {
            source: flow.source,
            target: flow.target,
            intervalMs: checkpoints.interval_ms,
            refreshGroupsIntervalMs: checkpoints.refresh_groups_interval_ms,
            checkpointsTopic: policy.checkpointsTopic(flow.source),
            checkpointsReplicationFactor: checkpoints.replication_factor,
            offsetSyncsTopic: policy.offsetSyncsTopic(onSource ? flow.target : flow.source),
            offsetSyncsReplicationFactor: flow.topic_sync.replication_factor,
            syncGroupOffsets: { enabled: checkpoints.sync_group_offsets.enabled, intervalMs: checkpoints.sync_group_offsets.interval_ms },
          },
          sourceAdmin: clients.admin(flow.source),
          targetAdmin: clients.admin(flow.target),
          offsetSyncsAdmin: clients.admin(syncsCluster),
          checkpointsReader: clients.reader(flow.target),
          offsetSyncsReader: clients.reader(syncsCluster),
          writer: clients.writer(flow.target, { role: `${flow.name}|checkpoints`, compression: 'none' }),
          groupFilter: new DefaultGroupFilter({ include: checkpoints.groups, exclude: checkpoints.groups_exclude }),
          // MM2's checkpoint task uses the topic filter alone (shouldCheckpointTopic).
          topicFilter: new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude }),
          policy,
          scheduler: ctx.get<SchedulerLike>(SchedulerToken),
          logger,
          status: ctx.get<FlowStatus>(FlowStatusToken).checkpoints,
          outages: ctx.get<FlowStatus>(FlowStatusToken).outages,
        });
      })
      .inSingletonScope();

    // MM2's MirrorHeartbeatConnector for this flow's pair: (source, target) heartbeats on the target.
    bind<HeartbeatFlow | undefined>(HeartbeatFlowToken)
      .toDynamicValue((ctx) => {
        if (!flow.heartbeats.enabled) return undefined;
        const clients = ctx.get<KafkaClients>(KafkaClients);
        const policy = ctx.get<ReplicationPolicy>(ReplicationPolicyToken);
        return new HeartbeatFlow({
          settings: {
            source: flow.source,
            target: flow.target,
            intervalMs: flow.heartbeats.interval_ms,
            topic: policy.heartbeatsTopic(),
            replicationFactor: flow.heartbeats.replication_factor,
          },
          targetAdmin: clients.admin(flow.target),
          writer: clients.writer(flow.target, { role: `${flow.name}|heartbeats`, compression: 'none' }),
          scheduler: ctx.get<SchedulerLike>(SchedulerToken),
          logger: flowLogger(ctx),
          status: ctx.get<FlowStatus>(FlowStatusToken).heartbeats,
          outages: ctx.get<FlowStatus>(FlowStatusToken).outages,
        });
      })
      .inSingletonScope();
  });
}

function flowLogger(ctx: ResolutionContext): Logger {
  return ctx.get<Logger>(Logger);
}
