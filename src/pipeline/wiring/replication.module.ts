import { ContainerModule } from 'inversify';
import type { FlowConfig, PipelineConfig } from '../../config';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { OffsetSyncsAdmin, SourceAdmin, TargetAdmin, type ClusterAdmin } from '../../core/ports/cluster-admin';
import { ProgressReader, SourceRecordLookup, SourceRecords, TargetRecordLookup, type RecordSource, type TopicReader } from '../../core/ports/record-source';
import { DeadLetterWriter, OffsetSyncsWriter, ProgressWriter, ReplicationWriter, type RecordWriter } from '../../core/ports/record-writer';
import { ReplicationPolicy, DefaultTopicFilter, newTopicConfigs, shouldReplicateTopic } from '../../policy';
import { buildTransformChain, PluginRegistry, TransformChain, topicAfterTransforms, type RegistryConverters } from '../../plugins';
import { FlowStatus } from '../../flow/status/flow-status';
import { TopicSync, TopicSyncOptions } from '../../flow/topics/topic-sync';
import { ProgressStore, ProgressStoreOptions } from '../../flow/progress/progress-store';
import { OffsetSyncWriter } from '../../flow/progress/offset-sync-writer';
import { OffsetSyncEmitter, OffsetSyncEmitterOptions } from '../../flow/progress/offset-sync-emitter';
import { ReplicationFlow, ReplicationFlowParts } from '../../flow/replication/replication-flow';
import { BUSY_WAIT_MS } from '../../flow/operators/write-batches';
import { DeadLetterSink, DeadLetterSinkOptions } from '../../flow/replication/dead-letter-sink';
import { OffsetPreservation } from '../../flow/replication/offset-preservation';
import { PreservationStatus } from '../../flow/replication/preservation-status';
import { PipelineConfigToken } from './tokens';
import { SlotTransactions } from '../../core/ports/slot-transactions';
import { flowGroupId, offsetSyncsPlace, preservedOffsetsGroup, progressTopicName } from '../flow-names';
import { writesInFlight } from './writes-in-flight';
import { flowConfigFilter } from './config-sync.module';
import { SchemaIdTranslation } from '../../flow/replication/schema-id-translation';
import { RegistrySchemaFetch } from '../../flow/replication/registry-schema-fetch';
import { FlowRegistryConverters, registryConverters } from './registry-converters';
import { httpSchemaRegistry } from '../../registry/schema-registry-client';
import { registrySettings } from './registry-settings';

/**
 * MM2's MirrorSourceConnector: topic sync, progress, offset syncs, dead letters, transforms and
 * the replication graph. Offset syncs and dead letters are bound only when the flow has them.
 */
/** The flow's transactional writer, bound only for `delivery: exactly_once` (so no other flow opens one). */
const ExactlyOnceTransactions = Symbol.for('mirrorflow.ExactlyOnceTransactions');

export function replicationModule(flow: FlowConfig): ContainerModule {
  const registries = flow.schema_registry;
  return new ContainerModule(({ bind }) => {
    // The registry converters hold the writer schemas of the flow's source registry and what they
    // wrote (validation makes sure a flow with such a side has a schema_registry).
    const withConverters = registries !== undefined && registryConverters(flow.converter) !== undefined;
    if (withConverters)
      bind<RegistryConverters>(FlowRegistryConverters)
        .toResolvedValue(() => registryConverters(flow.converter)!)
        .inSingletonScope();
    bind<TransformChain>(TransformChain)
      .toResolvedValue(
        (registry: PluginRegistry, logger: Logger, status: FlowStatus, converters: RegistryConverters | undefined) =>
          buildTransformChain(flow.transforms, registry, {
            flow: { source: flow.source, target: flow.target },
            logger,
            converters: converters === undefined ? flow.converter : { ...flow.converter, registry: converters },
            // The steps' counters count into the flow's status, which /metrics reads.
            metrics: (step) => status.transformCounters.forStep(step),
          }),
        [PluginRegistry, Logger, FlowStatus, { serviceIdentifier: FlowRegistryConverters, optional: true }],
      )
      .inSingletonScope();

    bind<TopicSyncOptions>(TopicSyncOptions)
      .toResolvedValue(
        (sourceAdmin: ClusterAdmin, targetAdmin: ClusterAdmin, policy: ReplicationPolicy, logger: Logger, status: FlowStatus): TopicSyncOptions => {
          const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
          const configFilter = flowConfigFilter(flow);
          // The remote topic under the name the flow's rename_topic steps write to.
          const renamed = topicAfterTransforms(flow.transforms, flow);
          return {
            sourceAdmin,
            targetAdmin,
            remoteTopic: (topic) => renamed(policy.formatRemoteTopic(flow.source, topic)),
            shouldReplicate: (topic) =>
              shouldReplicateTopic(topic, { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats }),
            targetConfig: (entries) => newTopicConfigs(configFilter, entries),
            syncConfigs: flow.topic_sync.sync_configs,
            replicationFactor: flow.topic_sync.replication_factor,
            logger,
            onCreated: (count) => (status.topicsCreated += count),
          };
        },
        [SourceAdmin, TargetAdmin, ReplicationPolicy, Logger, FlowStatus],
      )
      .inSingletonScope();
    bind(TopicSync).toSelf().inSingletonScope();

    bind<ProgressStoreOptions>(ProgressStoreOptions)
      .toResolvedValue(
        (targetAdmin: ClusterAdmin, reader: TopicReader, writer: RecordWriter, logger: Logger): ProgressStoreOptions => ({
          sourceAlias: flow.source,
          topic: progressTopicName(flow.source),
          replicationFactor: flow.topic_sync.replication_factor,
          targetAdmin,
          reader,
          writer,
          logger,
        }),
        [TargetAdmin, ProgressReader, ProgressWriter, Logger],
      )
      .inSingletonScope();
    bind(ProgressStore).toSelf().inSingletonScope();

    if (flow.offset_syncs.enabled) {
      bind(OffsetSyncWriter).toConstantValue(new OffsetSyncWriter({ offsetLagMax: flow.offset_syncs.lag_max }));
      bind<OffsetSyncEmitterOptions>(OffsetSyncEmitterOptions)
        .toResolvedValue(
          (policy: ReplicationPolicy, admin: ClusterAdmin, writer: RecordWriter): OffsetSyncEmitterOptions => ({
            topic: policy.offsetSyncsTopic(offsetSyncsPlace(flow).otherAlias),
            admin,
            writer,
            replicationFactor: flow.topic_sync.replication_factor,
          }),
          [ReplicationPolicy, OffsetSyncsAdmin, OffsetSyncsWriter],
        )
        .inSingletonScope();
      bind(OffsetSyncEmitter).toSelf().inSingletonScope();
    }

    // The flow's dead-letter topic on the target, a sink of its own (errors.tolerance all).
    const { tolerance, deadletterqueue } = flow.errors;
    if (tolerance === 'all' && deadletterqueue.topic_name !== undefined) {
      const topic = deadletterqueue.topic_name;
      bind<DeadLetterSinkOptions>(DeadLetterSinkOptions)
        .toResolvedValue(
          (admin: ClusterAdmin, writer: RecordWriter, scheduler: Scheduler, logger: Logger, status: FlowStatus): DeadLetterSinkOptions => ({
            flow: flow.name,
            topic,
            replicationFactor: deadletterqueue.replication_factor,
            admin,
            writer,
            scheduler,
            logger,
            status,
          }),
          [TargetAdmin, DeadLetterWriter, Scheduler, Logger, FlowStatus],
        )
        .inSingletonScope();
      bind(DeadLetterSink).toSelf().inSingletonScope();
    }

    if (flow.delivery === 'exactly_once') {
      bind<SlotTransactions>(ExactlyOnceTransactions)
        .toResolvedValue((transactions: SlotTransactions) => transactions, [SlotTransactions])
        .inSingletonScope();
    }

    if (flow.offsets === 'preserve') {
      bind(OffsetPreservation)
        .toResolvedValue(
          (
            pipeline: PipelineConfig,
            targetAdmin: ClusterAdmin,
            writer: RecordWriter,
            source: TopicReader,
            target: TopicReader,
            logger: Logger,
            status: FlowStatus,
          ): OffsetPreservation => {
            const preservation = new PreservationStatus();
            status.preservation = preservation;
            return new OffsetPreservation({
              targetAdmin,
              writer,
              readers: { source, target },
              markerGroup: preservedOffsetsGroup(flowGroupId(pipeline.name, flow)),
              status: preservation,
              logger,
              now: () => Date.now(),
            });
          },
          [PipelineConfigToken, TargetAdmin, ReplicationWriter, SourceRecordLookup, TargetRecordLookup, Logger, FlowStatus],
        )
        .inSingletonScope();
    }

    // `schema_registry`: the records' schema ids moved to the target's registry.
    if (registries !== undefined) {
      const sourceRegistry = httpSchemaRegistry(registrySettings(registries.source));
      const readingSchemas = 'reading schemas from its schema registry';
      if (withConverters) {
        bind(RegistrySchemaFetch)
          .toResolvedValue(
            (scheduler: Scheduler, logger: Logger, status: FlowStatus, policy: ReplicationPolicy, converters: RegistryConverters): RegistrySchemaFetch =>
              new RegistrySchemaFetch({
                source: sourceRegistry,
                converters,
                passes: (topic) => policy.isHeartbeatsTopic(topic),
                outage: status.outages.tracker(flow.source, readingSchemas, logger, () => scheduler.now()),
                scheduler,
                logger,
              }),
            [Scheduler, Logger, FlowStatus, ReplicationPolicy, FlowRegistryConverters],
          )
          .inSingletonScope();
      }
      bind(SchemaIdTranslation)
        .toResolvedValue(
          (
            scheduler: Scheduler,
            logger: Logger,
            status: FlowStatus,
            policy: ReplicationPolicy,
            converters: RegistryConverters | undefined,
          ): SchemaIdTranslation => {
            const track = (cluster: string, operation: string) => status.outages.tracker(cluster, operation, logger, () => scheduler.now());
            return new SchemaIdTranslation({
              source: sourceRegistry,
              target: httpSchemaRegistry(registrySettings(registries.target)),
              sides: registries.on,
              passes: (topic) => policy.isHeartbeatsTopic(topic),
              strict: registries.strict,
              path: `flow ${flow.name}`,
              errorTolerance: flow.errors.tolerance,
              outages: {
                source: track(flow.source, readingSchemas),
                target: track(flow.target, 'registering schemas in its schema registry'),
              },
              scheduler,
              logger,
              ...(converters === undefined ? {} : { writers: converters }),
            });
          },
          [Scheduler, Logger, FlowStatus, ReplicationPolicy, { serviceIdentifier: FlowRegistryConverters, optional: true }],
        )
        .inSingletonScope();
    }

    bind<ReplicationFlowParts>(ReplicationFlowParts)
      .toResolvedValue(
        (
          pipeline: PipelineConfig,
          sourceRecords: RecordSource,
          sourceAdmin: ClusterAdmin,
          targetAdmin: ClusterAdmin,
          writer: RecordWriter,
          transactions: SlotTransactions | undefined,
          topicSync: TopicSync,
          progress: ProgressStore,
          offsetSyncEmitter: OffsetSyncEmitter | undefined,
          policy: ReplicationPolicy,
          transform: TransformChain,
          deadLetters: DeadLetterSink | undefined,
          preservation: OffsetPreservation | undefined,
          schemaIds: SchemaIdTranslation | undefined,
          writerSchemas: RegistrySchemaFetch | undefined,
          scheduler: Scheduler,
          logger: Logger,
          status: FlowStatus,
        ): ReplicationFlowParts => ({
          settings: {
            source: flow.source,
            target: flow.target,
            groupId: flowGroupId(pipeline.name, flow),
            start: flow.start,
            autoOffsetReset: flow.consumer.auto_offset_reset,
            refreshTopics: flow.topic_sync.refresh_enabled,
            refreshIntervalMs: flow.topic_sync.refresh_interval_ms,
            flushIntervalMs: flow.progress.flush_interval_ms,
            batching: {
              maxRecords: flow.batching.max_records,
              maxBytes: flow.batching.max_bytes,
              maxWaitMs: flow.batching.max_wait_ms ?? BUSY_WAIT_MS,
              waitWhenIdle: flow.batching.max_wait_ms !== undefined,
              maxPartitionBytes: flow.producer.max_request_bytes,
              maxInFlight: writesInFlight(flow),
            },
            maxInFlightBytes: flow.buffer.max_bytes,
            errorTolerance: flow.errors.tolerance,
            ...(flow.delivery === 'exactly_once' ? { exactlyOnce: { slots: flow.tasks } } : {}),
            // Records nobody looks into travel in their source batches; with the target
            // compressing differently, only batches already compressed that way do.
            ...(flow.transforms.length === 0 && registries === undefined && flow.batching.forward_batches
              ? {
                  forwardRecordBatches: {
                    minCompressedBytes: flow.batching.forward_compressed_min_bytes,
                    maxBytes: flow.producer.max_request_bytes,
                    ...(flow.producer.compression === 'none' ? {} : { compression: flow.producer.compression }),
                  },
                }
              : {}),
          },
          sourceRecords,
          sourceAdmin,
          writer,
          ...(transactions === undefined ? {} : { transactions }),
          topicSync,
          progress,
          offsetSyncEmitter,
          remoteTopic: (topic) => policy.formatRemoteTopic(flow.source, topic),
          transform,
          ...(deadLetters === undefined ? {} : { deadLetters }),
          ...(preservation === undefined ? {} : { preservation }),
          ...(schemaIds === undefined ? {} : { schemaIds }),
          ...(writerSchemas === undefined ? {} : { writerSchemas }),
          scheduler,
          logger,
          status,
        }),
        [
          PipelineConfigToken,
          SourceRecords,
          SourceAdmin,
          TargetAdmin,
          ReplicationWriter,
          // Made only for an exactly-once flow: optional, and asked for by a binding below.
          { serviceIdentifier: ExactlyOnceTransactions, optional: true },
          TopicSync,
          ProgressStore,
          { serviceIdentifier: OffsetSyncEmitter, optional: true },
          ReplicationPolicy,
          TransformChain,
          { serviceIdentifier: DeadLetterSink, optional: true },
          { serviceIdentifier: OffsetPreservation, optional: true },
          { serviceIdentifier: SchemaIdTranslation, optional: true },
          { serviceIdentifier: RegistrySchemaFetch, optional: true },
          Scheduler,
          Logger,
          FlowStatus,
        ],
      )
      .inSingletonScope();
    bind(ReplicationFlow).toSelf().inSingletonScope();
  });
}
