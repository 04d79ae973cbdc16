import type { ConnectorControl, Pipeline } from '../../pipeline';
import type { Logger } from '../../core/ports/logger';
import type { HttpServer, FlowSnapshot, ListenAddress } from '../../telemetry';
import type { LogLevels } from '../../telemetry/log-levels';
import { parseListenAddress } from '../../telemetry/http-server';
import { announceLocalEndpoint } from '../../telemetry/local-endpoints';
import { DEFAULT_HTTP_LISTEN } from '../../config/schema/http';
import { versionText } from '../version';
import { DEFAULT_KAFKA_VERSION } from '../../local/local-defaults';

export interface ServeConnectors {
  /** The connectors' state and what the write routes do. */
  readonly control: ConnectorControl;
  /** `read_write` lets the write routes change the pipeline; `read_only` answers them 405. */
  readonly mode: 'read_only' | 'read_write';
  /** The process's named loggers, for `/admin/loggers`. */
  readonly levels?: LogLevels;
}

/**
 * Ports tried after the default one, in order, before any free port: several processes of one
 * host (the scale-out MM2 users do) each get one, and a Prometheus config can list the range.
 */
export const DEFAULT_HTTP_FALLBACK_PORTS = 15;

/**
 * Starts the HTTP endpoints (status page, metrics, health, status, Connect subset) on `listen`,
 * unless it is `off`. An address someone chose (`--http`, `http.listen`) that is in use ends the
 * run; the default one (`listen` undefined) gives way to the next free port, said in the log, in
 * `/status` and to `mirrorflow status` on this host (local-endpoints.ts).
 */
export async function serveHttp(
  pipeline: Pipeline,
  listen: string | ListenAddress | undefined,
  logger: Logger,
  connectors?: ServeConnectors,
): Promise<HttpServer | undefined> {
  const chosen = listen === undefined ? undefined : typeof listen === 'string' ? parseListenAddress(listen) : listen;
  if (listen !== undefined && chosen === undefined) return undefined;
  const address = chosen ?? parseListenAddress(DEFAULT_HTTP_LISTEN)!;
  // Loaded only when HTTP is on: the metrics registry (prom-client) and the routes are not needed with `http.listen: off`.
  const { HttpServer, Metrics, httpRoutes } = await import('../../telemetry/index.js');
  const { HttpOffsetTranslator } = await import('../../pipeline/tools/http-offset-translator.js');
  // Its Kafka clients are made at the first request, and closed with the server.
  const offsets = new HttpOffsetTranslator({ config: () => pipeline.config, file: pipeline.config.name, logger });
  const snapshots = (): FlowSnapshot[] => pipeline.snapshots();
  let workerId = `${address.host}:${address.port}`;
  const control = connectors?.control;
  const server = new HttpServer(
    httpRoutes({
      pipeline: pipeline.config.name,
      snapshots,
      metrics: new Metrics(snapshots, { mm2Names: pipeline.config.http.mm2_metrics }),
      workerId: () => workerId,
      // Connect's ServerInfo. `version` is the Kafka release whose Connect REST API this answers as
      // (the one mirrorflow's interop is tested against): clients gate features on it, as kcctl
      // asks 3.6 for PATCH …/offsets. `commit` names mirrorflow's own version. kafka_cluster_id is
      // its worker's cluster; a pipeline has several, and none is named here.
      workerInfo: () => ({ version: DEFAULT_KAFKA_VERSION, commit: versionText().replace(' ', '-'), kafka_cluster_id: null }),
      logger,
      offsets,
      ...(connectors?.levels === undefined ? {} : { levels: connectors.levels }),
      ...(control === undefined ? {} : { connectors: { view: () => control, writes: connectors?.mode === 'read_write' ? control : undefined } }),
    }),
    logger,
  );
  const bound = chosen !== undefined ? await server.listen(chosen) : await server.listenOnFirstFree(defaultCandidates(address));
  workerId = `${address.host}:${bound.port}`;
  if (chosen === undefined && bound.port !== address.port)
    logger.warn('The default HTTP port is in use (another mirrorflow on this host?); serving on the next free one.', {
      wanted: `${address.host}:${address.port}`,
      address: workerId,
    });
  server.onClose(announceLocalEndpoint({ pipeline: pipeline.config.name, address: workerId }));
  server.onClose(() => {
    offsets.close().catch((error: unknown) => logger.debug('Closing the clients of offset translation failed.', { error: String(error) }));
  });
  logger.info('Serving metrics, health and status over HTTP.', {
    address: workerId,
    endpoints: '/ /metrics /healthz /ready /status /connectors /admin/loggers /offsets/translate',
    connectApi: connectors?.mode ?? 'read_only',
  });
  if (connectors?.mode === 'read_write')
    logger.warn('The Connect-style REST API takes writes: anyone who reaches this address can change, pause, stop and restart replication.', {
      address: workerId,
    });
  return server;
}

function defaultCandidates(address: ListenAddress): ListenAddress[] {
  const ports = Array.from({ length: DEFAULT_HTTP_FALLBACK_PORTS + 1 }, (_, i) => address.port + i).filter((port) => port <= 65535);
  return [...ports, 0].map((port) => ({ host: address.host, port }));
}
