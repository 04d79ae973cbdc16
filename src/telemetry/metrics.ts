// size: one definition per metric of the table in docs/observability.md, each reading the one snapshot a scrape takes; splitting it would only split the list.
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { registerMm2Metrics } from './mm2-metrics';
import { readiness } from './readiness';
import {
  CHECKPOINT_STATES,
  FLOW_STATES,
  GROUP_SYNC_STATE_NAMES,
  HEARTBEAT_STATES,
  VERIFY_STATES,
  type VerifySnapshot,
  type FlowSnapshot,
  type HistogramSnapshot,
  type PartitionSnapshot,
  flowLag,
  flowLagMs,
  flowName,
  partitionLag,
  partitionLagMs,
} from './flow-snapshot';

const FLOW_LABELS = ['flow', 'source', 'target'] as const;
const PARTITION_LABELS = [...FLOW_LABELS, 'topic', 'partition'] as const;
const STATE_LABELS = [...FLOW_LABELS, 'state'] as const;
const OUTAGE_LABELS = [...FLOW_LABELS, 'cluster', 'operation'] as const;
const GROUP_LABELS = [...FLOW_LABELS, 'group'] as const;
const ERROR_LABELS = [...FLOW_LABELS, 'kind', 'cluster'] as const;
const TRANSFORM_LABELS = [...FLOW_LABELS, 'transform', 'step', 'counter'] as const;

type Labels = Record<string, string | number>;
type Emit = (labels: Labels, value: number) => void;

/**
 * Prometheus metrics of one process: Node's default process metrics and, per flow, values read
 * from the flows' live status at scrape time (nothing is counted on the replication path). Each
 * scrape takes one snapshot of every flow and every metric reads from it.
 */
export class Metrics {
  readonly registry = new Registry();
  private current: readonly FlowSnapshot[] = [];
  /** When `current` was taken: every age and lag in time of one scrape counts from it, so they agree. */
  private currentAt = 0;

  constructor(
    private readonly snapshots: () => readonly FlowSnapshot[],
    options: MetricsOptions = {},
  ) {
    collectDefaultMetrics({ register: this.registry, prefix: 'mirrorflow_' });
    this.define();
    if (options.mm2Names !== false) registerMm2Metrics(this.registry, () => ({ flows: this.current, now: this.currentAt }));
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of everything, as of now. */
  async render(): Promise<string> {
    // Kept after the scrape: two overlapping scrapes then both read a recent snapshot, never an empty one.
    this.current = this.snapshots();
    this.currentAt = Date.now();
    return this.registry.metrics();
  }

  private define(): void {
    const flows = (): readonly FlowSnapshot[] => this.current;
    const replicating = (): readonly FlowSnapshot[] => this.current.filter((f) => f.replicating);
    const perPartition = (read: (p: PartitionSnapshot) => number) => (emit: Emit) => {
      for (const f of replicating()) for (const p of f.partitions) emit({ ...flowLabels(f), topic: p.topic, partition: p.partition }, read(p));
    };
    const perFlow = (list: () => readonly FlowSnapshot[], read: (f: FlowSnapshot) => number | undefined) => (emit: Emit) => {
      for (const f of list()) {
        const value = read(f);
        if (value !== undefined) emit(flowLabels(f), value);
      }
    };
    const perState =
      <S extends string>(states: readonly S[], list: () => readonly FlowSnapshot[], read: (f: FlowSnapshot) => S) =>
      (emit: Emit) => {
        for (const f of list()) for (const state of states) emit({ ...flowLabels(f), state }, read(f) === state ? 1 : 0);
      };
    const now = (): number => this.currentAt;

    // Replication: MM2's MirrorSourceConnector metrics.
    this.counter(
      'mirrorflow_records_replicated_total',
      'Records written to the target and acknowledged, per source partition (MM2: record-count).',
      PARTITION_LABELS,
      perPartition((p) => p.records),
    );
    this.counter(
      'mirrorflow_bytes_replicated_total',
      'Bytes of records written to the target and acknowledged, per source partition (MM2: byte-count).',
      PARTITION_LABELS,
      perPartition((p) => p.bytes),
    );
    this.gauge(
      'mirrorflow_offset_lag_records',
      'Records on the source not yet on the target: high watermark at the last fetch minus the next offset to replicate.',
      PARTITION_LABELS,
      perPartition(partitionLag),
    );
    this.gauge('mirrorflow_flow_lag_records', "The flow's offset lag summed over its partitions.", FLOW_LABELS, perFlow(replicating, flowLag));
    this.gauge(
      'mirrorflow_offset_lag_ms',
      'Offset lag as time: 0 when caught up; else how long the oldest record not yet on the target has been waiting, at most (now minus the latest of: last seen caught up, first fetched, the source timestamp of the newest record replicated).',
      PARTITION_LABELS,
      (emit) => {
        const at = now();
        for (const f of replicating()) for (const p of f.partitions) emit({ ...flowLabels(f), topic: p.topic, partition: p.partition }, partitionLagMs(p, at));
      },
    );
    this.gauge(
      'mirrorflow_flow_lag_ms',
      "The flow's offset lag as time: its most lagging partition's mirrorflow_offset_lag_ms.",
      FLOW_LABELS,
      perFlow(replicating, (f) => flowLagMs(f, now())),
    );
    this.gauge(
      'mirrorflow_partitions',
      'Source partitions the flow has fetched from.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.partitions.length),
    );
    this.gauge(
      'mirrorflow_topics',
      'Source topics the flow replicates.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.topics),
    );
    this.histogram(
      'mirrorflow_replication_latency_ms',
      "Per record, from its source timestamp to the target's acknowledgement, ms (MM2: replication-latency-ms; per partition as kafka_connect_mirror_mirrorsourceconnector_replication_latency_ms*).",
      FLOW_LABELS,
      (emit) => {
        for (const f of replicating()) if (f.mirror !== undefined) emit(flowLabels(f), f.mirror.replicationLatencyHistogram);
      },
    );
    this.histogram(
      'mirrorflow_record_age_ms',
      'Per record, its age when fetched: now minus its source timestamp, ms (MM2: record-age-ms; per partition as kafka_connect_mirror_mirrorsourceconnector_record_age_ms*).',
      FLOW_LABELS,
      (emit) => {
        for (const f of replicating()) if (f.mirror !== undefined) emit(flowLabels(f), f.mirror.recordAgeHistogram);
      },
    );
    this.counter(
      'mirrorflow_transform_counter_total',
      "Counters kept by the flow's transforms (plugin API context.metrics.counter), per step and counter name.",
      TRANSFORM_LABELS,
      (emit) => {
        for (const f of replicating())
          for (const c of f.transformCounters) emit({ ...flowLabels(f), transform: c.transform, step: c.step, counter: c.name }, c.value);
      },
    );
    this.counter(
      'mirrorflow_records_dropped_total',
      "Records dropped by the flow's transforms.",
      FLOW_LABELS,
      perFlow(replicating, (f) => f.recordsDropped),
    );
    this.counter(
      'mirrorflow_records_skipped_total',
      'Records a flow with provenance headers did not copy: reason loop, the header says the target had the record already; reason duplicate, another flow of the pipeline delivered the same origin record into the target first (a diamond).',
      [...FLOW_LABELS, 'reason'],
      (emit) => {
        for (const f of replicating()) {
          if (f.provenance === undefined) continue;
          emit({ ...flowLabels(f), reason: 'loop' }, f.provenance.loops);
          emit({ ...flowLabels(f), reason: 'duplicate' }, f.provenance.duplicates);
        }
      },
    );
    this.counter(
      'mirrorflow_records_unchecked_total',
      "Records a flow with provenance headers wrote without knowing whether another flow had delivered them first: older than its target's diamond window (provenance.diamond_window).",
      FLOW_LABELS,
      perFlow(replicating, (f) => f.provenance?.unchecked),
    );
    this.gauge(
      'mirrorflow_diamond_window_ranges',
      "Ranges of origin offsets the flow holds in its target's diamond window (at most provenance.diamond_window).",
      FLOW_LABELS,
      perFlow(replicating, (f) => f.provenance?.windowRanges),
    );
    this.counter(
      'mirrorflow_record_batches_forwarded_total',
      'Source record batches written to the target as fetched, without decoding.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.recordBatchesForwarded),
    );
    this.counter(
      'mirrorflow_records_reencoded_total',
      'Records decoded and encoded again for the target (transforms, or batches not forwarded as fetched); the rest travel in their source batches.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.recordsReencoded),
    );
    this.counter(
      'mirrorflow_topics_created_total',
      'Remote topics the flow created on the target.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.topicsCreated),
    );
    this.counter(
      'mirrorflow_writes_total',
      'Acknowledged writes (produce rounds) to the target.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.writes),
    );
    this.gauge(
      'mirrorflow_buffer_bytes',
      'Bytes fetched from the source and not yet acknowledged by the target.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.buffer?.inFlightBytes),
    );
    this.gauge(
      'mirrorflow_buffer_max_bytes',
      'Bound of buffered bytes (buffer.max_bytes); fetching pauses at it.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.buffer?.maxBytes),
    );
    this.gauge(
      'mirrorflow_flow_state',
      "The flow's state: 1 for the current one, 0 for the others.",
      STATE_LABELS,
      perState(FLOW_STATES, flows, (f) => f.state),
    );
    this.gauge(
      'mirrorflow_flow_ready',
      'Whether the flow counts as ready on /ready: 1 when it runs and nothing it needs has failed for long, else 0.',
      FLOW_LABELS,
      (emit) => {
        const list = flows();
        const r = readiness(list, now());
        list.forEach((f, i) => emit(flowLabels(f), r.flows[i]?.ready === true ? 1 : 0));
      },
    );
    this.gauge(
      'mirrorflow_offsets_preserved_partitions',
      'Partitions of a flow with offsets: preserve whose target offsets equal the source offsets.',
      FLOW_LABELS,
      perFlow(flows, (f) => f.preservation?.partitions.filter((p) => p.preserved).length),
    );
    this.counter(
      'mirrorflow_offset_preservation_fallbacks_total',
      'Partitions of a flow with offsets: preserve that fell back to offset translation in this run (target not empty at the start, a gap in the source, a mismatch).',
      FLOW_LABELS,
      perFlow(flows, (f) => f.preservation?.fallbacks),
    );
    this.counter(
      'mirrorflow_source_resets_total',
      'Source logs found restarted below the stored position (topic recreated or truncated).',
      FLOW_LABELS,
      perFlow(flows, (f) => f.sourceResets),
    );
    this.counter(
      'mirrorflow_records_expired_total',
      "Source records removed (retention, DeleteRecords) before the flow copied them: the source log's start moved past the flow's position, and replication went on from it (the log names the partition and offsets).",
      FLOW_LABELS,
      perFlow(flows, (f) => f.recordsExpired),
    );
    this.counter(
      'mirrorflow_records_dead_lettered_total',
      'Records set aside to a dead-letter topic.',
      FLOW_LABELS,
      perFlow(flows, (f) => f.recordsDeadLettered),
    );
    this.gauge(
      'mirrorflow_outage_seconds',
      'How long a cluster operation of the flow has been failing and retried (an outage); absent when it works.',
      OUTAGE_LABELS,
      (emit) => {
        for (const f of flows())
          for (const o of f.outages) emit({ ...flowLabels(f), cluster: o.cluster, operation: o.operation }, Math.max(0, now() - o.since) / 1000);
      },
    );

    this.counter(
      'mirrorflow_errors_total',
      'Errors since start by kind (transport-retriable, transport, unavailable, authorization, record-refused, transform-failed, checkpoint-failed, config, other) and the cluster they concern: retried failures, records sent to the dead-letter topic, checkpoint failures, the failure that ended a flow.',
      ERROR_LABELS,
      (emit) => {
        for (const f of flows()) for (const e of f.errors ?? []) emit({ ...flowLabels(f), kind: e.kind, cluster: e.cluster }, e.count);
      },
    );
    this.counter(
      'mirrorflow_retries_total',
      'Retriable failures of a cluster operation since start, each retried (outages and single failures alike).',
      OUTAGE_LABELS,
      (emit) => {
        for (const f of flows()) for (const r of f.retries) emit({ ...flowLabels(f), cluster: r.cluster, operation: r.operation }, r.failures);
      },
    );
    // Checkpoints and group offset sync: MM2's MirrorCheckpointConnector.
    this.gauge(
      'mirrorflow_checkpoint_state',
      "The flow's checkpoints' state: 1 for the current one, 0 for the others.",
      STATE_LABELS,
      perState(CHECKPOINT_STATES, replicating, (f) => f.checkpoints.state),
    );
    this.gauge(
      'mirrorflow_checkpoint_groups',
      'Consumer groups being checkpointed.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.checkpoints.groups),
    );
    this.gauge(
      'mirrorflow_checkpoint_translation_lag_records',
      "Per group, how many records a consumer failing over to the target at the group's checkpoint reads again, at most: over the partitions checkpointed, the sum of the group's committed source offset minus the upstream offset of the offset sync its translation used, minus 1 (0 for the sync's own offset); at the last acknowledged checkpoint pass.",
      GROUP_LABELS,
      (emit) => {
        for (const f of replicating()) for (const g of f.checkpoints.translationLag) emit({ ...flowLabels(f), group: g.group }, g.records);
      },
    );
    this.counter(
      'mirrorflow_checkpoints_written_total',
      'Checkpoint records written and acknowledged.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.checkpoints.checkpointsWritten),
    );
    this.gauge(
      'mirrorflow_checkpoint_latency_ms',
      "From reading a group's source offsets to the acknowledgement of its checkpoints, last pass (MM2: checkpoint-latency-ms).",
      FLOW_LABELS,
      perFlow(replicating, (f) => f.checkpoints.lastCheckpointLatencyMs),
    );
    this.gauge(
      'mirrorflow_checkpoint_age_ms',
      'Time since the last completed checkpoint pass.',
      FLOW_LABELS,
      perFlow(replicating, (f) => ageMs(f.checkpoints.lastPassAt, now())),
    );
    this.counter(
      'mirrorflow_checkpoint_errors_total',
      'Checkpoint passes and group refreshes that failed (each is retried).',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.checkpoints.errors),
    );
    this.gauge(
      'mirrorflow_group_sync_state',
      'Per consumer group, its sync state on the flow: 1 for the current one (synced, checkpointed, active-on-target, not-translatable, no-replicated-offsets, cut-over, failed; filtered-out groups up to 200), absent for the others. /status says why.',
      [...GROUP_LABELS, 'state'],
      (emit) => {
        for (const f of replicating()) for (const g of f.checkpoints.groupStates ?? []) emit({ ...flowLabels(f), group: g.group, state: g.state }, 1);
      },
    );
    this.gauge(
      'mirrorflow_group_sync_groups',
      'Consumer groups of the source per sync state (filtered-out: every group the groups filter leaves out).',
      STATE_LABELS,
      (emit) => {
        for (const f of replicating()) {
          const counts = new Map<string, number>(GROUP_SYNC_STATE_NAMES.map((state) => [state, 0]));
          for (const g of f.checkpoints.groupStates ?? []) if (g.state !== 'filtered-out') counts.set(g.state, (counts.get(g.state) ?? 0) + 1);
          counts.set('filtered-out', f.checkpoints.groupsFilteredOut ?? 0);
          for (const [state, count] of counts) emit({ ...flowLabels(f), state }, count);
        }
      },
    );
    this.counter(
      'mirrorflow_group_sync_groups_synced_total',
      "Times a group's offsets were committed on the target (sync_group_offsets).",
      FLOW_LABELS,
      perFlow(replicating, (f) => f.checkpoints.groupSync.groupsSynced),
    );
    this.counter(
      'mirrorflow_group_sync_offsets_committed_total',
      'Partition offsets committed into target groups.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.checkpoints.groupSync.offsetsCommitted),
    );
    this.counter(
      'mirrorflow_group_sync_skipped_active_total',
      'Times a group was not synced because it had active members on the target.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.checkpoints.groupSync.skippedActive),
    );
    this.counter(
      'mirrorflow_group_sync_errors_total',
      'Group offset syncs that failed.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.checkpoints.groupSync.errors),
    );

    // Topic config sync: MM2's syncTopicConfigs.
    this.counter(
      'mirrorflow_topic_config_changes_applied_total',
      'Topic config changes (set or reset to default) the target applied to remote topics.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.configSync?.changesApplied ?? 0),
    );
    this.counter(
      'mirrorflow_topic_config_changes_refused_total',
      'Topic config changes the target refused (the log names the topic, config and reason).',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.configSync?.changesRefused ?? 0),
    );
    this.counter(
      'mirrorflow_topic_config_sync_errors_total',
      'Topic config sync passes that failed otherwise (each is retried at the next interval).',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.configSync?.errors ?? 0),
    );

    // Heartbeats: MM2's MirrorHeartbeatConnector.
    this.gauge(
      'mirrorflow_heartbeat_state',
      "The flow's heartbeats' state: 1 for the current one, 0 for the others.",
      STATE_LABELS,
      perState(HEARTBEAT_STATES, flows, (f) => f.heartbeats.state),
    );
    this.counter(
      'mirrorflow_heartbeats_written_total',
      'Heartbeats written and acknowledged.',
      FLOW_LABELS,
      perFlow(flows, (f) => f.heartbeats.written),
    );
    this.gauge(
      'mirrorflow_heartbeat_age_ms',
      'Time since the last acknowledged heartbeat.',
      FLOW_LABELS,
      perFlow(flows, (f) => ageMs(f.heartbeats.lastAt, now())),
    );
    this.counter(
      'mirrorflow_heartbeat_errors_total',
      'Heartbeat writes that failed.',
      FLOW_LABELS,
      perFlow(flows, (f) => f.heartbeats.errors),
    );

    // Continuous verification (verify.enabled): flows that run it only.
    const verifying = (): readonly FlowSnapshot[] => this.current.filter((f) => f.replicating && f.verify !== undefined && f.verify.state !== 'disabled');
    const perVerify = (read: (v: VerifySnapshot) => number | undefined) => perFlow(verifying, (f) => read(f.verify!));
    this.gauge(
      'mirrorflow_verify_state',
      "Continuous verification's state: 1 for the current one, 0 for the others (failing: its last pass could not read a cluster).",
      STATE_LABELS,
      perState(VERIFY_STATES, verifying, (f) => f.verify!.state),
    );
    this.counter(
      'mirrorflow_verify_records_total',
      'Source records continuous verification compared with their copies on the target.',
      FLOW_LABELS,
      perVerify((v) => v.records),
    );
    this.counter(
      'mirrorflow_verify_missing_records_total',
      "Source records below the flow's progress that continuous verification did not find on the target.",
      FLOW_LABELS,
      perVerify((v) => v.missing),
    );
    this.counter(
      'mirrorflow_verify_duplicate_records_total',
      'Extra copies of source records continuous verification found on the target.',
      FLOW_LABELS,
      perVerify((v) => v.duplicates),
    );
    this.counter(
      'mirrorflow_verify_unexpected_records_total',
      "Target records among the copies that copy no source record (another writer's), found by continuous verification.",
      FLOW_LABELS,
      perVerify((v) => v.unexpected),
    );
    this.counter(
      'mirrorflow_verify_skipped_records_total',
      'Copied records the read budget (verify.records_per_interval) left unverified.',
      FLOW_LABELS,
      perVerify((v) => v.skipped),
    );
    this.counter(
      'mirrorflow_verify_passes_total',
      'Continuous verification passes completed.',
      FLOW_LABELS,
      perVerify((v) => v.passes),
    );
    this.gauge(
      'mirrorflow_verify_age_ms',
      'Time since the last completed continuous verification pass.',
      FLOW_LABELS,
      perVerify((v) => ageMs(v.lastPassAt, now())),
    );
    this.counter(
      'mirrorflow_verify_errors_total',
      'Continuous verification passes (or reads of the offset syncs) that failed; each is tried again.',
      FLOW_LABELS,
      perVerify((v) => v.errors),
    );

    // Topic ACL sync: part of MM2's MirrorSourceConnector.
    this.counter(
      'mirrorflow_acls_created_total',
      'Topic ACLs created on the target by the ACL sync.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.acls.created),
    );
    this.counter(
      'mirrorflow_acls_skipped_total',
      'Source topic ACLs not copied to the target, each counted once, by reason (allow-write, wildcard, prefixed, not-replicated, refused).',
      [...FLOW_LABELS, 'reason'],
      (emit) => {
        for (const f of replicating()) for (const [reason, count] of Object.entries(f.acls.skipped)) emit({ ...flowLabels(f), reason }, count);
      },
    );
    this.counter(
      'mirrorflow_acl_sync_errors_total',
      'ACL sync passes that failed other than by an outage (a missing permission, say); each is tried again at the next interval.',
      FLOW_LABELS,
      perFlow(replicating, (f) => f.acls.errors),
    );
  }

  /** A histogram whose buckets the flow keeps (observed per batch, weighted by its records), read at every scrape. */
  private histogram(name: string, help: string, labelNames: readonly string[], read: (emit: (labels: Labels, h: HistogramSnapshot) => void) => void): void {
    const metric = {
      name,
      help,
      type: 'histogram',
      labelNames,
      aggregator: 'sum',
      get: () => {
        const values: { metricName: string; labels: Labels; value: number }[] = [];
        read((labels, h) => {
          h.bounds.forEach((bound, i) => values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: h.counts[i]! }));
          values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: h.count });
          values.push({ metricName: `${name}_sum`, labels, value: h.sum });
          values.push({ metricName: `${name}_count`, labels, value: h.count });
        });
        return { name, help, type: 'histogram', values, aggregator: 'sum' };
      },
      reset: () => undefined,
    };
    this.registry.registerMetric(metric as unknown as Metric);
  }

  /** A gauge recomputed from the snapshot at every scrape. */
  private gauge(name: string, help: string, labelNames: readonly string[], read: (emit: Emit) => void): void {
    const gauge: Gauge = new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect: () => {
        gauge.reset();
        read((labels, value) => gauge.set(labels, value));
      },
    });
  }

  /** A counter whose value is a total the flow already keeps, set from the snapshot at every scrape. */
  private counter(name: string, help: string, labelNames: readonly string[], read: (emit: Emit) => void): void {
    const counter: Counter = new Counter({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect: () => {
        counter.reset();
        read((labels, value) => counter.inc(labels, value));
      },
    });
  }
}

export interface MetricsOptions {
  /** Serve MM2's and Connect's metric names too (`http.mm2_metrics`, default true). */
  readonly mm2Names?: boolean;
}

function flowLabels(f: FlowSnapshot): Labels {
  return { flow: flowName(f), source: f.source, target: f.target };
}

function ageMs(at: number | undefined, now: number): number | undefined {
  return at === undefined ? undefined : Math.max(0, now - at);
}
