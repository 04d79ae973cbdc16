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
export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer' | 'aws_msk_iam' | 'gssapi';

/** OAuth client credentials: tokens come from `tokenEndpointUrl` by the client-credentials grant. */
export interface OAuthClientCredentials {
  readonly tokenEndpointUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string;
}

/**
 * AWS MSK IAM: SigV4-signed tokens sent over SASL/OAUTHBEARER, signed with the credentials of a
 * named profile, of an assumed role, or else of AWS's default credential chain.
 */
export interface AwsMskIamSettings {
  readonly region: string;
  readonly profile?: string;
  readonly roleArn?: string;
  readonly roleSessionName?: string;
}

/** Who logs in with Kerberos (SASL GSSAPI), and to which service. */
export interface KerberosSettings {
  /** The brokers' Kerberos service name: their principals are `<serviceName>/<host>@<REALM>`. */
  readonly serviceName: string;
  /** The client's principal; default the keytab's (or the ticket cache's) own. */
  readonly principal?: string;
  /** Keytab to log in from; without one, the ticket cache (`kinit`). */
  readonly keytab?: string;
  /** krb5.conf; default `KRB5_CONFIG`, else /etc/krb5.conf. */
  readonly krb5Config?: string;
}

export type SaslSettings =
  | { readonly mechanism: Exclude<SaslMechanism, 'oauthbearer' | 'aws_msk_iam' | 'gssapi'>; readonly username: string; readonly password: string }
  | { readonly mechanism: 'gssapi'; readonly kerberos: KerberosSettings }
  | { readonly mechanism: 'oauthbearer'; readonly oauth: OAuthClientCredentials }
  | { readonly mechanism: 'aws_msk_iam'; readonly aws: AwsMskIamSettings };

/** MM2's client roles, whose security settings may differ from the cluster's (`<alias>.producer.sasl.jaas.config`). */
export type ClientKind = 'consumer' | 'producer' | 'admin';

export interface ClusterSecurity {
  readonly protocol: SecurityProtocol;
  /** Each kind of client's own security, whole (the cluster's blocks where the role sets none), when it differs. */
  readonly roles?: Partial<Readonly<Record<ClientKind, Omit<ClusterSecurity, 'roles'>>>>;
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
