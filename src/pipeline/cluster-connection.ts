import type { ClusterConnection, SaslSettings } from '../core/cluster';
import { mskIamRegion, type ClusterConfig, type SaslConfig } from '../config';

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
      sasl: security.sasl && toSaslSettings(security.sasl, cluster.bootstrap_servers),
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

/**
 * The validated config has `oauth` with oauthbearer, a region to be found with aws_msk_iam, and a
 * user and password otherwise (the semantic checks see to it).
 */
function toSaslSettings(sasl: SaslConfig, bootstrapServers: readonly string[]): SaslSettings {
  if (sasl.mechanism === 'aws_msk_iam') {
    const region = mskIamRegion(sasl.region, bootstrapServers)?.region;
    if (region === undefined) throw new Error('An aws_msk_iam cluster without a region passed validation.');
    return { mechanism: 'aws_msk_iam', aws: { region, profile: sasl.profile, roleArn: sasl.role_arn, roleSessionName: sasl.role_session_name } };
  }
  if (sasl.mechanism === 'oauthbearer') {
    const oauth = sasl.oauth!;
    return {
      mechanism: 'oauthbearer',
      oauth: { tokenEndpointUrl: oauth.token_endpoint_url, clientId: oauth.client_id, clientSecret: oauth.client_secret, scope: oauth.scope },
    };
  }
  return { mechanism: sasl.mechanism, username: sasl.username!, password: sasl.password! };
}
