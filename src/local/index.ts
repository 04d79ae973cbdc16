/**
 * Local Kafka clusters from the official jars on Maven Central, for the demo, the tests and the
 * benchmark. Node built-ins only (plus core): no Kafka client library in this layer.
 */
export {
  DEFAULT_KAFKA_VERSION,
  ensureKafkaDistribution,
  javaCommand,
  javaExecutable,
  loggingJvmOptions,
  type EnsureKafkaDistributionOptions,
  type JavaCommand,
  type JavaCommandOptions,
  type KafkaDistribution,
} from './kafka-distribution';
export {
  DEFAULT_ALIASES,
  defaultKafkaVersion,
  startLocalClusters,
  type LocalClusters,
  type RestartableBroker,
  type StartLocalClustersOptions,
} from './local-clusters';
export type { LocalCluster } from './local-cluster';
export type { JvmProfile, LocalNode } from './local-broker';
export {
  LOCAL_SASL_MECHANISMS,
  LOCAL_SUPER_USER,
  readLocalPassword,
  type LocalClientCertificate,
  type LocalClusterSecurity,
  type LocalSecurityOptions,
} from './local-security';
export { isBrokerReady, probeKafka, type KafkaProbeResult } from './kafka-probe';
export { isProcessAlive } from './processes';
export { defaultLocalStateDir, mirrorflowCacheDir } from './paths';
export { LOCAL_BROKER_DEFAULTS, replicationDefaults, type BrokerAddress, type BrokerPropertyOverrides, type BrokerPropertyValue } from './broker-properties';
export {
  detachedClusterStatus,
  downDetachedClusters,
  upDetachedClusters,
  type DetachedCluster,
  type DetachedClusterStatus,
  type UpOptions,
  type UpResult,
} from './detached-clusters';
