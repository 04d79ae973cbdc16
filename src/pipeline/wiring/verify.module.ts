import { ContainerModule } from '#inversify';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { SourceAdmin, TargetAdmin } from '../../core/ports/cluster-admin';
import { OffsetSyncsReader } from '../../core/ports/record-source';
import { SourceRangeReader, TargetRangeReader } from '../../core/ports/range-reader';
import { ReplicationPolicy } from '../../policy';
import { PluginRegistry } from '../../plugins';
import { FlowStatus } from '../../flow/status/flow-status';
import { ProgressStore } from '../../flow/progress/progress-store';
import { readPreservationMarkers } from '../../flow/replication/preservation-markers';
import { VerifyJob, VerifyJobParts } from '../../flow/verify/verify-job';
import { bindParts } from './bind-parts';
import { preservationMarkerGroup } from './settings/internal-topic-settings';
import { expectedCopies, flowComparison, verifyJobSettings } from './settings/verify-settings';
import { FlowConfig, PipelineConfig } from './tokens';

/**
 * Continuous verification (`verify.enabled`): windows of the partitions this process replicates,
 * compared with their copies on the target, within the read budget. Loaded for a flow that
 * replicates with `verify.enabled`; it runs beside replication on every process, each on its own
 * share of the partitions (the progress it holds).
 */
export function verifyModule(flow: FlowConfig): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bindParts(
      bind,
      VerifyJobParts,
      {
        sourceAdmin: SourceAdmin,
        targetAdmin: TargetAdmin,
        sourceReader: SourceRangeReader,
        targetReader: TargetRangeReader,
        offsetSyncsReader: OffsetSyncsReader,
        progress: ProgressStore,
        policy: ReplicationPolicy,
        registry: PluginRegistry,
        pipeline: PipelineConfig,
        scheduler: Scheduler,
        logger: Logger,
        status: FlowStatus,
      },
      ({ policy, registry, pipeline, status, ...parts }) => {
        const comparison = flowComparison(flow, registry);
        const expected = expectedCopies(flow, policy, comparison);
        const markerGroup = preservationMarkerGroup(pipeline.name, flow);
        return {
          ...parts,
          settings: verifyJobSettings(flow, policy, comparison.comparedBy),
          status: status.verify,
          ...(expected === undefined ? {} : { expected }),
          ...(flow.offsets === 'preserve'
            ? {
                preservedPartitions: async () =>
                  new Set([...(await readPreservationMarkers(parts.targetAdmin, markerGroup))].filter(([, m]) => m.preserved).map(([key]) => key)),
              }
            : {}),
        };
      },
    );
    bind(VerifyJob).toSelf().inSingletonScope();
  });
}
