/**
 * The pipeline's tools around MM2's RemoteClusterUtils: a MirrorClient over the ports, offset
 * translation from checkpoints, upstream clusters and hops from heartbeats, and group failover.
 */
export {
  MirrorClient,
  CheckpointFold,
  DEFAULT_READ_TIMEOUT_MS,
  type MirrorClientOptions,
  type TranslatedOffset,
  type HeartbeatSeen,
  type ReadOptions,
} from './mirror-client';
export * as remoteTopology from './remote-topology';
export { flowReplicationPolicy } from '../wiring/flow-policy';
export { PipelineTools, type OpenPipelineToolsOptions, type DirectionRequest, type FlowDirection } from './pipeline-tools';
export { translateOffsets, type TranslateOffsetsRequest, type TranslateOffsetsResult, type GroupTranslation } from './translate-offsets';
export { describeUpstream, type UpstreamRequest, type UpstreamCluster, type ClusterUpstream } from './upstream-clusters';
export {
  planFailover,
  executeFailover,
  decideAction,
  isWritten,
  type FailoverRequest,
  type FailoverAction,
  type FailoverPartition,
  type FailoverPlan,
  type FailoverResult,
} from './failover';
export { ToolUsageError, CheckpointsTopicMissingError, FailoverRefusedError, MigrationRefusedError, SchemaCopyRefusedError } from './tool-errors';
export {
  copySchemas,
  flowSubjects,
  type SchemaCopyRequest,
  type SchemaCopyResult,
  type FlowSchemaCopy,
  type CopiedSubject,
  type CopiedVersion,
} from './schema-copy';
export { migrationReport, type MigrationReport, type PartitionReport, type GroupReport, type MigrationReportRequest } from './migrate-report';
export { cutover, finish, type CutoverRequest, type CutoverResult, type GroupCutoverResult, type FinishRequest, type FinishResult } from './migrate';
