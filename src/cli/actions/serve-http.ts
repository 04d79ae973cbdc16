import type { ConnectorControl, Pipeline } from '../../pipeline';
import type { Logger } from '../../core/ports/logger';
import type { HttpServer, FlowSnapshot, ListenAddress } from '../../telemetry';
import { parseListenAddress } from '../../telemetry/http-server';

export interface ServeConnectors {
  /** The connectors' state and what the write routes do. */
  readonly control: ConnectorControl;
  /** `read_write` lets the write routes change the pipeline; `read_only` answers them 405. */
  readonly mode: 'read_only' | 'read_write';
}

/** Starts the HTTP endpoints (status page, metrics, health, status, Connect subset) on `listen`, unless it is `off`. */
export async function serveHttp(
  pipeline: Pipeline,
  listen: string | ListenAddress,
  logger: Logger,
  connectors?: ServeConnectors,
): Promise<HttpServer | undefined> {
  const address = typeof listen === 'string' ? parseListenAddress(listen) : listen;
  if (address === undefined) return undefined;
  // Loaded only when HTTP is on: the metrics registry (prom-client) and the routes are not needed with `http.listen: off`.
  const { HttpServer, Metrics, httpRoutes } = await import('../../telemetry/index.js');
  const snapshots = (): FlowSnapshot[] => pipeline.snapshots();
  let workerId = `${address.host}:${address.port}`;
  const control = connectors?.control;
  const server = new HttpServer(
    httpRoutes({
      pipeline: pipeline.config.name,
      snapshots,
      metrics: new Metrics(snapshots),
      workerId: () => workerId,
      logger,
      ...(control === undefined ? {} : { connectors: { view: () => control, writes: connectors?.mode === 'read_write' ? control : undefined } }),
    }),
    logger,
  );
  const bound = await server.listen(address);
  workerId = `${address.host}:${bound.port}`;
  logger.info('Serving metrics, health and status over HTTP.', {
    address: workerId,
    endpoints: '/ /metrics /healthz /ready /status /connectors',
    connectApi: connectors?.mode ?? 'read_only',
  });
  if (connectors?.mode === 'read_write')
    logger.warn('The Connect-style REST API takes writes: anyone who reaches this address can change, pause, stop and restart replication.', {
      address: workerId,
    });
  return server;
}
