/**
 * DI tokens of the pipeline and flow containers. A token and its type share a name where the
 * type is ours; the rest are named for what they hold.
 */
export const PipelineConfigToken = Symbol.for('mirrorflow.PipelineConfig');
export const SchedulerToken = Symbol.for('mirrorflow.Scheduler');
export const PluginRegistryToken = Symbol.for('mirrorflow.PluginRegistry');
export const ReplicationPolicyToken = Symbol.for('mirrorflow.ReplicationPolicy');
export const FlowStatusToken = Symbol.for('mirrorflow.FlowStatus');
export const TopicSyncToken = Symbol.for('mirrorflow.TopicSync');
export const ProgressStoreToken = Symbol.for('mirrorflow.ProgressStore');
export const OffsetSyncsToken = Symbol.for('mirrorflow.OffsetSyncs');
export const OffsetSyncEmitterToken = Symbol.for('mirrorflow.OffsetSyncEmitter');
export const TransformChainToken = Symbol.for('mirrorflow.TransformChain');
export const DeadLetterSinkToken = Symbol.for('mirrorflow.DeadLetterSink');
export const ReplicationFlowToken = Symbol.for('mirrorflow.ReplicationFlow');
export const CheckpointFlowToken = Symbol.for('mirrorflow.CheckpointFlow');
export const HeartbeatFlowToken = Symbol.for('mirrorflow.HeartbeatFlow');
