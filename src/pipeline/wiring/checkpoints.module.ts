import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { OffsetSyncsAdmin, SourceAdmin, TargetAdmin } from '../../core/ports/cluster-admin';
import { CheckpointsReader, OffsetSyncsReader } from '../../core/ports/record-source';
import { CheckpointsWriter } from '../../core/ports/record-writer';
import { ReplicationPolicy } from '../../policy';
import { FlowStatus } from '../../flow/status/flow-status';
import { CheckpointFlow, CheckpointFlowParts } from '../../flow/checkpoints/checkpoint-flow';
import { MigrationWatch } from '../../flow/migration-state';
import { bindParts, optional } from './bind-parts';
import { checkpointFlowSettings, checkpointSelection, reverseOffsetSyncs } from './settings/checkpoint-settings';
import { KafkaClients } from '../../core/ports/kafka-clients';
import { FlowConfig, PipelineConfig } from './tokens';

/**
 * MM2's MirrorCheckpointConnector. Loaded only for a flow that writes checkpoints and has offset
 * syncs to translate them with.
 */
export function checkpointsModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bindParts(
      bind,
      CheckpointFlowParts,
      {
        sourceAdmin: SourceAdmin,
        targetAdmin: TargetAdmin,
        offsetSyncsAdmin: OffsetSyncsAdmin,
        checkpointsReader: CheckpointsReader,
        offsetSyncsReader: OffsetSyncsReader,
        writer: CheckpointsWriter,
        policy: ReplicationPolicy,
        scheduler: Scheduler,
        logger: Logger,
        status: FlowStatus,
        pipeline: PipelineConfig,
        migration: optional(MigrationWatch),
        clients: KafkaClients,
      },
      ({ status, pipeline, migration, clients, ...parts }) => {
        const reverse = reverseOffsetSyncs(pipeline, flow);
        return {
          ...parts,
          settings: checkpointFlowSettings(flow, parts.policy),
          ...checkpointSelection(pipeline.name, flow),
          status: status.checkpoints,
          outages: status.outages,
          ...(migration === undefined ? {} : { migration }),
          ...(reverse === undefined ? {} : { reverseSyncs: { reader: clients.reader(reverse.cluster), topic: reverse.topic } }),
        };
      },
    );
    bind(CheckpointFlow).toSelf().inSingletonScope();
  });
}
