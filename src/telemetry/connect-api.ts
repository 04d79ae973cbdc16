import { MASK, isSecretKey } from '../core/secrets';
import { type FlowSnapshot, flowName } from './flow-snapshot';
import { type HttpResponse, errorResponse, jsonResponse } from './http-server';

/**
 * The reading side of a subset of Kafka Connect's REST API, so scripts written for MM2 keep
 * working (the writing side: `connect-writes.ts`).
 *
 * MM2's dedicated mode runs, per `source->target` flow, a herder with three connectors named by
 * their class: MirrorSourceConnector, MirrorCheckpointConnector, MirrorHeartbeatConnector. One
 * mirrorflow process may run several flows, so a connector is named `<source>-><target>.<class>`
 * (as MM2's flow-scoped property keys, `primary->backup.topics`); when only one flow has a
 * connector of that class, the bare class name finds it too.
 */
export const CONNECTOR_CLASSES = ['MirrorSourceConnector', 'MirrorCheckpointConnector', 'MirrorHeartbeatConnector'] as const;
export type ConnectorClass = (typeof CONNECTOR_CLASSES)[number];

/** A connector by its name, class and flow. */
export interface ConnectorRef {
  readonly name: string;
  readonly type: ConnectorClass;
  readonly source: string;
  readonly target: string;
}

/** A source partition's stored offset: the last replicated source offset, as MM2 stores it. */
export interface StoredOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/** What the connector routes read besides the flows' snapshots. */
export interface ConnectorView {
  readonly flows: readonly FlowSnapshot[];
  /** Connectors paused through the API (PUT …/pause): listed as PAUSED even when their part of the flow no longer runs. */
  readonly paused: readonly ConnectorRef[];
  /** Connectors stopped through the API (PUT …/stop): listed as STOPPED, without tasks. */
  readonly stopped: readonly ConnectorRef[];
  /** A connector's running config when the pipeline was made from connector configs; undefined otherwise. */
  readonly config: (c: ConnectorRef) => Readonly<Record<string, string>> | undefined;
  /** The records per topic when the connector's active topics were last reset (PUT …/topics/reset); undefined: never. */
  readonly topicsReset?: (c: ConnectorRef) => ReadonlyMap<string, number> | undefined;
  /** A stopped MirrorSourceConnector's offsets as stored in its flow's progress topic. */
  readonly storedOffsets?: (c: ConnectorRef) => Promise<readonly StoredOffset[]>;
  /** Whether a connector of a running flow is configured (a pipeline of connector configs has only those it was given); all when absent. */
  readonly exists?: (c: ConnectorRef) => boolean;
  /** Connectors being restarted now: RESTARTING until their flow runs again. */
  readonly restarting?: ReadonlySet<string>;
}

export interface Connector extends ConnectorRef {
  /** Undefined for a paused or stopped connector whose flow no longer runs at all. */
  readonly flow: FlowSnapshot | undefined;
  readonly paused: boolean;
  readonly stopped: boolean;
  /** Being restarted (POST …/restart): RESTARTING until its flow runs again. */
  readonly restarting?: boolean;
}

/** A view of the flows alone: nothing paused, configs as MM2's driver gives its connectors. */
export function flowsOnly(flows: readonly FlowSnapshot[]): ConnectorView {
  return { flows, paused: [], stopped: [], config: () => undefined };
}

/** Connect's connector and task states. */
export type ConnectState = 'RUNNING' | 'UNASSIGNED' | 'STOPPED' | 'FAILED' | 'PAUSED' | 'RESTARTING';

export function connectors(view: ConnectorView): Connector[] {
  const out: Connector[] = [];
  const paused = new Set(view.paused.map((c) => c.name));
  const stopped = new Set(view.stopped.map((c) => c.name));
  const off = (name: string): boolean => paused.has(name) || stopped.has(name);
  for (const flow of view.flows) {
    const name = flowName(flow);
    const types: ConnectorClass[] = flow.replicating || off(`${name}.MirrorSourceConnector`) ? [...CONNECTOR_CLASSES] : ['MirrorHeartbeatConnector'];
    for (const type of types) {
      const ref = { name: `${name}.${type}`, type, source: flow.source, target: flow.target };
      if (view.exists !== undefined && !view.exists(ref) && !off(ref.name)) continue;
      out.push({ ...ref, flow, paused: paused.has(ref.name), stopped: stopped.has(ref.name), restarting: view.restarting?.has(ref.name) === true });
    }
  }
  for (const ref of [...view.paused, ...view.stopped])
    if (!out.some((c) => c.name === ref.name))
      out.push({ ...ref, flow: undefined, paused: paused.has(ref.name), stopped: stopped.has(ref.name), restarting: false });
  return out;
}

export function findConnector(view: ConnectorView, name: string): Connector | undefined {
  const all = connectors(view);
  const exact = all.find((c) => c.name === name);
  if (exact) return exact;
  const byClass = all.filter((c) => c.type === name);
  return byClass.length === 1 ? byClass[0] : undefined;
}

export function notFound(name: string): HttpResponse {
  return errorResponse(404, `Connector ${name} not found`);
}

/** `GET /connectors` (and `?expand=status`, `?expand=info`, both, as Connect answers them). */
export function listConnectors(view: ConnectorView, workerId: string, expand: readonly string[]): HttpResponse {
  const all = connectors(view);
  const status = expand.includes('status');
  const info = expand.includes('info');
  if (!status && !info)
    return jsonResponse(
      200,
      all.map((c) => c.name),
    );
  return jsonResponse(
    200,
    Object.fromEntries(
      all.map((c) => [c.name, { ...(info ? { info: connectorInfo(view, c) } : {}), ...(status ? { status: connectorStatus(c, workerId) } : {}) }]),
    ),
  );
}

/** `GET /connectors/{name}/tasks`: Connect's TaskInfo list, the one task MM2's connector has here. */
export function getConnectorTasks(view: ConnectorView, name: string): HttpResponse {
  const c = findConnector(view, name);
  if (c === undefined) return notFound(name);
  const { tasks } = connectState(c);
  return jsonResponse(
    200,
    tasks === undefined
      ? []
      : [
          {
            id: { connector: c.name, task: 0 },
            config: { ...connectorConfig(view, c), 'task.class': `org.apache.kafka.connect.mirror.${c.type.replace('Connector', 'Task')}` },
          },
        ],
  );
}

/** `GET /connectors/{name}/tasks/{task}/status`: Connect's TaskState. */
export function getTaskStatus(view: ConnectorView, name: string, task: string, workerId: string): HttpResponse {
  const c = findConnector(view, name);
  if (c === undefined) return notFound(name);
  const { tasks } = connectState(c);
  if (tasks === undefined || task !== '0') return errorResponse(404, `No status found for task ${c.name}-${task}`);
  const trace = tasks === 'FAILED' && c.flow?.failure !== undefined ? { trace: c.flow.failure.trace } : {};
  return jsonResponse(200, { id: 0, state: tasks, worker_id: workerId, ...trace });
}

/**
 * `GET /connectors/{name}/topics` (KIP-558): the topics the connector has written to since it
 * was created or its topics were last reset (PUT …/topics/reset), as Connect tracks them.
 */
export function getConnectorTopics(view: ConnectorView, name: string): HttpResponse {
  const c = findConnector(view, name);
  if (c === undefined) return notFound(name);
  const reset = view.topicsReset?.(c);
  const written = [...topicRecords(c)].filter(([topic, records]) => {
    const before = reset?.get(topic) ?? 0;
    // A flow that started again counts from 0: fewer records than at the reset are new ones.
    return records > before || (records > 0 && records < before);
  });
  return jsonResponse(200, { [c.name]: { topics: written.map(([topic]) => topic).sort() } });
}

/** Records the connector has written per (remote) topic, as the flow counts them now. */
export function topicRecords(c: Connector): Map<string, number> {
  const out = new Map<string, number>();
  if (c.type !== 'MirrorSourceConnector') return out;
  for (const p of c.flow?.mirror?.partitions ?? []) out.set(p.topic, (out.get(p.topic) ?? 0) + p.records);
  return out;
}

/** `GET /connector-plugins`: the three MM2 connectors, the only plugins this worker runs. */
export function listConnectorPlugins(version: string): HttpResponse {
  return jsonResponse(
    200,
    CONNECTOR_CLASSES.map((type) => ({ class: `org.apache.kafka.connect.mirror.${type}`, type: 'source', version })),
  );
}

/**
 * A connector's config as Connect shows it: the config it was given (PUT …/config, or its
 * connector file) when the pipeline was made from connector configs, else the keys MM2's driver
 * gives each of its connectors (class, cluster aliases; the rest lives in the pipeline file).
 * Secret values are masked.
 */
export function connectorConfig(view: ConnectorView, c: ConnectorRef): Record<string, string> {
  const given = view.config(c);
  if (given === undefined)
    return {
      name: c.name,
      'connector.class': `org.apache.kafka.connect.mirror.${c.type}`,
      'source.cluster.alias': c.source,
      'target.cluster.alias': c.target,
    };
  return Object.fromEntries(Object.entries({ ...given, name: c.name }).map(([k, v]) => [k, isSecretKey(k) ? MASK : v]));
}

/** Connect's ConnectorInfo: name, config, tasks, type. */
export function connectorInfo(view: ConnectorView, c: Connector): unknown {
  const { tasks } = connectState(c);
  return { name: c.name, config: connectorConfig(view, c), tasks: tasks === undefined ? [] : [{ connector: c.name, task: 0 }], type: 'source' };
}

/** `GET /connectors/{name}` in Connect's shape. */
export function getConnectorInfo(view: ConnectorView, name: string): HttpResponse {
  const c = findConnector(view, name);
  return c === undefined ? notFound(name) : jsonResponse(200, connectorInfo(view, c));
}

/** `GET /connectors/{name}/config`: the config alone, as Connect answers it. */
export function getConnectorConfig(view: ConnectorView, name: string): HttpResponse {
  const c = findConnector(view, name);
  return c === undefined ? notFound(name) : jsonResponse(200, connectorConfig(view, c));
}

/** `GET /connectors/{name}/status` in Connect's shape. */
export function getConnectorStatus(view: ConnectorView, name: string, workerId: string): HttpResponse {
  const c = findConnector(view, name);
  return c === undefined ? notFound(name) : jsonResponse(200, connectorStatus(c, workerId));
}

/** Connect's ConnectorStateInfo; `restarting` marks the connector and its task as a restart answer does (RESTARTING). */
export function connectorStatus(c: Connector, workerId: string, restarting?: { connector: boolean; tasks: boolean }): unknown {
  const now = connectState(c);
  const state = restarting?.connector === true ? 'RESTARTING' : now.state;
  const tasks = restarting?.tasks === true && now.tasks !== undefined ? 'RESTARTING' : now.tasks;
  // Connect adds `trace` to a FAILED connector or task: the error that ended it.
  const trace = (s: ConnectState): { trace?: string } => (s === 'FAILED' && c.flow?.failure !== undefined ? { trace: c.flow.failure.trace } : {});
  return {
    name: c.name,
    connector: { state, worker_id: workerId, ...trace(state) },
    tasks: tasks === undefined ? [] : [{ id: 0, state: tasks, worker_id: workerId, ...trace(tasks) }],
    type: 'source',
  };
}

/** The connector's state, and its one task's (undefined: no task, as MM2 has none when the feature is off). */
export function connectState(c: Connector): { state: ConnectState; tasks: ConnectState | undefined } {
  // A stopped connector has no tasks (Connect writes an empty set of task configs when it stops one).
  if (c.stopped) return { state: 'STOPPED', tasks: undefined };
  if (c.restarting === true) return { state: 'RESTARTING', tasks: 'RESTARTING' };
  if (c.paused || c.flow === undefined) return { state: 'PAUSED', tasks: 'PAUSED' };
  switch (c.type) {
    case 'MirrorSourceConnector': {
      const s = fromState(c.flow.state);
      return { state: s, tasks: s };
    }
    case 'MirrorCheckpointConnector': {
      const st = c.flow.checkpoints.state;
      return st === 'disabled' ? { state: 'RUNNING', tasks: undefined } : { state: 'RUNNING', tasks: fromState(st) };
    }
    case 'MirrorHeartbeatConnector': {
      const st = c.flow.heartbeats.state;
      return st === 'disabled' ? { state: 'RUNNING', tasks: undefined } : { state: 'RUNNING', tasks: fromState(st) };
    }
  }
}

function fromState(state: string): ConnectState {
  switch (state) {
    case 'running':
    case 'draining':
      return 'RUNNING';
    case 'stopped':
      return 'STOPPED';
    case 'failed':
      return 'FAILED';
    default:
      return 'UNASSIGNED';
  }
}

/**
 * `GET /connectors/{name}/offsets` in Connect's shape: for MirrorSourceConnector, per source
 * partition, the last replicated offset under MM2's partition keys — from the flow's live
 * positions while it runs (what the progress topic `mm2-offsets.<source>.internal` holds after
 * the next flush), from that topic once it is stopped.
 */
export async function getConnectorOffsets(view: ConnectorView, name: string): Promise<HttpResponse> {
  const c = findConnector(view, name);
  if (c === undefined) return notFound(name);
  switch (c.type) {
    case 'MirrorSourceConnector': {
      // Stopped, nothing replicates and the stored offsets are the whole truth (what PATCH changed too).
      const offsets =
        c.stopped && view.storedOffsets !== undefined
          ? await view.storedOffsets(c)
          : (c.flow?.partitions ?? []).filter((p) => p.nextOffset > 0).map((p) => ({ topic: p.topic, partition: p.partition, offset: p.nextOffset - 1 }));
      return jsonResponse(200, {
        offsets: [...offsets]
          .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
          // Key order as MM2 writes it (Java HashMap order): cluster, partition, topic.
          .map((p) => ({ partition: { cluster: c.source, partition: p.partition, topic: p.topic }, offset: { offset: p.offset } })),
      });
    }
    case 'MirrorHeartbeatConnector':
      // MM2's heartbeat task stores one constant offset; there is nothing else to report.
      return jsonResponse(200, { offsets: [{ partition: { sourceClusterAlias: c.source, targetClusterAlias: c.target }, offset: { offset: 0 } }] });
    case 'MirrorCheckpointConnector':
      return errorResponse(501, 'Checkpoint offsets are not served here; `mirrorflow offsets translate FILE --group G` reads the checkpoints.');
  }
}
