import type { Logger } from '../core/ports/logger';
import {
  type Connector,
  type ConnectorRef,
  type ConnectorView,
  connectState,
  connectorInfo,
  connectorStatus,
  findConnector,
  notFound,
  topicRecords,
} from './connect-api';
import { type SourceOffsetChange, checkOffsets, parseOffsetsBody, sourceOffsetChanges } from './connect-offsets-body';
import { redactText } from './redact';
import { type HttpRequest, type HttpResponse, type Route, emptyResponse, errorResponse, jsonResponse } from './http-server';

/**
 * The writing side of the Connect-style REST API, with the status codes and messages of
 * Connect's ConnectorsResource: `POST /connectors`, `PUT` and `PATCH /connectors/{name}/config`,
 * `PUT …/pause`, `…/resume` and `…/stop`, `DELETE /connectors/{name}`, `POST …/restart` and
 * `…/tasks/{task}/restart`, `PUT …/topics/reset`, `PATCH` and `DELETE …/offsets`. What a write
 * does to the pipeline is the `ConnectorWrites` port's business (src/pipeline/connector-control.ts);
 * these routes check the request, answer 404 for an unknown connector and 409 while a change is
 * being applied, as Connect answers during a rebalance. Off (`http.connect_api: read_only`, the
 * default), every write route answers 405, as Connect answers a method a resource does not
 * allow, naming the option.
 */
export interface ConnectorWrites extends ConnectorView {
  /** True while a change (a file reload, a REST change, a restart) is being applied. */
  readonly applying: boolean;
  /** Validates the config as a connector file would be and applies it; `created` when no such connector ran. */
  putConfig(name: string, config: Readonly<Record<string, string>>): Promise<{ created: boolean; connector: ConnectorRef }>;
  /** `POST /connectors`: a connector that does not run yet, started in `initial` (KIP-980); 409 when it exists. */
  create(name: string, config: Readonly<Record<string, string>>, initial: InitialState): Promise<ConnectorRef>;
  pause(c: ConnectorRef): Promise<void>;
  resume(c: ConnectorRef): Promise<void>;
  /** Connect's STOPPED: the connector's part of its flow stops (drained, progress stored) and its offsets may be changed. */
  stop(c: ConnectorRef): Promise<void>;
  delete(c: ConnectorRef): Promise<void>;
  /** Stops the connector's flow (drained, progress stored) and starts it again. */
  restart(c: ConnectorRef): Promise<void>;
  /** Forgets the connector's active topics (KIP-558): `baseline` is the records per topic now. */
  resetTopics(c: ConnectorRef, baseline: ReadonlyMap<string, number>): void;
  /** Writes a stopped MirrorSourceConnector's new offsets into its flow's progress (KIP-875). */
  alterOffsets(c: ConnectorRef, changes: readonly SourceOffsetChange[]): Promise<void>;
  /** Removes every stored offset of a stopped MirrorSourceConnector: its flow starts over as a new one (KIP-875). */
  resetOffsets(c: ConnectorRef): Promise<void>;
}

/** KIP-980's `initial_state` of `POST /connectors`. */
export type InitialState = 'RUNNING' | 'PAUSED' | 'STOPPED';

/** A refusal with Connect's status code and message, thrown by the `ConnectorWrites` port. */
export class ConnectRestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectRestError';
  }
}

/** Connect's 409 while its herder's config is changing (RebalanceNeededException). */
export const CONFLICT_MESSAGE =
  'Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change): a change to the pipeline is being applied; try again once it is done.';

export const READ_ONLY_MESSAGE =
  'HTTP 405 Method Not Allowed: the Connect-style REST API of this process is read-only; writes need http.connect_api: read_write in the pipeline file or mirrorflow run --connect-api read_write.';

export interface ConnectWriteOptions {
  readonly view: () => ConnectorView;
  readonly workerId: () => string;
  /** Undefined: writes are off (`read_only`). */
  readonly writes: ConnectorWrites | undefined;
  readonly logger: Logger;
}

export function connectWriteRoutes(options: ConnectWriteOptions): Route[] {
  const { writes } = options;
  const write = (method: Route['method'], path: string, handle: (w: ConnectorWrites, req: HttpRequest) => Promise<HttpResponse>): Route => ({
    method,
    path,
    handle: async (req) => {
      if (writes === undefined) return errorResponse(405, READ_ONLY_MESSAGE);
      if (writes.applying) return errorResponse(409, CONFLICT_MESSAGE);
      try {
        return await handle(writes, req);
      } catch (error) {
        // A problem may quote a value of the config, which may be a password.
        if (error instanceof ConnectRestError) return errorResponse(error.status, redactText(error.message));
        throw error;
      }
    },
  });
  /** The named connector, or the 404 answer. */
  const named = (req: HttpRequest): Connector | HttpResponse => findConnector(options.view(), req.params['name']!) ?? notFound(req.params['name']!);
  const isResponse = (c: Connector | HttpResponse): c is HttpResponse => 'status' in c;

  return [
    write('POST', '/connectors', async (w, req) => {
      const request = parseCreateBody(req.body);
      if (typeof request === 'string') return errorResponse(400, request);
      const { name, config, initial } = request;
      const included = config['name'];
      if (included !== undefined && included !== name)
        return errorResponse(400, `Connector name configuration (${included}) doesn't match connector name in the URL (${name})`);
      if (findConnector(options.view(), name) !== undefined) return errorResponse(409, `Connector ${name} already exists`);
      const connector = await w.create(name, { ...config, name }, initial);
      const view = options.view();
      const running = findConnector(view, connector.name) ?? { ...connector, flow: undefined, paused: false, stopped: false };
      return jsonResponse(201, connectorInfo(view, running));
    }),
    write('PATCH', '/connectors/{name}/config', async (w, req) => {
      const c = named(req);
      if (isResponse(c)) return c;
      const patch = parseConfigBody(req.body, true);
      if (typeof patch === 'string') return errorResponse(400, patch);
      const included = patch['name'];
      if (included !== undefined && included !== null && included !== c.name)
        return errorResponse(400, `Connector name configuration (${included}) doesn't match connector name in the URL (${c.name})`);
      const config: Record<string, string> = { ...(options.view().config(c) ?? {}) };
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete config[key];
        else config[key] = value;
      }
      const { connector } = await w.putConfig(c.name, { ...config, name: c.name });
      const view = options.view();
      return jsonResponse(200, connectorInfo(view, findConnector(view, connector.name) ?? { ...connector, flow: undefined, paused: false, stopped: false }));
    }),
    write('PUT', '/connectors/{name}/stop', async (w, req) => {
      const c = named(req);
      if (isResponse(c)) return c;
      await w.stop(c);
      return emptyResponse(204);
    }),
    write('POST', '/connectors/{name}/tasks/{task}/restart', async (w, req) => {
      const c = named(req);
      if (isResponse(c)) return c;
      // The one task of an MM2 connector here is task 0, there while the connector has a task.
      if (req.params['task'] !== '0' || connectState(c).tasks === undefined) return errorResponse(404, `Task ${c.name}-${req.params['task']} not found`);
      await w.restart(c);
      return emptyResponse(204);
    }),
    write('PUT', '/connectors/{name}/topics/reset', (w, req) => {
      const c = named(req);
      if (isResponse(c)) return Promise.resolve(c);
      w.resetTopics(c, topicRecords(c));
      return Promise.resolve(emptyResponse(202));
    }),
    write('PATCH', '/connectors/{name}/offsets', async (w, req) => {
      const changes = parseOffsetsBody(req.body);
      if (typeof changes === 'string') return errorResponse(400, changes);
      const c = named(req);
      if (isResponse(c)) return c;
      if (!c.stopped) return errorResponse(400, notStoppedMessage(c.name));
      const problem = checkOffsets(c.type, changes);
      if (problem !== undefined) return errorResponse(400, problem);
      if (c.type !== 'MirrorSourceConnector') return jsonResponse(200, { message: keepsNoOffsets(c) });
      const source = sourceOffsetChanges(changes);
      if (typeof source === 'string') return errorResponse(400, source);
      await w.alterOffsets(c, source);
      return jsonResponse(200, { message: 'The offsets for this connector have been altered successfully' });
    }),
    write('DELETE', '/connectors/{name}/offsets', async (w, req) => {
      const c = named(req);
      if (isResponse(c)) return c;
      if (!c.stopped) return errorResponse(400, notStoppedMessage(c.name));
      if (c.type !== 'MirrorSourceConnector') return jsonResponse(200, { message: keepsNoOffsets(c) });
      await w.resetOffsets(c);
      return jsonResponse(200, { message: 'The offsets for this connector have been reset successfully' });
    }),
    write('PUT', '/connectors/{name}/config', async (w, req) => {
      const name = req.params['name']!;
      const config = parseConfigBody(req.body);
      if (typeof config === 'string') return errorResponse(400, config);
      const included = config['name'];
      // Connect's checkAndPutConnectorConfigName.
      if (included !== undefined && included !== name)
        return errorResponse(400, `Connector name configuration (${included}) doesn't match connector name in the URL (${name})`);
      const { created, connector } = await w.putConfig(name, { ...config, name });
      const view = options.view();
      const running = findConnector(view, connector.name) ?? { ...connector, flow: undefined, paused: false, stopped: false };
      return jsonResponse(created ? 201 : 200, connectorInfo(view, running));
    }),
    write('PUT', '/connectors/{name}/pause', async (w, req) => {
      const c = named(req);
      if (isResponse(c)) return c;
      await w.pause(c);
      return emptyResponse(202);
    }),
    write('PUT', '/connectors/{name}/resume', async (w, req) => {
      const c = named(req);
      if (isResponse(c)) return c;
      await w.resume(c);
      return emptyResponse(202);
    }),
    write('DELETE', '/connectors/{name}', async (w, req) => {
      const c = named(req);
      if (isResponse(c)) return c;
      await w.delete(c);
      return emptyResponse(204);
    }),
    write('POST', '/connectors/{name}/restart', async (w, req) => {
      const c = named(req);
      if (isResponse(c)) return c;
      const includeTasks = queryFlag(req.query.get('includeTasks'));
      const onlyFailed = queryFlag(req.query.get('onlyFailed'));
      // Connect restarts the connector alone and answers 204 once it did; with either flag it
      // plans the restart, answers 202 with the planned states (RESTARTING) and restarts after.
      if (!includeTasks && !onlyFailed) {
        await w.restart(c);
        return emptyResponse(204);
      }
      const now = connectState(c);
      const restarting = {
        connector: !onlyFailed || now.state === 'FAILED',
        tasks: includeTasks && now.tasks !== undefined && (!onlyFailed || now.tasks === 'FAILED'),
      };
      const answer = jsonResponse(202, connectorStatus(c, options.workerId(), restarting));
      if (restarting.connector || restarting.tasks) {
        w.restart(c).catch((error: unknown) =>
          options.logger.error('Restarting a connector failed.', { connector: c.name, error: error instanceof Error ? error.message : String(error) }),
        );
      }
      return answer;
    }),
  ];
}

/** Connect reads its boolean query parameters as Java's Boolean.valueOf does: "true" in any case, else false. */
function queryFlag(value: string | null): boolean {
  return value !== null && value.toLowerCase() === 'true';
}

/** Connect's answer to offsets changes of a connector that is not stopped (its herders' modifyConnectorOffsetsChecks). */
export function notStoppedMessage(name: string): string {
  return (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the " +
    `'/connectors/${name}/stop' endpoint`
  );
}

/** The checkpoint and heartbeat connectors' offsets: MM2 stores a constant 0 it never reads again; mirrorflow stores none. */
function keepsNoOffsets(c: ConnectorRef): string {
  return `${c.type} keeps no offsets in mirrorflow (MM2's are always 0 and never read back), so there was nothing to change; the offsets of a flow's progress are its MirrorSourceConnector's.`;
}

/** The body of `PUT …/config` (or, `patch`, of `PATCH …/config`, where null removes a key): a JSON object of text values (numbers and booleans taken as text, as Connect takes them); a string says what is wrong. */
function parseConfigBody(body: string): Record<string, string> | string;
function parseConfigBody(body: string, patch: true): Record<string, string | null> | string;
function parseConfigBody(body: string, patch = false): Record<string, string | null> | string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return `The request body is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  return configOf(value, patch);
}

function configOf(value: unknown, patch = false): Record<string, string | null> | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'The request body must be a JSON object of connector settings, e.g. {"connector.class": "MirrorSourceConnector", "source.cluster.alias": "primary", …}.';
  const config: Record<string, string | null> = {};
  const bad: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') config[key] = String(v);
    else if (v === null && patch) config[key] = null;
    else bad.push(key);
  }
  if (bad.length > 0) return `Connector settings hold text values; these do not: ${bad.join(', ')}.`;
  return config;
}

/** The body of `POST /connectors`, Connect's CreateConnectorRequest: `{name, config, initial_state}`. */
function parseCreateBody(body: string): { name: string; config: Record<string, string>; initial: InitialState } | string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return `The request body is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'The request body must be {"name": "<connector>", "config": {…connector settings…}}, optionally with "initial_state".';
  const { name, config, initial_state: initial } = value as Record<string, unknown>;
  // Connect trims the name, and takes a missing one as empty.
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed === '')
    return 'Connector configuration is invalid and contains the following 1 error(s):\nInvalid value  for configuration name: String may not be empty';
  if (config === undefined || config === null) return 'The request body has no "config": {"name": "<connector>", "config": {…connector settings…}}.';
  const settings = configOf(config);
  if (typeof settings === 'string') return settings;
  let state: InitialState = 'RUNNING';
  if (initial !== undefined && initial !== null) {
    const upper = typeof initial === 'string' ? initial.toUpperCase() : '';
    if (upper !== 'RUNNING' && upper !== 'PAUSED' && upper !== 'STOPPED')
      return `initial_state ${JSON.stringify(initial)} is none of RUNNING, PAUSED, STOPPED.`;
    state = upper;
  }
  return { name: trimmed, config: settings as Record<string, string>, initial: state };
}
