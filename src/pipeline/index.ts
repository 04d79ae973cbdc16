export { Pipeline, type PipelineOptions } from './pipeline';
export { flowGroupId, progressTopicName } from './flow-names';
export { createKafkaClients, plaintextConnection } from './clients';
export { loadPipeline, type LoadPipelineOptions, type LoadedPipeline } from './load-pipeline';
export { toClusterConnection } from './cluster-connection';
export { planPipeline, type PipelinePlan, type FlowPlan, type TopicPlan, type ClusterPlan, type InternalTopicPlan } from './plan';
export { formatPlan } from './plan-report';
export { diffPipeline, type PipelineDiff, type FlowDiff, type TopicDiff } from './diff';
export { formatDiff } from './diff-report';
