import type { FlowSnapshot } from './flow-snapshot';
import { getConnectorInfo, getConnectorOffsets, getConnectorStatus, listConnectors } from './connect-api';
import { type HttpResponse, type Route, jsonResponse } from './http-server';
import type { Metrics } from './metrics';
import { readiness } from './readiness';
import { statusDocument } from './status-document';
import { statusPage } from './status-page';

export interface HttpRoutesOptions {
  readonly pipeline: string;
  /** Every flow's live status, copied per request. */
  readonly snapshots: () => readonly FlowSnapshot[];
  readonly metrics: Metrics;
  /** `worker_id` in Connect-style answers: the address this process serves on. */
  readonly workerId: () => string;
}

/** The endpoints of `mirrorflow run`: the status page, metrics, health, readiness, status and the Connect subset. */
export function httpRoutes(options: HttpRoutesOptions): Route[] {
  const { snapshots } = options;
  const page = statusPage(options.pipeline);
  return [
    { method: 'GET', path: '/', handle: () => ({ status: 200, contentType: 'text/html; charset=utf-8', body: page }) },
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
    { method: 'GET', path: '/status', handle: () => jsonResponse(200, statusDocument(options.pipeline, snapshots())) },
    {
      method: 'GET',
      path: '/connectors',
      handle: (req) => listConnectors(snapshots(), options.workerId(), req.query.getAll('expand')),
    },
    { method: 'GET', path: '/connectors/{name}', handle: (req) => getConnectorInfo(snapshots(), req.params['name']!) },
    { method: 'GET', path: '/connectors/{name}/status', handle: (req) => getConnectorStatus(snapshots(), req.params['name']!, options.workerId()) },
    { method: 'GET', path: '/connectors/{name}/offsets', handle: (req) => getConnectorOffsets(snapshots(), req.params['name']!) },
  ];
}
