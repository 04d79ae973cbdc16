import type { Logger } from '../core/ports/logger';
import { type Connector, type ConnectorRef, type ConnectorView, connectState, connectorInfo, connectorStatus, findConnector, notFound } from './connect-api';
import { redactText } from './redact';
import { type HttpRequest, type HttpResponse, type Route, emptyResponse, errorResponse, jsonResponse } from './http-server';

/**
 * The writing side of the Connect-style REST API: `PUT /connectors/{name}/config`, `PUT
 * …/pause` and `…/resume`, `DELETE /connectors/{name}`, `POST …/restart`, with the status codes
 * of Connect's ConnectorsResource. What a write does to the pipeline is the `ConnectorWrites`
 * port's business (src/pipeline/connector-control.ts); these routes check the request, answer
 * 404 for an unknown connector and 409 while a change is being applied, as Connect answers
 * during a rebalance. Off (`http.connect_api: read_only`, the default), every write route answers
 * 405, as Connect answers a method a resource does not allow, naming the option.
 */
export interface ConnectorWrites extends ConnectorView {
  /** True while a change (a file reload, a REST change, a restart) is being applied. */
  readonly applying: boolean;
  /** Validates the config as a connector file would be and applies it; `created` when no such connector ran. */
  putConfig(name: string, config: Readonly<Record<string, string>>): Promise<{ created: boolean; connector: ConnectorRef }>;
  pause(c: ConnectorRef): Promise<void>;
  resume(c: ConnectorRef): Promise<void>;
  delete(c: ConnectorRef): Promise<void>;
  /** Stops the connector's flow (drained, progress stored) and starts it again. */
  restart(c: ConnectorRef): Promise<void>;
}

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
      const running = findConnector(view, connector.name) ?? { ...connector, flow: undefined, paused: false };
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

/** The body of `PUT …/config`: a JSON object of text values (numbers and booleans taken as text, as Connect takes them); a string says what is wrong. */
function parseConfigBody(body: string): Record<string, string> | string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return `The request body is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'The request body must be a JSON object of connector settings, e.g. {"connector.class": "MirrorSourceConnector", "source.cluster.alias": "primary", …}.';
  const config: Record<string, string> = {};
  const bad: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') config[key] = String(v);
    else bad.push(key);
  }
  if (bad.length > 0) return `Connector settings hold text values; these do not: ${bad.join(', ')}.`;
  return config;
}
