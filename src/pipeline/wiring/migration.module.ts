import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { TargetAdmin } from '../../core/ports/cluster-admin';
import { ProgressReader } from '../../core/ports/record-source';
import { MigrationWatch } from '../../flow/migration-state';
import { bindParts } from './bind-parts';
import { migrationWatchSettings } from './settings/internal-topic-settings';
import { PipelineConfig, type FlowConfig } from './tokens';

/** The flow's view of its migration state (src/flow/migration-state.ts), read on the target. */
export function migrationModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bindParts(
      bind,
      MigrationWatch,
      // The progress topic's reader: on the target, and read as rarely (once per change of the topic).
      { pipeline: PipelineConfig, targetAdmin: TargetAdmin, reader: ProgressReader, scheduler: Scheduler, logger: Logger },
      ({ pipeline, ...parts }) => new MigrationWatch({ ...parts, ...migrationWatchSettings(pipeline.name, flow) }),
    );
  });
}
