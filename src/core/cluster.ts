/** How to reach one Kafka cluster, as the adapters need it (resolved from the pipeline config). */
export interface ClusterConnection {
  readonly alias: string;
  readonly bootstrapServers: readonly string[];
  readonly clientId?: string;
  readonly security: ClusterSecurity;
  readonly connectionTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

export type SecurityProtocol = 'plaintext' | 'ssl' | 'sasl_plaintext' | 'sasl_ssl';
export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer';

/** OAuth client credentials: tokens come from `tokenEndpointUrl` by the client-credentials grant. */
export interface OAuthClientCredentials {
  readonly tokenEndpointUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string;
}

export type SaslSettings =
  | { readonly mechanism: Exclude<SaslMechanism, 'oauthbearer'>; readonly username: string; readonly password: string }
  | { readonly mechanism: 'oauthbearer'; readonly oauth: OAuthClientCredentials };

export interface ClusterSecurity {
  readonly protocol: SecurityProtocol;
  readonly sasl?: SaslSettings;
  readonly ssl?: {
    readonly caFile?: string;
    /** Inline PEM CA certificates, trusted besides `caFile`. */
    readonly ca?: string;
    readonly certFile?: string;
    readonly keyFile?: string;
    /** Inline PEM client certificate chain and key, instead of the files. */
    readonly cert?: string;
    readonly key?: string;
    readonly keyPassword?: string;
    /** A JKS or PKCS12 truststore, trusted besides `caFile` and `ca`. */
    readonly truststoreFile?: string;
    readonly truststorePassword?: string;
    /** A JKS or PKCS12 keystore holding the client certificate and key, instead of the PEM ones. */
    readonly keystoreFile?: string;
    readonly keystorePassword?: string;
    /** Check the broker certificate names the host (Node's checkServerIdentity). */
    readonly verifyHostname: boolean;
    readonly rejectUnauthorized: boolean;
  };
}
