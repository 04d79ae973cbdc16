/**
 * The validated pipeline, as the rest of mirrorflow sees it: every default applied,
 * `flow_defaults` merged into each flow, bootstrap servers as lists, protocol and mechanism names
 * in lower case, TLS file paths absolute. Keys keep the file's snake_case names so that a value
 * reads the same in code, in the YAML and in error paths (`flows[0].batching.max_records`).
 */
import type { z } from '#zod';
import type { TransformStep } from '../plugins';
import type { clusterSchema } from './schema/clusters';
import type { flowSchema } from './schema/flows';
import type { pipelineFileSchema } from './schema/pipeline-schema';

type ParsedCluster = z.output<typeof clusterSchema>;
type ParsedFlow = z.output<typeof flowSchema>;
type ParsedFile = z.output<typeof pipelineFileSchema>;

export type ClusterConfig = ParsedCluster & {
  /** The key under `clusters:`. */
  readonly alias: string;
};
export type SecurityConfig = ClusterConfig['security'];
export type SaslConfig = NonNullable<SecurityConfig['sasl']>;
export type SslConfig = NonNullable<SecurityConfig['ssl']>;
export type SecurityProtocol = SecurityConfig['protocol'];

/** A transform step: `type`, the step's other keys as `options` (checked by the plugin), and its `path`. */
export type { TransformStep };

export type FlowConfig = Omit<ParsedFlow, 'transforms'> & {
  /** `source->target`, MM2's name for a flow. */
  readonly name: string;
  readonly transforms: TransformStep[];
};
export type ReplicationPolicyConfig = FlowConfig['replication_policy'];
export type TopicSyncConfig = FlowConfig['topic_sync'];
export type OffsetSyncsConfig = FlowConfig['offset_syncs'];
export type ProgressConfig = FlowConfig['progress'];
export type BatchingConfig = FlowConfig['batching'];
export type BufferConfig = FlowConfig['buffer'];
export type ConsumerConfig = FlowConfig['consumer'];
export type ProducerConfig = FlowConfig['producer'];
export type CheckpointsConfig = FlowConfig['checkpoints'];
export type HeartbeatsConfig = FlowConfig['heartbeats'];
export type LoggingConfig = ParsedFile['logging'];
export type HttpConfig = ParsedFile['http'];

export interface PipelineConfig {
  readonly name: string;
  readonly clusters: Readonly<Record<string, ClusterConfig>>;
  readonly flows: readonly FlowConfig[];
  readonly logging: LoggingConfig;
  readonly http: HttpConfig;
}
