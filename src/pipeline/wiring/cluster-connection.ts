import type { ClientKind, ClusterConnection, ClusterSecurity, SaslSettings } from '../../core/cluster';
import { mskIamRegion, type ClusterConfig, type SaslConfig, type SecurityConfig, type SslConfig } from '../../config';

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
      ...blocks(security.protocol, security.sasl, security.ssl, cluster.bootstrap_servers),
      ...(security.roles !== undefined && { roles: roleSecurity(security, cluster.bootstrap_servers) }),
    },
  };
}

/** Each role that sets a block: its blocks, and the cluster's where it sets none. */
function roleSecurity(security: SecurityConfig, bootstrap: readonly string[]): NonNullable<ClusterSecurity['roles']> {
  const roles: Partial<Record<ClientKind, Omit<ClusterSecurity, 'roles'>>> = {};
  for (const kind of ['consumer', 'producer', 'admin'] as const) {
    const own = security.roles?.[kind];
    if (own === undefined || (own.sasl === undefined && own.ssl === undefined)) continue;
    roles[kind] = blocks(security.protocol, own.sasl ?? security.sasl, own.ssl ?? security.ssl, bootstrap);
  }
  return roles;
}

function blocks(
  protocol: SecurityConfig['protocol'],
  sasl: SaslConfig | undefined,
  ssl: SslConfig | undefined,
  bootstrap: readonly string[],
): Omit<ClusterSecurity, 'roles'> {
  return {
    protocol,
    sasl: sasl && toSaslSettings(sasl, bootstrap),
    ssl: ssl && {
      caFile: ssl.ca_file,
      ca: ssl.ca,
      certFile: ssl.cert_file,
      keyFile: ssl.key_file,
      cert: ssl.cert,
      key: ssl.key,
      keyPassword: ssl.key_password,
      truststoreFile: ssl.truststore_file,
      truststorePassword: ssl.truststore_password,
      keystoreFile: ssl.keystore_file,
      keystorePassword: ssl.keystore_password,
      verifyHostname: ssl.verify_hostname,
      rejectUnauthorized: ssl.reject_unauthorized,
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
  if (sasl.mechanism === 'gssapi') {
    const kerberos = sasl.kerberos!;
    return {
      mechanism: 'gssapi',
      kerberos: { serviceName: kerberos.service_name, principal: kerberos.principal, keytab: kerberos.keytab, krb5Config: kerberos.krb5_config },
    };
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
