/**
 * Pipeline configuration: the YAML file's schema, loading with `${…}` interpolation and `--set`
 * overrides, validation that reports every problem with its line, and the JSON Schema for editors.
 */
export { loadPipelineFile } from './load-pipeline-file';
export { parsePipeline, type ParsePipelineOptions, type TransformStepValidator } from './parse-pipeline';
export { pipelineJsonSchema, pipelineJsonSchemaText } from './pipeline-json-schema';
export {
  clusterSchema,
  defaultConfigsExclude,
  defaultTopicsExclude,
  flowDefaultsSchema,
  flowSchema,
  pipelineFileSchema,
} from './pipeline-schema';
export type {
  BatchingConfig,
  BufferConfig,
  ClusterConfig,
  ConsumerConfig,
  FlowConfig,
  LoggingConfig,
  OffsetSyncsConfig,
  PipelineConfig,
  ProducerConfig,
  CheckpointsConfig,
  HeartbeatsConfig,
  ProgressConfig,
  ReplicationPolicyConfig,
  SaslConfig,
  SecurityConfig,
  SecurityProtocol,
  SslConfig,
  TopicSyncConfig,
  TransformStep,
} from './pipeline-config';
export { parseJavaProperties } from './java-properties';
