export { Pipeline, type PipelineOptions } from './pipeline';
export { flowGroupId, progressTopicName } from './flow.module';
export { createKafkaClients, plaintextConnection } from './clients';
export { loadPipeline, type LoadPipelineOptions, type LoadedPipeline } from './load-pipeline';
