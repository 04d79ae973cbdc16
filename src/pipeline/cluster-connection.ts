import type { ClusterConnection } from '../core/cluster';
import type { ClusterConfig } from '../config';

/** The adapters' view of a cluster from its pipeline config. */
export function toClusterConnection(cluster: ClusterConfig): ClusterConnection {
  const { security } = cluster;
  return {
    alias: cluster.alias,
    bootstrapServers: cluster.bootstrap_servers,
    clientId: cluster.client_id,
    connectionTimeoutMs: cluster.connection_timeout_ms,
    requestTimeoutMs: cluster.request_timeout_ms,
    security: {
      protocol: security.protocol,
      sasl: security.sasl,
      ssl: security.ssl && {
        caFile: security.ssl.ca_file,
        certFile: security.ssl.cert_file,
        keyFile: security.ssl.key_file,
        keyPassword: security.ssl.key_password,
        rejectUnauthorized: security.ssl.reject_unauthorized,
      },
    },
  };
}
