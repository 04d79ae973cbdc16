/**
 * The metrics an MM2 deployment on Strimzi serves, under the names its JMX exporter rules give
 * them (examples/metrics/kafka-mirror-maker-2-metrics.yaml: lowercased, `-` as `_`), so Strimzi's
 * MM2 dashboard, its alert rules and the runbooks written on them keep working:
 *
 * - `kafka_connect_mirror_mirrorsourceconnector_<metric>{source, target, topic, partition}` with
 *   `topic` the REMOTE topic (MirrorSourceMetrics names partitions with formatRemoteTopic; `source`
 *   is always there, as in Kafka 4.0 and 3.x with add.source.alias.to.metrics);
 * - `kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms{source, target, group, topic, partition}`;
 * - Connect's worker, task, coordinator and client series, their `connector` and `clientid` labels
 *   quoted as JMX quotes them (`"primary->backup.MirrorSourceConnector"`: Connect's names hold
 *   `>`), which is what the dashboard's matchers expect.
 *
 * Values are MM2's: counts since start, rates and min/max/avg over Kafka's window (two 30 s
 * samples), NaN where that window saw nothing (Kafka's Min, Max and Avg), all as GAUGE, as the
 * exporter rules type them. Read from the flows' snapshot at scrape time, like every metric.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { type ConnectState, connectState, connectors, flowsOnly } from './connect-api';
import { type FlowSnapshot, type WindowedSnapshot, flowName, partitionLag } from './flow-snapshot';

type Labels = Record<string, string | number>;
type Emit = (labels: Labels, value: number) => void;

/** Kafka's Sanitizer.jmxSanitize: a value JMX cannot hold as it is, quoted as ObjectName.quote does. */
export function jmxQuote(value: string): string {
  if (/^[\w\-%. \t]*$/.test(value)) return value;
  return `"${value.replace(/[\\"*?\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))}"`;
}

const SOURCE = 'kafka_connect_mirror_mirrorsourceconnector_';
const CHECKPOINT = 'kafka_connect_mirror_mirrorcheckpointconnector_';
const PARTITION_LABELS = ['source', 'target', 'topic', 'partition'] as const;
const CHECKPOINT_LABELS = ['source', 'target', 'group', 'topic', 'partition'] as const;
const TASK_LABELS = ['connector', 'task'] as const;

/** Connect's connector-task status as its metric says it (`running`, `failed`, …). */
const statusName = (state: ConnectState): string => state.toLowerCase();

/** The client ids MM2 and Connect give a flow's clients (MirrorConnectorConfig, Worker), before JMX quoting. */
export function mm2ClientIds(flow: { readonly source: string; readonly target: string }): { consumer: string; producer: string; worker: string } {
  const name = flowName(flow);
  return {
    consumer: `${name}|${name}.MirrorSourceConnector|replication-consumer`,
    producer: `connector-producer-${name}.MirrorSourceConnector-0`,
    worker: name,
  };
}

/**
 * Registers the MM2- and Connect-named series on `registry`; `read` gives the scrape's snapshot
 * and its time (the one every other metric of the scrape reads).
 */
export function registerMm2Metrics(registry: Registry, read: () => { readonly flows: readonly FlowSnapshot[]; readonly now: number }): void {
  const gauge = (name: string, help: string, labelNames: readonly string[], collect: (emit: Emit) => void): void => {
    const g: Gauge = new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect: () => {
        g.reset();
        collect((labels, value) => g.set(labels, value));
      },
    });
  };
  const counter = (name: string, help: string, labelNames: readonly string[], collect: (emit: Emit) => void): void => {
    const c: Counter = new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect: () => {
        c.reset();
        collect((labels, value) => c.inc(labels, value));
      },
    });
  };
  const replicating = (): readonly FlowSnapshot[] => read().flows.filter((f) => f.replicating);
  type Partition = NonNullable<FlowSnapshot['mirror']>['partitions'][number];
  const perPartition = (value: (p: Partition) => number) => (emit: Emit) => {
    for (const f of replicating())
      for (const p of f.mirror?.partitions ?? []) emit({ source: f.source, target: f.target, topic: p.topic, partition: p.partition }, value(p));
  };
  const windowed = (metric: string, help: string, of: (p: Partition) => WindowedSnapshot): void => {
    gauge(
      `${SOURCE}${metric}`,
      `${help} Last value (MM2: ${metric.replace(/_/g, '-')}).`,
      PARTITION_LABELS,
      perPartition((p) => of(p).last ?? Number.NaN),
    );
    for (const [suffix, what] of [
      ['min', 'Min'],
      ['max', 'Max'],
      ['avg', 'Average'],
    ] as const)
      gauge(
        `${SOURCE}${metric}_${suffix}`,
        `${help} ${what} over the last 30 to 60 s, NaN when none (MM2: ${metric.replace(/_/g, '-')}-${suffix}).`,
        PARTITION_LABELS,
        perPartition((p) => of(p)[suffix]),
      );
  };

  // MirrorSourceMetrics.
  gauge(
    `${SOURCE}record_count`,
    'Records replicated to the target and acknowledged, per remote topic-partition (MM2: record-count).',
    PARTITION_LABELS,
    perPartition((p) => p.records),
  );
  gauge(
    `${SOURCE}record_rate`,
    'Records replicated per second over the last 30 to 60 s (MM2: record-rate).',
    PARTITION_LABELS,
    perPartition((p) => p.recordRate),
  );
  gauge(
    `${SOURCE}byte_count`,
    'Bytes replicated, keys, values and headers (MM2 counts values only) (MM2: byte-count).',
    PARTITION_LABELS,
    perPartition((p) => p.bytes),
  );
  gauge(
    `${SOURCE}byte_rate`,
    'Bytes replicated per second over the last 30 to 60 s (MM2: byte-rate).',
    PARTITION_LABELS,
    perPartition((p) => p.byteRate),
  );
  windowed('record_age_ms', "Age of records when fetched: now minus the record's source timestamp, ms.", (p) => p.recordAge);
  windowed('replication_latency_ms', "From a record's source timestamp to the target's acknowledgement, ms.", (p) => p.replicationLatency);

  // MirrorCheckpointMetrics.
  const checkpoints = (value: (l: WindowedSnapshot) => number) => (emit: Emit) => {
    for (const f of replicating())
      for (const c of f.mirror?.checkpointLatency ?? [])
        emit({ source: f.source, target: f.target, group: c.group, topic: c.topic, partition: c.partition }, value(c.latency));
  };
  gauge(
    `${CHECKPOINT}checkpoint_latency_ms`,
    "From reading a group's source offsets to the acknowledgement of its checkpoint, per group and remote topic-partition, ms; last value (MM2: checkpoint-latency-ms).",
    CHECKPOINT_LABELS,
    checkpoints((l) => l.last ?? Number.NaN),
  );
  for (const suffix of ['min', 'max', 'avg'] as const)
    gauge(
      `${CHECKPOINT}checkpoint_latency_ms_${suffix}`,
      `Checkpoint latency, ${suffix} over the last 30 to 60 s, NaN when none, ms (MM2: checkpoint-latency-ms-${suffix}).`,
      CHECKPOINT_LABELS,
      checkpoints((l) => l[suffix]),
    );

  // Connect's worker: the connectors and tasks this process runs.
  const running = (): { connector: string; type: string; flow: FlowSnapshot; state: ConnectState; task: ConnectState | undefined }[] => {
    const flows = read().flows;
    return connectors(flowsOnly(flows)).map((c) => {
      const s = connectState(c);
      return { connector: jmxQuote(c.name), type: c.type, flow: c.flow!, state: s.state, task: s.tasks };
    });
  };
  gauge('kafka_connect_worker_connector_count', "Connectors this process runs (Connect's connect-worker-metrics connector-count).", [], (emit) =>
    emit({}, running().length),
  );
  gauge('kafka_connect_worker_task_count', "Tasks this process runs (Connect's connect-worker-metrics task-count).", [], (emit) =>
    emit({}, running().filter((c) => c.task !== undefined).length),
  );
  for (const [metric, state] of [
    ['running', 'RUNNING'],
    ['paused', 'PAUSED'],
    ['failed', 'FAILED'],
    ['unassigned', 'UNASSIGNED'],
  ] as const)
    gauge(
      `kafka_connect_worker_connector_${metric}_task_count`,
      `The connector's tasks that are ${metric} (Connect: connector-${metric}-task-count).`,
      ['connector'],
      (emit) => {
        for (const c of running()) emit({ connector: c.connector }, c.task === state ? 1 : 0);
      },
    );
  gauge('kafka_connect_worker_connector_total_task_count', "The connector's tasks (Connect: connector-total-task-count).", ['connector'], (emit) => {
    for (const c of running()) emit({ connector: c.connector }, c.task === undefined ? 0 : 1);
  });
  gauge(
    'kafka_connect_connector_status',
    "1 for each task's current status (running, paused, failed, unassigned, restarting, stopped), as Strimzi's MM2 rules name connector-task-metrics status.",
    [...TASK_LABELS, 'status'],
    (emit) => {
      for (const c of running()) if (c.task !== undefined) emit({ connector: c.connector, task: 0, status: statusName(c.task) }, 1);
    },
  );
  gauge(
    'kafka_connect_worker_rebalance_rebalancing',
    'Whether a flow of this process is joining its group (starting): 1, else 0 (Connect: connect-worker-rebalance-metrics rebalancing).',
    [],
    (emit) => emit({}, read().flows.some((f) => f.replicating && f.state === 'starting') ? 1 : 0),
  );
  const sourceTasks = (): FlowSnapshot[] => replicating().filter((f) => f.mirror !== undefined);
  gauge(
    'kafka_connect_source_task_source_record_active_count',
    "Records fetched from the source and not yet acknowledged by the target (Connect's source-task-metrics source-record-active-count).",
    TASK_LABELS,
    (emit) => {
      for (const f of sourceTasks())
        emit(
          { connector: jmxQuote(`${flowName(f)}.MirrorSourceConnector`), task: 0 },
          f.mirror!.partitions.reduce((n, p) => n + p.inFlight, 0),
        );
    },
  );
  for (const [suffix, of] of [
    ['avg', (w: WindowedSnapshot) => w.avg],
    ['max', (w: WindowedSnapshot) => w.max],
  ] as const)
    gauge(
      `kafka_connect_connector_task_offset_commit_${suffix}_time_ms`,
      `How long storing the flow's progress took, ${suffix} over the last 30 to 60 s, NaN when none, ms (Connect: offset-commit-${suffix}-time-ms).`,
      TASK_LABELS,
      (emit) => {
        for (const f of sourceTasks()) emit({ connector: jmxQuote(`${flowName(f)}.MirrorSourceConnector`), task: 0 }, of(f.mirror!.offsetCommit));
      },
    );
  gauge(
    'kafka_connect_coordinator_assigned_connectors',
    "Connectors of the flow this process was assigned (Connect's connect-coordinator-metrics assigned-connectors).",
    ['clientid'],
    (emit) => {
      const byFlow = new Map<string, number>();
      for (const c of running()) byFlow.set(flowName(c.flow), (byFlow.get(flowName(c.flow)) ?? 0) + 1);
      for (const [flow, n] of byFlow) emit({ clientid: jmxQuote(flow) }, n);
    },
  );
  gauge(
    'kafka_connect_coordinator_assigned_tasks',
    "Tasks of the flow this process was assigned (Connect's connect-coordinator-metrics assigned-tasks).",
    ['clientid'],
    (emit) => {
      const byFlow = new Map<string, number>();
      for (const c of running()) if (c.task !== undefined) byFlow.set(flowName(c.flow), (byFlow.get(flowName(c.flow)) ?? 0) + 1);
      for (const [flow, n] of byFlow) emit({ clientid: jmxQuote(flow) }, n);
    },
  );

  // The clients: MM2's replication consumer, Connect's producer.
  gauge(
    'kafka_consumer_fetch_manager_records_lag',
    "Records on the source partition not yet fetched or replicated: high watermark minus the next offset to replicate (the replication consumer's records-lag).",
    ['clientid', 'topic', 'partition'],
    (emit) => {
      for (const f of replicating())
        for (const p of f.partitions) emit({ clientid: jmxQuote(mm2ClientIds(f).consumer), topic: p.topic, partition: p.partition }, partitionLag(p));
    },
  );
  counter(
    'kafka_consumer_incoming_byte_total',
    "Record bytes fetched from the source: replicated, and in flight (the replication consumer's incoming-byte-total counts the wire).",
    ['clientid'],
    (emit) => {
      for (const f of replicating()) emit({ clientid: jmxQuote(mm2ClientIds(f).consumer) }, f.bytesReplicated + (f.buffer?.inFlightBytes ?? 0));
    },
  );
  counter(
    'kafka_producer_outgoing_byte_total',
    "Record bytes written to the target and acknowledged (the producer's outgoing-byte-total counts the wire).",
    ['clientid'],
    (emit) => {
      for (const f of replicating()) emit({ clientid: jmxQuote(mm2ClientIds(f).producer) }, f.bytesReplicated);
    },
  );
  gauge(
    'kafka_producer_buffer_available_bytes',
    "Room left in the flow's buffer (buffer.max_bytes minus bytes in flight), mirrorflow's bound in place of the producer's buffer.memory.",
    ['clientid'],
    (emit) => {
      for (const f of replicating())
        if (f.buffer !== undefined) emit({ clientid: jmxQuote(mm2ClientIds(f).producer) }, Math.max(0, f.buffer.maxBytes - f.buffer.inFlightBytes));
    },
  );
}
