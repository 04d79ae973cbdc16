import type { ClusterConnection, SaslSettings } from '../core/cluster';
import type { ClusterConfig, SaslConfig } from '../config';

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
      sasl: security.sasl && toSaslSettings(security.sasl),
      ssl: security.ssl && {
        caFile: security.ssl.ca_file,
        ca: security.ssl.ca,
        certFile: security.ssl.cert_file,
        keyFile: security.ssl.key_file,
        cert: security.ssl.cert,
        key: security.ssl.key,
        keyPassword: security.ssl.key_password,
        truststoreFile: security.ssl.truststore_file,
        truststorePassword: security.ssl.truststore_password,
        keystoreFile: security.ssl.keystore_file,
        keystorePassword: security.ssl.keystore_password,
        verifyHostname: security.ssl.verify_hostname,
        rejectUnauthorized: security.ssl.reject_unauthorized,
      },
    },
  };
}

/** The validated config has `oauth` with oauthbearer and a user and password otherwise (the semantic checks see to it). */
function toSaslSettings(sasl: SaslConfig): SaslSettings {
  if (sasl.mechanism === 'oauthbearer') {
    const oauth = sasl.oauth!;
    return {
      mechanism: 'oauthbearer',
      oauth: { tokenEndpointUrl: oauth.token_endpoint_url, clientId: oauth.client_id, clientSecret: oauth.client_secret, scope: oauth.scope },
    };
  }
  return { mechanism: sasl.mechanism, username: sasl.username!, password: sasl.password! };
}
