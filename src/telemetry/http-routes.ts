import { type Logger, silentLogger } from '../core/ports/logger';
import type { FlowSnapshot } from './flow-snapshot';
import {
  type ConnectorView,
  flowsOnly,
  getConnectorConfig,
  getConnectorInfo,
  getConnectorOffsets,
  getConnectorStatus,
  getConnectorTasks,
  getConnectorTopics,
  getTaskStatus,
  listConnectorPlugins,
  listConnectors,
} from './connect-api';
import { type ConnectorWrites, connectWriteRoutes } from './connect-writes';
import { connectLoggerRoutes } from './connect-loggers';
import type { LogLevels } from './log-levels';
import { type HttpResponse, type Route, jsonResponse } from './http-server';
import type { Metrics } from './metrics';
import { readiness } from './readiness';
import { statusDocument } from './status-document';
import { statusPage } from './status-page';
import { type OffsetTranslator, offsetsTranslateRoute } from './offsets-route';

export interface HttpRoutesOptions {
  readonly pipeline: string;
  /** Every flow's live status, copied per request. */
  readonly snapshots: () => readonly FlowSnapshot[];
  readonly metrics: Metrics;
  /** `worker_id` in Connect-style answers: the address this process serves on. */
  readonly workerId: () => string;
  /**
   * The connectors' paused state and running configs, and what the write routes do; without it
   * the connectors are the flows' and writes are off. `writes` undefined: `http.connect_api: read_only`.
   */
  readonly connectors?: { readonly view: () => ConnectorView; readonly writes: ConnectorWrites | undefined };
  readonly logger?: Logger;
  /** Answers `GET /offsets/translate` (offsets-route.ts); without it the route says it is not served. */
  readonly offsets?: OffsetTranslator;
  /** The named loggers' levels, for `/admin/loggers`; without it those routes are absent. */
  readonly levels?: LogLevels;
  /** What `GET /` answers a JSON client, as a Connect worker does (kcctl asks it first). */
  readonly workerInfo?: () => { readonly version: string; readonly commit: string; readonly kafka_cluster_id: string | null };
}

/** Whether an Accept header asks for JSON before HTML: a REST client (kcctl) does; a browser, curl's `*\/*` and no header get the page. */
function wantsJson(accept: string): boolean {
  const json = accept.indexOf('application/json');
  const html = accept.indexOf('text/html');
  return json >= 0 && (html < 0 || json < html);
}

/** The endpoints of `mirrorflow run`: the status page, metrics, health, readiness, status and the Connect subset. */
export function httpRoutes(options: HttpRoutesOptions): Route[] {
  const { snapshots } = options;
  const view = options.connectors?.view ?? ((): ConnectorView => flowsOnly(snapshots()));
  const page = statusPage(options.pipeline);
  return [
    {
      method: 'GET',
      path: '/',
      // A browser asks for text/html first; a REST client (kcctl, curl -H 'Accept: application/json') gets Connect's ServerInfo.
      handle: (req) =>
        wantsJson(req.accept ?? '')
          ? jsonResponse(200, options.workerInfo?.() ?? { version: 'unknown', commit: 'unknown', kafka_cluster_id: null })
          : { status: 200, contentType: 'text/html; charset=utf-8', body: page },
    },
    {
      method: 'GET',
      path: '/metrics',
      handle: async (): Promise<HttpResponse> => ({ status: 200, contentType: options.metrics.contentType, body: await options.metrics.render() }),
    },
    { method: 'GET', path: '/healthz', handle: () => jsonResponse(200, { status: 'UP' }) },
    {
      method: 'GET',
      path: '/ready',
      handle: () => {
        const r = readiness(snapshots());
        return jsonResponse(r.ready ? 200 : 503, r);
      },
    },
    {
      method: 'GET',
      path: '/status',
      handle: () => jsonResponse(200, statusDocument(options.pipeline, snapshots(), Date.now(), { worker: options.workerId(), pid: process.pid })),
    },
    {
      method: 'GET',
      path: '/connectors',
      handle: (req) => listConnectors(view(), options.workerId(), req.query.getAll('expand')),
    },
    { method: 'GET', path: '/connectors/{name}', handle: (req) => getConnectorInfo(view(), req.params['name']!) },
    { method: 'GET', path: '/connectors/{name}/config', handle: (req) => getConnectorConfig(view(), req.params['name']!) },
    { method: 'GET', path: '/connectors/{name}/status', handle: (req) => getConnectorStatus(view(), req.params['name']!, options.workerId()) },
    { method: 'GET', path: '/connectors/{name}/offsets', handle: (req) => getConnectorOffsets(view(), req.params['name']!) },
    offsetsTranslateRoute(options.offsets),
    { method: 'GET', path: '/connectors/{name}/tasks', handle: (req) => getConnectorTasks(view(), req.params['name']!) },
    {
      method: 'GET',
      path: '/connectors/{name}/tasks/{task}/status',
      handle: (req) => getTaskStatus(view(), req.params['name']!, req.params['task']!, options.workerId()),
    },
    { method: 'GET', path: '/connectors/{name}/topics', handle: (req) => getConnectorTopics(view(), req.params['name']!) },
    { method: 'GET', path: '/connector-plugins', handle: () => listConnectorPlugins(options.workerInfo?.().version ?? 'unknown') },
    ...connectWriteRoutes({ view, workerId: options.workerId, writes: options.connectors?.writes, logger: options.logger ?? silentLogger }),
    ...(options.levels === undefined
      ? []
      : connectLoggerRoutes({ levels: options.levels, writable: options.connectors?.writes !== undefined, logger: options.logger ?? silentLogger })),
  ];
}
