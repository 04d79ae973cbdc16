/**
 * The PromQL of Strimzi's MirrorMaker 2 dashboard and alert rules, verbatim, as test data (issue
 * #39): what a team moving from MM2 on Strimzi keeps pointing at mirrorflow's /metrics.
 *
 * - Dashboard: strimzi/strimzi-kafka-operator, examples/metrics/grafana-dashboards/strimzi-kafka-mirror-maker-2.json
 *   (main at 8541da1e, Strimzi 1.1), every panel's target in order.
 * - Alerts: examples/metrics/prometheus-install/prometheus-rules/prometheus-mirrormaker2-rules.yaml and the
 *   Connect rules (prometheus-kafka-connect-rules.yaml), which apply to MM2's pods too (MM2 on Strimzi is a Connect cluster).
 *
 * `outside`: the series come from elsewhere than the process (cAdvisor) or are the JVM's; every other
 * expression must return series against a real run. Dashboard variables are given values as Grafana would.
 */

export interface StrimziQuery {
  readonly title: string;
  readonly expr: string;
  /** Why mirrorflow's /metrics cannot answer it; undefined: it must. */
  readonly outside?: string;
}

/** The dashboard's variables: `$strimzi_mirror_maker_cluster_name`, `$kubernetes_namespace`. */
export const DASHBOARD_VARIABLES: Readonly<Record<string, string>> = { strimzi_mirror_maker_cluster_name: 'my-mm2-cluster', kubernetes_namespace: 'myproject' };

export const DASHBOARD: readonly StrimziQuery[] = [
  {
    title: 'Total Number of Running Connectors',
    expr: 'sum(kafka_connect_worker_connector_count{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"})',
  },
  {
    title: 'Total record rate',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_record_rate{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"})',
  },
  {
    title: 'Record Age',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_record_age_ms{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (partition, topic)',
  },
  {
    title: 'Record Age',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_record_age_ms_avg{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (partition, topic)',
  },
  {
    title: 'Record Age',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_record_age_ms_min{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (partition, topic)',
  },
  {
    title: 'Record Age',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_record_age_ms_max{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (partition, topic)',
  },
  {
    title: 'Total Number of Running Tasks',
    expr: 'sum(kafka_connect_worker_task_count{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"})',
  },
  {
    title: 'Total byte rate',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_byte_rate{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"})',
  },
  {
    title: 'Consumer Lag',
    expr: 'sum(kafka_consumer_fetch_manager_records_lag{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name",clientid=~".*replication-consumer\\""}) by (topic, partition)',
  },
  {
    title: 'Consumer Lag',
    expr: 'topk(20, sum(kafka_consumer_fetch_manager_records_lag{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name",clientid=~".*replication-consumer\\""}) by (partition, topic))',
  },
  {
    title: 'Incoming Bytes per Second',
    expr: 'sum(rate(kafka_consumer_incoming_byte_total{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}[5m])) by (kubernetes_pod_name)',
  },
  {
    title: 'Outgoing Bytes per Second',
    expr: 'sum(rate(kafka_producer_outgoing_byte_total{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}[5m])) by (kubernetes_pod_name)',
  },
  {
    title: 'Replication Latency',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_replication_latency_ms{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (partition, topic)',
  },
  {
    title: 'Replication Latency',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_replication_latency_ms_avg{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (partition, topic)',
  },
  {
    title: 'Replication Latency',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_replication_latency_ms_min{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (partition, topic)',
  },
  {
    title: 'Replication Latency',
    expr: 'sum(kafka_connect_mirror_mirrorsourceconnector_replication_latency_ms_max{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (partition, topic)',
  },
  {
    title: 'Consumer Group Offset Sync Latency',
    expr: 'sum by (source, target, topic, partition, group) (kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"})',
  },
  { title: 'Source Connector - Producer Available Buffer', expr: 'sum(kafka_producer_buffer_available_bytes{clientid=~"\\".*SourceConnector-[0-9]+\\""})' },
  {
    title: 'Source Connector - Average Offset Commit Time',
    expr: 'sum(kafka_connect_connector_task_offset_commit_avg_time_ms{connector=~"\\".*SourceConnector\\"", task=~"[0-9]+"})/count(kafka_connect_connector_task_offset_commit_avg_time_ms{connector=~"\\".*SourceConnector\\"", task=~"[0-9]+"})',
  },
  {
    title: 'Source Connector - Connect Outstanding Messages Queue',
    expr: 'sum(kafka_connect_source_task_source_record_active_count{connector=~"\\".*SourceConnector\\""})',
  },
  {
    title: 'Assigned Connectors per Worker',
    expr: 'sum(kafka_connect_coordinator_assigned_connectors{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (kubernetes_pod_name)',
  },
  {
    title: 'Rebalancing',
    expr: 'sum(kafka_connect_worker_rebalance_rebalancing{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"})',
  },
  {
    title: 'Assigned Tasks per Worker',
    expr: 'sum(kafka_connect_coordinator_assigned_tasks{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (kubernetes_pod_name)',
  },
  {
    title: 'CPU Usage',
    expr: 'sum(rate(container_cpu_usage_seconds_total{namespace="$kubernetes_namespace",pod=~"$strimzi_mirror_maker_cluster_name-mirrormaker2-.+",container="$strimzi_mirror_maker_cluster_name-mirrormaker2"}[5m])) by (pod)',
    outside: "cAdvisor's container metrics, scraped from the kubelet, not from the process",
  },
  {
    title: 'JVM Memory',
    expr: 'sum(jvm_memory_used_bytes{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (kubernetes_pod_name)',
    outside: "the JVM's; mirrorflow runs on Node.js and serves its process metrics as mirrorflow_process_* and mirrorflow_nodejs_*",
  },
  {
    title: 'Time Spent in GC',
    expr: 'sum(rate(jvm_gc_collection_seconds_sum{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}[5m])) by (kubernetes_pod_name)',
    outside: "the JVM's; mirrorflow runs on Node.js and serves its process metrics as mirrorflow_process_* and mirrorflow_nodejs_*",
  },
  {
    title: 'JVM Thread Count',
    expr: 'sum(jvm_threads_current{strimzi_io_kind=~"KafkaMirrorMaker2",strimzi_io_cluster="$strimzi_mirror_maker_cluster_name"}) by (kubernetes_pod_name)',
    outside: "the JVM's; mirrorflow runs on Node.js and serves its process metrics as mirrorflow_process_* and mirrorflow_nodejs_*",
  },
];

/** Alert rules: the alert's expression, and `healthy` what it gives while all runs well (no series: not firing). */
export interface StrimziAlert {
  readonly alert: string;
  readonly expr: string;
  /** An expression of the same series without the alert's condition: it must return series, proving the alert reads real ones. */
  readonly series?: string;
  readonly outside?: string;
}

export const ALERTS: readonly StrimziAlert[] = [
  {
    alert: 'MirrorMaker2ContainerDown',
    expr: 'absent(container_last_seen{container=~".+-mirrormaker2",pod=~".+-mirrormaker2-.+"})',
    outside: "cAdvisor's container metrics, scraped from the kubelet, not from the process",
  },
  {
    alert: 'ConnectFailedConnector',
    expr: 'sum(kafka_connect_connector_status{status="failed"}) by (namespace, pod) > 0',
    series: 'sum(kafka_connect_connector_status{status=~"running|failed"}) by (namespace, pod)',
  },
  {
    alert: 'ConnectFailedTask',
    expr: 'sum(kafka_connect_worker_connector_failed_task_count) by (namespace, pod) > 0',
    series: 'sum(kafka_connect_worker_connector_failed_task_count) by (namespace, pod)',
  },
];

/**
 * The labels a scrape of an MM2 pod gets in a Strimzi deployment: the PodMonitor kafka-resources-metrics
 * maps the pod's strimzi.io/* labels and adds namespace, kubernetes_pod_name, node_name and node_ip;
 * the Prometheus Operator adds namespace, pod and container.
 */
export const TARGET_LABELS: Readonly<Record<string, string>> = {
  strimzi_io_kind: 'KafkaMirrorMaker2',
  strimzi_io_cluster: 'my-mm2-cluster',
  strimzi_io_name: 'my-mm2-cluster-mirrormaker2',
  namespace: 'myproject',
  pod: 'my-mm2-cluster-mirrormaker2-0',
  container: 'my-mm2-cluster-mirrormaker2',
  kubernetes_pod_name: 'my-mm2-cluster-mirrormaker2-0',
  node_name: 'node-1',
  node_ip: '192.0.2.10',
};
