import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { OffsetSyncsAdmin, SourceAdmin, TargetAdmin } from '../../core/ports/cluster-admin';
import { ProgressReader, SourceRecordLookup, SourceRecords, TargetRecordLookup } from '../../core/ports/record-source';
import { DeadLetterWriter, OffsetSyncsWriter, ProgressWriter, ReplicationWriter } from '../../core/ports/record-writer';
import { SlotTransactions } from '../../core/ports/slot-transactions';
import { token } from '../../core/ports/token';
import { ReplicationPolicy } from '../../policy';
import { buildTransformChain, PluginRegistry, TransformChain } from '../../plugins';
import { FlowStatus } from '../../flow/status/flow-status';
import { TopicSync, TopicSyncOptions } from '../../flow/topics/topic-sync';
import { ProgressStore, ProgressStoreOptions } from '../../flow/progress/progress-store';
import { OffsetSyncWriter } from '../../flow/progress/offset-sync-writer';
import { OffsetSyncEmitter, OffsetSyncEmitterOptions } from '../../flow/progress/offset-sync-emitter';
import { ReplicationFlow, ReplicationFlowParts } from '../../flow/replication/replication-flow';
import { DeadLetterSink, DeadLetterSinkOptions } from '../../flow/replication/dead-letter-sink';
import { OffsetPreservation } from '../../flow/replication/offset-preservation';
import { PreservationStatus } from '../../flow/replication/preservation-status';
import { SchemaIdTranslation } from '../../flow/replication/schema-id-translation';
import { RegistrySchemaFetch } from '../../flow/replication/registry-schema-fetch';
import { RecordProvenance } from '../../flow/replication/record-provenance';
import { DiamondWindows } from '../../flow/replication/diamond-window';
import { ProvenanceCounts } from '../../flow/status/provenance-counts';
import { httpSchemaRegistry } from '../../registry/schema-registry-client';
import { bindParts, optional } from './bind-parts';
import { FlowRegistryConverters, registryConverters } from './registry-converters';
import { deadLetterSettings, offsetSyncEmitterSettings, preservationMarkerGroup, progressStoreSettings } from './settings/internal-topic-settings';
import { registrySettings, schemaIdTranslationSettings } from './settings/registry-settings';
import { replicationFlowSettings } from './settings/replication-settings';
import { topicSyncSettings } from './settings/topic-settings';
import { FlowConfig, PipelineConfig } from './tokens';

/** The flow's transactional writer, bound only for `delivery: exactly_once` (so no other flow opens one). */
const ExactlyOnceTransactions = token<SlotTransactions>('ExactlyOnceTransactions');

/**
 * MM2's MirrorSourceConnector: topic sync, progress, offset syncs, dead letters, transforms and
 * the replication graph. Offset syncs, dead letters, exactly-once, preservation and the schema
 * registry are bound only when the flow has them; the settings functions (./settings) turn the
 * config into each part's settings, and this module only connects parts.
 */
export function replicationModule(flow: FlowConfig): ContainerModule {
  const registries = flow.schema_registry;
  return new ContainerModule(({ bind }) => {
    // The registry converters hold the writer schemas of the flow's source registry and what they
    // wrote (validation makes sure a flow with such a side has a schema_registry).
    const converters = registries === undefined ? undefined : registryConverters(flow.converter);
    if (converters !== undefined) bind(FlowRegistryConverters).toConstantValue(converters);
    bindParts(
      bind,
      TransformChain,
      { registry: PluginRegistry, logger: Logger, status: FlowStatus, converters: optional(FlowRegistryConverters) },
      ({ registry, logger, status, converters }) =>
        buildTransformChain(flow.transforms, registry, {
          flow: { source: flow.source, target: flow.target },
          logger,
          converters: converters === undefined ? flow.converter : { ...flow.converter, registry: converters },
          // The steps' counters count into the flow's status, which /metrics reads.
          metrics: (step) => status.transformCounters.forStep(step),
        }),
    );

    bindParts(
      bind,
      TopicSyncOptions,
      { sourceAdmin: SourceAdmin, targetAdmin: TargetAdmin, policy: ReplicationPolicy, logger: Logger, status: FlowStatus, scheduler: Scheduler },
      ({ policy, status, ...ports }) => ({ ...topicSyncSettings(flow, policy), ...ports, onCreated: (count) => (status.topicsCreated += count) }),
    );
    bind(TopicSync).toSelf().inSingletonScope();

    bindParts(bind, ProgressStoreOptions, { targetAdmin: TargetAdmin, reader: ProgressReader, writer: ProgressWriter, logger: Logger }, (ports) => ({
      ...progressStoreSettings(flow),
      ...ports,
    }));
    bind(ProgressStore).toSelf().inSingletonScope();

    if (flow.offset_syncs.enabled) {
      bind(OffsetSyncWriter).toConstantValue(new OffsetSyncWriter({ offsetLagMax: flow.offset_syncs.lag_max }));
      bindParts(bind, OffsetSyncEmitterOptions, { policy: ReplicationPolicy, admin: OffsetSyncsAdmin, writer: OffsetSyncsWriter }, ({ policy, ...ports }) => ({
        ...offsetSyncEmitterSettings(flow, policy),
        ...ports,
      }));
      bind(OffsetSyncEmitter).toSelf().inSingletonScope();
    }

    // The flow's dead-letter topic on the target, a sink of its own (errors.tolerance all).
    const deadLetters = deadLetterSettings(flow);
    if (deadLetters !== undefined) {
      bindParts(
        bind,
        DeadLetterSinkOptions,
        { admin: TargetAdmin, writer: DeadLetterWriter, scheduler: Scheduler, logger: Logger, status: FlowStatus },
        (ports) => ({ ...deadLetters, ...ports }),
      );
      bind(DeadLetterSink).toSelf().inSingletonScope();
    }

    if (flow.delivery === 'exactly_once') bindParts(bind, ExactlyOnceTransactions, { transactions: SlotTransactions }, ({ transactions }) => transactions);

    if (flow.offsets === 'preserve') {
      bindParts(
        bind,
        OffsetPreservation,
        {
          pipeline: PipelineConfig,
          targetAdmin: TargetAdmin,
          writer: ReplicationWriter,
          source: SourceRecordLookup,
          target: TargetRecordLookup,
          logger: Logger,
          status: FlowStatus,
        },
        ({ pipeline, targetAdmin, writer, source, target, logger, status }) => {
          const preservation = new PreservationStatus();
          status.preservation = preservation;
          return new OffsetPreservation({
            targetAdmin,
            writer,
            readers: { source, target },
            markerGroup: preservationMarkerGroup(pipeline.name, flow),
            status: preservation,
            logger,
            now: () => Date.now(),
          });
        },
      );
    }

    // `provenance.enabled`: the flow's claims go into its target's diamond window, shared by every flow into that cluster.
    if (flow.provenance.enabled) {
      bindParts(bind, RecordProvenance, { windows: DiamondWindows, status: FlowStatus }, ({ windows, status }) => {
        const claimer = windows.of(flow.target).claimer(flow.name, flow.provenance.diamond_window);
        status.provenance = new ProvenanceCounts(() => claimer.ranges);
        return new RecordProvenance({ source: flow.source, target: flow.target }, claimer);
      });
    }

    // `schema_registry`: the records' schema ids moved to the target's registry.
    if (registries !== undefined) {
      const sourceRegistry = httpSchemaRegistry(registrySettings(registries.source));
      const readingSchemas = 'reading schemas from its schema registry';
      const parts = { scheduler: Scheduler, logger: Logger, status: FlowStatus, policy: ReplicationPolicy };
      if (converters !== undefined) {
        bindParts(bind, RegistrySchemaFetch, parts, ({ scheduler, logger, status, policy }) => {
          return new RegistrySchemaFetch({
            source: sourceRegistry,
            converters,
            passes: (topic) => policy.isHeartbeatsTopic(topic),
            outage: status.outages.tracker(flow.source, readingSchemas, logger, () => scheduler.now()),
            scheduler,
            logger,
          });
        });
      }
      bindParts(bind, SchemaIdTranslation, parts, ({ scheduler, logger, status, policy }) => {
        const track = (cluster: string, operation: string) => status.outages.tracker(cluster, operation, logger, () => scheduler.now());
        return new SchemaIdTranslation({
          ...schemaIdTranslationSettings(flow, registries),
          source: sourceRegistry,
          target: httpSchemaRegistry(registrySettings(registries.target)),
          passes: (topic) => policy.isHeartbeatsTopic(topic),
          outages: { source: track(flow.source, readingSchemas), target: track(flow.target, 'registering schemas in its schema registry') },
          scheduler,
          logger,
          ...(converters === undefined ? {} : { writers: converters }),
        });
      });
    }

    bindParts(
      bind,
      ReplicationFlowParts,
      {
        pipeline: PipelineConfig,
        sourceRecords: SourceRecords,
        sourceAdmin: SourceAdmin,
        writer: ReplicationWriter,
        // Made only for an exactly-once flow: optional, and asked for by a binding above.
        transactions: optional(ExactlyOnceTransactions),
        topicSync: TopicSync,
        progress: ProgressStore,
        offsetSyncEmitter: optional(OffsetSyncEmitter),
        policy: ReplicationPolicy,
        transform: TransformChain,
        deadLetters: optional(DeadLetterSink),
        preservation: optional(OffsetPreservation),
        provenance: optional(RecordProvenance),
        schemaIds: optional(SchemaIdTranslation),
        writerSchemas: optional(RegistrySchemaFetch),
        scheduler: Scheduler,
        logger: Logger,
        status: FlowStatus,
      },
      ({ pipeline, policy, ...parts }) => ({
        ...parts,
        settings: replicationFlowSettings(pipeline.name, flow),
        remoteTopic: (topic) => policy.formatRemoteTopic(flow.source, topic),
      }),
    );
    bind(ReplicationFlow).toSelf().inSingletonScope();
  });
}
