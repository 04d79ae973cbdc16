/**
 * Pipeline configuration: the YAML file's schema, loading with `${…}` interpolation and `--set`
 * overrides, MM2's mm2.properties read as a pipeline, validation that reports every problem with
 * its line, and the JSON Schema for editors.
 */
export { isMm2PropertiesFile, loadPipelineFile, parsePipelineTexts, readPipelineFile, readTexts } from './load-pipeline-file';
export { connectorSettings, isConnectorConfig, type ConnectorClassName, type ConnectorSettings } from './mm2/connector-file';
// The MM2 readers and the converter are loaded on use (load-pipeline-file.ts; `mirrorflow convert`
// imports convert-mm2-properties itself), not with every import of this module.
export type { ParsedPipeline } from './mm2/parse-mm2-properties';
export type { ConnectorConfigText } from './mm2/parse-connector-configs';
export type { ConvertOptions, Converted } from './mm2/convert-mm2-properties';
export { parsePipeline, type ConfigCheck, type ParsePipelineOptions, type TransformStepValidator } from './parse-pipeline';
export { ValuesNotResolved } from './validate-pipeline-data';
export { pipelineJsonSchema, pipelineJsonSchemaText } from './json-schema/pipeline-json-schema';
export { clusterSchema } from './schema/clusters';
export { defaultConfigsExclude } from './schema/topic-sync';
export { defaultTopicsExclude, flowDefaultsSchema, flowSchema } from './schema/flows';
export { pipelineFileSchema } from './schema/pipeline-schema';
export { DEFAULT_HTTP_LISTEN } from './schema/http';
export type {
  BatchingConfig,
  BufferConfig,
  ClusterConfig,
  ConsumerConfig,
  FlowConfig,
  LoggingConfig,
  HttpConfig,
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
export { parseJavaProperties } from './mm2/java-properties';
export { mskIamRegion } from './msk-iam-region';
export { readPluginPackages, type PipelinePluginPackages } from './pipeline-plugin-packages';
export {
  readPipelineTestFile,
  type InlineTestFlow,
  type PipelineTestCase,
  type PipelineTestFile,
  type TestHeaderSpec,
  type TestRecordSpec,
} from './pipeline-test-file';
