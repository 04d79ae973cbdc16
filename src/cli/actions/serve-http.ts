import type { Pipeline } from '../../pipeline';
import type { Logger } from '../../core/ports/logger';
import { HttpServer, Metrics, httpRoutes, parseListenAddress, type FlowSnapshot, type ListenAddress } from '../../telemetry';

/** Starts the HTTP endpoints (status page, metrics, health, status, Connect subset) on `listen`, unless it is `off`. */
export async function serveHttp(pipeline: Pipeline, listen: string | ListenAddress, logger: Logger): Promise<HttpServer | undefined> {
  const address = typeof listen === 'string' ? parseListenAddress(listen) : listen;
  if (address === undefined) return undefined;
  const snapshots = (): FlowSnapshot[] => pipeline.snapshots();
  let workerId = `${address.host}:${address.port}`;
  const server = new HttpServer(httpRoutes({ pipeline: pipeline.config.name, snapshots, metrics: new Metrics(snapshots), workerId: () => workerId }), logger);
  const bound = await server.listen(address);
  workerId = `${address.host}:${bound.port}`;
  logger.info('Serving metrics, health and status over HTTP.', { address: workerId, endpoints: '/ /metrics /healthz /ready /status /connectors' });
  return server;
}
