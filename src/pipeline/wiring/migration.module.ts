import { ContainerModule } from 'inversify';
import type { FlowConfig, PipelineConfig } from '../../config';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { TargetAdmin, type ClusterAdmin } from '../../core/ports/cluster-admin';
import { ProgressReader, type TopicReader } from '../../core/ports/record-source';
import { MigrationWatch } from '../../flow/migration-state';
import { flowGroupId, migrationTopicName } from '../flow-names';
import { PipelineConfigToken } from './tokens';

/** How often a running flow looks for a `mirrorflow migrate finish` of its own. */
export const MIGRATION_POLL_MS = 5_000;

/** The flow's view of its migration state (src/flow/migration-state.ts), read on the target. */
export function migrationModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(MigrationWatch)
      .toResolvedValue(
        (pipeline: PipelineConfig, targetAdmin: ClusterAdmin, reader: TopicReader, scheduler: Scheduler, logger: Logger) =>
          new MigrationWatch({
            targetAdmin,
            // The progress topic's reader: on the target, and read as rarely (once per change of the topic).
            reader,
            topic: migrationTopicName(flow.source),
            flowGroup: flowGroupId(pipeline.name, flow),
            pollMs: MIGRATION_POLL_MS,
            scheduler,
            logger,
          }),
        [PipelineConfigToken, TargetAdmin, ProgressReader, Scheduler, Logger],
      )
      .inSingletonScope();
  });
}
