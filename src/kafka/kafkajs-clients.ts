import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type KafkaConfig, type Mechanism, type SASLOptions } from './kafkajs';
import type { ClusterConnection, ClusterSecurity, OAuthClientCredentials, SaslSettings } from '../core/cluster';
import type { KafkaClients, SourceOptions, WriterOptions } from '../core/ports/kafka-clients';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { RecordWriter } from '../core/ports/record-writer';
import type { RecordSource, TopicReader } from '../core/ports/record-source';
import type { Logger } from '../core/ports/logger';
import type { LeaderElection } from '../core/ports/leader-election';
import { ClusterUnavailableError } from '../core/errors';
import { registerCodecs } from './codecs';
import { kafkajsLogCreator } from './log-bridge';
import { KafkajsAdmin } from './kafkajs-admin';
import { KafkajsWriter } from './kafkajs-writer';
import { KafkajsSource } from './kafkajs-source';
import { KafkajsTopicReader } from './kafkajs-reader';
import { KafkajsElection } from './kafkajs-election';
import { describeConnectFailure } from './login-failure';
import { normalizePem } from './pem';
import { OAuthTokenSource } from './oauth-token-source';
import { oauthBearerAuthenticator } from './oauth-bearer-authenticator';
import { readTlsStores, type TlsStores } from './tls-stores';

/** The token source of a cluster, shared by its clients. */
type TokenSources = (cluster: string, credentials: OAuthClientCredentials) => OAuthTokenSource;

export interface KafkajsClientsOptions {
  readonly clusters: readonly ClusterConnection[];
  readonly logger: Logger;
  /** Prefix of every client id, e.g. the pipeline name. */
  readonly clientIdPrefix: string;
  readonly debug?: boolean;
}

/** Internal options of kafkaConfig: the clients' options and each cluster's stores, read once. */
interface ConfigContext extends KafkajsClientsOptions {
  readonly stores: ReadonlyMap<string, TlsStores>;
}

interface Closable {
  /** The role it was made for, when it belongs to one flow (closed when a reload stops that flow). */
  readonly role?: string;
  close(): Promise<void>;
}

/** KafkaClients backed by kafkajs: one kafkajs instance per cluster, clients made on demand. */
export class KafkajsClients implements KafkaClients {
  private readonly kafkas = new Map<string, Kafka>();
  private readonly admins = new Map<string, KafkajsAdmin>();
  private open: Closable[] = [];
  private readonly tokens = new Map<string, OAuthTokenSource>();
  /** One OAuth token source per cluster, shared by its clients and the reachability probe. */
  private readonly tokenSources: TokenSources = (cluster, credentials) => {
    let source = this.tokens.get(cluster);
    if (source === undefined) {
      source = new OAuthTokenSource(cluster, credentials);
      this.tokens.set(cluster, source);
    }
    return source;
  };

  private readonly options: ConfigContext;

  constructor(options: KafkajsClientsOptions) {
    registerCodecs();
    // JKS and PKCS12 stores are read now: a wrong password ends the command before any connection.
    const stores = new Map(options.clusters.filter(usesTls).map((connection) => [connection.alias, readTlsStores(connection)] as const));
    this.options = { ...options, stores };
    for (const connection of options.clusters) warnAboutUnverifiedTls(connection, options.logger);
  }

  private kafka(cluster: string, role: string): Kafka {
    const connection = this.options.clusters.find((c) => c.alias === cluster);
    if (!connection) throw new ClusterUnavailableError(cluster, 'is not declared in the pipeline');
    const key = `${cluster}/${role}`;
    let kafka = this.kafkas.get(key);
    if (!kafka) {
      kafka = new Kafka(kafkaConfig(connection, `${connection.clientId ?? this.options.clientIdPrefix}|${role}`, this.options, this.tokenSources));
      this.kafkas.set(key, kafka);
    }
    return kafka;
  }

  admin(cluster: string): ClusterAdmin {
    let admin = this.admins.get(cluster);
    if (!admin) {
      admin = new KafkajsAdmin(cluster, this.kafka(cluster, 'admin'));
      this.admins.set(cluster, admin);
      this.open.push(admin);
    }
    return admin;
  }

  writer(cluster: string, options: WriterOptions): RecordWriter {
    const writer = new KafkajsWriter(cluster, this.kafka(cluster, options.role), options, this.options.logger.child({ cluster }));
    this.open.push({ role: options.role, close: () => writer.close() });
    return writer;
  }

  source(cluster: string, options: SourceOptions): RecordSource {
    const source = new KafkajsSource(cluster, this.kafka(cluster, options.role), options, this.options.logger.child({ cluster }));
    this.open.push({ role: options.role, close: () => source.stopped() });
    return source;
  }

  election(cluster: string): LeaderElection {
    const election = new KafkajsElection(cluster, this.kafka(cluster, 'election'), this.admin(cluster), this.options.logger.child({ cluster }));
    this.open.push({ close: () => election.stopped() });
    return election;
  }

  reader(cluster: string): TopicReader {
    return new KafkajsTopicReader(cluster, this.kafka(cluster, 'reader'), this.admin(cluster));
  }

  async checkReachable(cluster: string): Promise<void> {
    const probe = new Kafka({
      ...kafkaConfig(this.connection(cluster), `${this.options.clientIdPrefix}|probe`, this.options, this.tokenSources),
      retry: { retries: 1, initialRetryTime: 200 },
      logLevel: logLevel.NOTHING,
    });
    const admin = probe.admin();
    try {
      await admin.connect();
      await admin.describeCluster();
    } catch (error) {
      throw describeConnectFailure(this.connection(cluster), error);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  private connection(cluster: string): ClusterConnection {
    const connection = this.options.clusters.find((c) => c.alias === cluster);
    if (!connection) throw new ClusterUnavailableError(cluster, 'is not declared in the pipeline');
    return connection;
  }

  async closeRoles(prefix: string): Promise<void> {
    const closing = this.open.filter((c) => c.role?.startsWith(prefix) === true).reverse();
    this.open = this.open.filter((c) => !closing.includes(c));
    for (const key of [...this.kafkas.keys()]) if (key.slice(key.indexOf('/') + 1).startsWith(prefix)) this.kafkas.delete(key);
    await Promise.allSettled(closing.map((c) => c.close()));
  }

  async close(): Promise<void> {
    const closing = this.open.splice(0).reverse();
    this.admins.clear();
    await Promise.allSettled(closing.map((c) => c.close()));
  }
}

function usesTls(connection: ClusterConnection): boolean {
  return connection.security.protocol === 'ssl' || connection.security.protocol === 'sasl_ssl';
}

/** Turning verification off is the user's explicit choice, and said out loud once per cluster. */
function warnAboutUnverifiedTls(connection: ClusterConnection, logger: Logger): void {
  const ssl = connection.security.ssl;
  if (!usesTls(connection) || ssl === undefined) return;
  if (!ssl.rejectUnauthorized) {
    logger.warn("TLS certificate verification is off: this cluster's brokers are not authenticated, anyone in the path can read and change the data.", {
      cluster: connection.alias,
    });
  } else if (!ssl.verifyHostname) {
    logger.warn("TLS host name verification is off: any certificate of the trusted CAs is accepted for this cluster's brokers, whatever host it names.", {
      cluster: connection.alias,
    });
  }
}

/**
 * Node's TLS options: trusted CAs from the PEM file, the inline PEM and the truststore, the client
 * certificate (PEM, or the keystore's), host name checks.
 */
function tlsOptions(ssl: ClusterSecurity['ssl'], stores: TlsStores | undefined): NonNullable<KafkaConfig['ssl']> {
  const ca = [...(ssl?.caFile ? [readFileSync(ssl.caFile, 'utf8')] : []), ...(ssl?.ca ? [normalizePem(ssl.ca)] : []), ...(stores?.ca ?? [])];
  const keystore = stores?.credentials;
  const client =
    keystore !== undefined
      ? keystore
      : {
          cert: ssl?.cert !== undefined ? normalizePem(ssl.cert) : ssl?.certFile ? readFileSync(ssl.certFile, 'utf8') : undefined,
          key: ssl?.key !== undefined ? normalizePem(ssl.key) : ssl?.keyFile ? readFileSync(ssl.keyFile, 'utf8') : undefined,
          passphrase: ssl?.keyPassword,
        };
  return {
    rejectUnauthorized: ssl?.rejectUnauthorized ?? true,
    ca: ca.length > 0 ? ca : undefined,
    ...client,
    // Node checks the host name unless told otherwise; the chain is still verified.
    ...(ssl !== undefined && !ssl.verifyHostname && { checkServerIdentity: () => undefined }),
  };
}

function kafkaConfig(connection: ClusterConnection, clientId: string, options: ConfigContext, tokenSources: TokenSources): KafkaConfig {
  const { security } = connection;
  const tls = usesTls(connection);
  return {
    clientId,
    brokers: [...connection.bootstrapServers],
    connectionTimeout: connection.connectionTimeoutMs,
    requestTimeout: connection.requestTimeoutMs,
    logLevel: options.debug ? logLevel.DEBUG : logLevel.WARN,
    logCreator: kafkajsLogCreator(options.logger.child({ cluster: connection.alias })),
    ssl: tls ? tlsOptions(security.ssl, options.stores.get(connection.alias)) : undefined,
    sasl: security.sasl && saslOptions(connection.alias, security.sasl, tokenSources),
  };
}

/**
 * kafkajs's SASL options. OAUTHBEARER gets its tokens from the cluster's one OAuthTokenSource
 * (client-credentials grant, cached and refreshed) and authenticates with our provider, which,
 * unlike kafkajs's, notices when the broker refuses the token (oauth-bearer-authenticator.ts).
 */
function saslOptions(cluster: string, sasl: SaslSettings, tokenSources: TokenSources): SASLOptions | Mechanism {
  if (sasl.mechanism !== 'oauthbearer') return { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions;
  return { mechanism: 'oauthbearer', authenticationProvider: oauthBearerAuthenticator(tokenSources(cluster, sasl.oauth)) };
}
