import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type KafkaConfig, type Mechanism, type SASLOptions } from './kafkajs';
import type { ClientKind, ClusterConnection, ClusterSecurity, SaslSettings } from '../core/cluster';
import type { KafkaClients, SourceOptions, TransactionsOptions, WriterOptions } from '../core/ports/kafka-clients';
import type { SlotTransactions } from '../core/ports/slot-transactions';
import { KafkaSlotTransactions } from './slot-transactions';
import { KafkajsTransactionPort } from './kafkajs-transaction-port';
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
import { MskIamTokenSource } from './msk-iam-token-source';
import type { BearerTokenSource } from './refreshing-token';
import { readTlsStores, type TlsStores } from './tls-stores';

/** The token source of a cluster, shared by its clients. */
type TokenSources = (key: string, cluster: string, sasl: TokenSasl) => BearerTokenSource;
type TokenSasl = Extract<SaslSettings, { mechanism: 'oauthbearer' | 'aws_msk_iam' }>;

export interface KafkajsClientsOptions {
  readonly clusters: readonly ClusterConnection[];
  readonly logger: Logger;
  /** Prefix of every client id, e.g. the pipeline name. */
  readonly clientIdPrefix: string;
  readonly debug?: boolean;
}

/** Internal options of kafkaConfig: the clients' options and the stores of each cluster and role, read once. */
interface ConfigContext extends KafkajsClientsOptions {
  readonly stores: ReadonlyMap<string, TlsStores>;
}

/**
 * What one kind of client of a cluster connects with: the cluster's security, or its role's own
 * (`security.roles`). `key` names that security: the alias, or `alias|kind` for a role's own.
 */
interface Login {
  readonly key: string;
  readonly connection: ClusterConnection;
}

function loginOf(connection: ClusterConnection, kind: ClientKind): Login {
  const own = connection.security.roles?.[kind];
  if (own === undefined) return { key: connection.alias, connection };
  return { key: `${connection.alias}|${kind}`, connection: { ...connection, security: own } };
}

/** The cluster's login and each role's own, one per distinct key. */
function loginsOf(connection: ClusterConnection): Login[] {
  const logins = [loginOf(connection, 'admin'), loginOf(connection, 'producer'), loginOf(connection, 'consumer'), { key: connection.alias, connection }];
  return logins.filter((login, index) => logins.findIndex((l) => l.key === login.key) === index);
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
  private readonly tokens = new Map<string, BearerTokenSource>();
  /** One token source per cluster (OAuth or AWS MSK IAM), shared by its clients and the reachability probe. */
  private readonly tokenSources: TokenSources = (key, cluster, sasl) => {
    let source = this.tokens.get(key);
    if (source === undefined) {
      source = sasl.mechanism === 'oauthbearer' ? new OAuthTokenSource(cluster, sasl.oauth) : new MskIamTokenSource(cluster, sasl.aws);
      this.tokens.set(key, source);
    }
    return source;
  };

  private readonly options: ConfigContext;

  constructor(options: KafkajsClientsOptions) {
    registerCodecs();
    // JKS and PKCS12 stores are read now: a wrong password ends the command before any connection.
    const logins = options.clusters.flatMap(loginsOf).filter((login) => usesTls(login.connection));
    const stores = new Map(logins.map((login) => [login.key, readTlsStores(login.connection)] as const));
    this.options = { ...options, stores };
    for (const connection of options.clusters) warnAboutUnverifiedTls(connection, options.logger);
  }

  private kafka(cluster: string, role: string, kind: ClientKind): Kafka {
    const login = loginOf(this.connection(cluster), kind);
    const key = `${cluster}/${role}`;
    let kafka = this.kafkas.get(key);
    if (!kafka) {
      const { connection } = login;
      kafka = new Kafka(kafkaConfig(login, `${connection.clientId ?? this.options.clientIdPrefix}|${role}`, this.options, this.tokenSources));
      this.kafkas.set(key, kafka);
    }
    return kafka;
  }

  admin(cluster: string): ClusterAdmin {
    let admin = this.admins.get(cluster);
    if (!admin) {
      admin = new KafkajsAdmin(cluster, this.kafka(cluster, 'admin', 'admin'));
      this.admins.set(cluster, admin);
      this.open.push(admin);
    }
    return admin;
  }

  writer(cluster: string, options: WriterOptions): RecordWriter {
    const writer = new KafkajsWriter(cluster, this.kafka(cluster, options.role, 'producer'), options, this.options.logger.child({ cluster }));
    this.open.push({ role: options.role, close: () => writer.close() });
    return writer;
  }

  transactions(cluster: string, options: TransactionsOptions): SlotTransactions {
    const port = new KafkajsTransactionPort(this.kafka(cluster, options.role, 'producer'), options.compression, options.timeoutMs);
    const transactions = new KafkaSlotTransactions(
      { cluster, prefix: options.transactionalIdPrefix, transactionTimeoutMs: options.transactionTimeoutMs, logger: this.options.logger.child({ cluster }) },
      port,
    );
    this.open.push({ role: options.role, close: () => transactions.close() });
    return transactions;
  }

  source(cluster: string, options: SourceOptions): RecordSource {
    const source = new KafkajsSource(cluster, this.kafka(cluster, options.role, 'consumer'), options, this.options.logger.child({ cluster }));
    this.open.push({ role: options.role, close: () => source.stopped() });
    return source;
  }

  election(cluster: string): LeaderElection {
    // Group membership is a consumer's (MM2's leader election is the Connect worker's group).
    const election = new KafkajsElection(cluster, this.kafka(cluster, 'election', 'consumer'), this.admin(cluster), this.options.logger.child({ cluster }));
    this.open.push({ close: () => election.stopped() });
    return election;
  }

  reader(cluster: string): TopicReader {
    return new KafkajsTopicReader(cluster, this.kafka(cluster, 'reader', 'consumer'), this.admin(cluster));
  }

  /** Connects with the cluster's credentials and with each role's own, so a refused login of any of them ends the start. */
  async checkReachable(cluster: string): Promise<void> {
    for (const login of loginsOf(this.connection(cluster))) {
      const probe = new Kafka({
        ...kafkaConfig(login, `${this.options.clientIdPrefix}|probe`, this.options, this.tokenSources),
        retry: { retries: 1, initialRetryTime: 200 },
        logLevel: logLevel.NOTHING,
      });
      const admin = probe.admin();
      try {
        await admin.connect();
        await admin.describeCluster();
      } catch (error) {
        throw describeConnectFailure(login.connection, error);
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
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

function kafkaConfig(login: Login, clientId: string, options: ConfigContext, tokenSources: TokenSources): KafkaConfig {
  const { connection } = login;
  const { security } = connection;
  const tls = usesTls(connection);
  return {
    clientId,
    brokers: [...connection.bootstrapServers],
    connectionTimeout: connection.connectionTimeoutMs,
    requestTimeout: connection.requestTimeoutMs,
    logLevel: options.debug ? logLevel.DEBUG : logLevel.WARN,
    logCreator: kafkajsLogCreator(options.logger.child({ cluster: connection.alias })),
    ssl: tls ? tlsOptions(security.ssl, options.stores.get(login.key)) : undefined,
    sasl: security.sasl && saslOptions(login.key, connection.alias, security.sasl, tokenSources),
  };
}

/**
 * kafkajs's SASL options. OAUTHBEARER gets its tokens from the cluster's one OAuthTokenSource
 * (client-credentials grant, cached and refreshed), AWS MSK IAM from its MskIamTokenSource (signed
 * with AWS credentials, sent over OAUTHBEARER as MSK takes them); both authenticate with our
 * provider, which, unlike kafkajs's, notices when the broker refuses the token
 * (oauth-bearer-authenticator.ts).
 */
function saslOptions(key: string, cluster: string, sasl: SaslSettings, tokenSources: TokenSources): SASLOptions | Mechanism {
  if (sasl.mechanism === 'oauthbearer' || sasl.mechanism === 'aws_msk_iam') {
    const kind = sasl.mechanism === 'oauthbearer' ? 'OAuth token' : 'AWS MSK IAM token';
    return { mechanism: 'oauthbearer', authenticationProvider: oauthBearerAuthenticator(tokenSources(key, cluster, sasl), kind) };
  }
  return { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions;
}
