import { type FlowSnapshot, flowName } from './flow-snapshot';
import { type HttpResponse, errorResponse, jsonResponse } from './http-server';

/**
 * A read-only subset of Kafka Connect's REST API, so scripts written for MM2 keep working.
 *
 * MM2's dedicated mode runs, per `source->target` flow, a herder with three connectors named by
 * their class: MirrorSourceConnector, MirrorCheckpointConnector, MirrorHeartbeatConnector. One
 * mirrorflow process may run several flows, so a connector is named `<source>-><target>.<class>`
 * (as MM2's flow-scoped property keys, `primary->backup.topics`); when only one flow has a
 * connector of that class, the bare class name finds it too.
 */
export const CONNECTOR_CLASSES = ['MirrorSourceConnector', 'MirrorCheckpointConnector', 'MirrorHeartbeatConnector'] as const;
export type ConnectorClass = (typeof CONNECTOR_CLASSES)[number];

interface Connector {
  readonly name: string;
  readonly type: ConnectorClass;
  readonly flow: FlowSnapshot;
}

/** Connect's connector and task states. */
type ConnectState = 'RUNNING' | 'UNASSIGNED' | 'STOPPED' | 'FAILED';

export function connectors(flows: readonly FlowSnapshot[]): Connector[] {
  const out: Connector[] = [];
  for (const flow of flows) {
    const types: ConnectorClass[] = flow.replicating ? [...CONNECTOR_CLASSES] : ['MirrorHeartbeatConnector'];
    for (const type of types) out.push({ name: `${flowName(flow)}.${type}`, type, flow });
  }
  return out;
}

function findConnector(flows: readonly FlowSnapshot[], name: string): Connector | undefined {
  const all = connectors(flows);
  const exact = all.find((c) => c.name === name);
  if (exact) return exact;
  const byClass = all.filter((c) => c.type === name);
  return byClass.length === 1 ? byClass[0] : undefined;
}

function notFound(name: string): HttpResponse {
  return errorResponse(404, `Connector ${name} not found`);
}

/** `GET /connectors` (and `?expand=status`, as Connect answers it). */
export function listConnectors(flows: readonly FlowSnapshot[], workerId: string, expand: readonly string[]): HttpResponse {
  const all = connectors(flows);
  if (!expand.includes('status'))
    return jsonResponse(
      200,
      all.map((c) => c.name),
    );
  return jsonResponse(200, Object.fromEntries(all.map((c) => [c.name, { status: connectorStatus(c, workerId) }])));
}

/**
 * `GET /connectors/{name}` in Connect's shape: the config keys MM2 gives each of its connectors
 * (class, cluster aliases); the rest of the flow's settings live in the pipeline file.
 */
export function getConnectorInfo(flows: readonly FlowSnapshot[], name: string): HttpResponse {
  const c = findConnector(flows, name);
  if (c === undefined) return notFound(name);
  const { tasks } = connectState(c);
  return jsonResponse(200, {
    name: c.name,
    config: {
      name: c.name,
      'connector.class': `org.apache.kafka.connect.mirror.${c.type}`,
      'source.cluster.alias': c.flow.source,
      'target.cluster.alias': c.flow.target,
    },
    tasks: tasks === undefined ? [] : [{ connector: c.name, task: 0 }],
    type: 'source',
  });
}

/** `GET /connectors/{name}/status` in Connect's shape. */
export function getConnectorStatus(flows: readonly FlowSnapshot[], name: string, workerId: string): HttpResponse {
  const c = findConnector(flows, name);
  return c === undefined ? notFound(name) : jsonResponse(200, connectorStatus(c, workerId));
}

function connectorStatus(c: Connector, workerId: string): unknown {
  const { state, tasks } = connectState(c);
  // Connect adds `trace` to a FAILED connector or task: the error that ended it.
  const trace = (s: ConnectState): { trace?: string } => (s === 'FAILED' && c.flow.failure !== undefined ? { trace: c.flow.failure.trace } : {});
  return {
    name: c.name,
    connector: { state, worker_id: workerId, ...trace(state) },
    tasks: tasks === undefined ? [] : [{ id: 0, state: tasks, worker_id: workerId, ...trace(tasks) }],
    type: 'source',
  };
}

/** The connector's state, and its one task's (undefined: no task, as MM2 has none when the feature is off). */
function connectState(c: Connector): { state: ConnectState; tasks: ConnectState | undefined } {
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
 * `GET /connectors/{name}/offsets` in Connect's shape, from the flow's live positions: for
 * MirrorSourceConnector, per source partition, the last replicated offset under MM2's partition
 * keys — what the progress topic `mm2-offsets.<source>.internal` holds after the next flush.
 */
export function getConnectorOffsets(flows: readonly FlowSnapshot[], name: string): HttpResponse {
  const c = findConnector(flows, name);
  if (c === undefined) return notFound(name);
  switch (c.type) {
    case 'MirrorSourceConnector':
      return jsonResponse(200, {
        offsets: [...c.flow.partitions]
          .filter((p) => p.nextOffset > 0)
          .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
          // Key order as MM2 writes it (Java HashMap order): cluster, partition, topic.
          .map((p) => ({ partition: { cluster: c.flow.source, partition: p.partition, topic: p.topic }, offset: { offset: p.nextOffset - 1 } })),
      });
    case 'MirrorHeartbeatConnector':
      // MM2's heartbeat task stores one constant offset; there is nothing else to report.
      return jsonResponse(200, { offsets: [{ partition: { sourceClusterAlias: c.flow.source, targetClusterAlias: c.flow.target }, offset: { offset: 0 } }] });
    case 'MirrorCheckpointConnector':
      return errorResponse(501, 'Checkpoint offsets are not served here; `mirrorflow offsets translate FILE --group G` reads the checkpoints.');
  }
}
