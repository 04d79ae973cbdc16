/** `http`: the HTTP endpoints of the running process (metrics, health, readiness, status). */
import { z } from '#zod';

/** Default of `http.listen`: loopback only, and not Kafka Connect's 8083, so MM2 can run beside it. */
export const DEFAULT_HTTP_LISTEN = '127.0.0.1:9464';

export const httpSchema = z
  .strictObject({
    listen: z
      .string()
      .regex(/^(off|(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5})$/, { error: 'must be HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464) or off' })
      .refine((v) => v === 'off' || Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, { error: 'the port must be 0 to 65535' })
      .optional()
      .describe(
        "Address of the HTTP endpoints (a status page at `/`, `/metrics` for Prometheus, `/healthz`, `/ready`, `/status`, and a subset of Kafka Connect's REST API), as HOST:PORT, or `off`. Unset: `127.0.0.1:9464` (loopback only; 9464 rather than Connect's 8083 so both can run on one host), and when another process of the host holds it, the next free port of 9465-9479 (then any), said in the log, in `/status` and by `mirrorflow status`, so several processes of a pipeline can share a host. An address set here or with `mirrorflow run --http` (which overrides it) is used as given: in use, the run ends. MM2: `listeners` (Connect REST, http://:8083).",
      ),
    connect_api: z
      .enum(['read_only', 'read_write'])
      .default('read_only')
      .describe(
        "What the Connect-style REST API (`/connectors`, `/admin/loggers`) allows. `read_only` answers every write (POST /connectors, PUT and PATCH config, pause, resume, stop, DELETE, restart, task restart, topics reset, PATCH and DELETE offsets, PUT /admin/loggers) with 405 naming this key. `read_write` lets anyone who reaches the listener create, change, pause, stop and restart replication, move a stopped flow's stored progress and change log levels, with no authentication: keep `listen` on loopback (or behind a proxy that authenticates). `mirrorflow run --connect-api` overrides it. MM2: none (a Connect worker's REST API always takes writes); see docs/connect-rest-api.md.",
      ),
    mm2_metrics: z
      .boolean()
      .default(true)
      .describe(
        "Serve, beside mirrorflow's own metrics, MM2's and Kafka Connect's under the names Strimzi's JMX exporter rules give them (`kafka_connect_mirror_mirrorsourceconnector_*` per remote topic-partition, `kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms*`, `kafka_connect_worker_*`, `kafka_connect_connector_*`, the replication consumer's `records_lag`, the producer's outgoing bytes), so Strimzi's MM2 dashboard and alerts keep working. false leaves them out (fewer series). Read at start. MM2: its JMX metrics.",
      ),
  })
  .describe('HTTP endpoints of the running process: metrics, health, readiness and status.');
