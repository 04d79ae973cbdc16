import { Kafka, logLevel, type KafkaConfig, type Mechanism, type SASLOptions } from './kafkajs';
import type { ClientKind, ClusterConnection, ClusterSecurity, SaslSettings } from '../core/cluster';
import type { GroupReader } from '../core/ports/group-reader';
import { KafkajsGroupReader } from './consumer/kafkajs-group-reader';
import type { KafkaClients, SourceOptions, TransactionsOptions, WriterOptions } from '../core/ports/kafka-clients';
import type { SlotTransactions } from '../core/ports/slot-transactions';
import { KafkaSlotTransactions } from './transactions/slot-transactions';
import { KafkajsTransactionPort } from './transactions/kafkajs-transaction-port';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { RecordWriter } from '../core/ports/record-writer';
import type { RecordSource, TopicReader } from '../core/ports/record-source';
import type { Logger } from '../core/ports/logger';
import type { LeaderElection } from '../core/ports/leader-election';
import { ClusterUnavailableError } from '../core/errors';
import { registerCodecs } from './codecs';
import { kafkajsLogCreator } from './log-bridge';
import { KafkajsAdmin } from './admin/kafkajs-admin';
import { KafkajsWriter } from './producer/kafkajs-writer';
import { KafkajsSource } from './consumer/kafkajs-source';
import { KafkajsTopicReader } from './consumer/kafkajs-reader';
import { KafkajsRangeReader } from './consumer/kafkajs-range-reader';
import type { RangeReader } from '../core/ports/range-reader';
import { KafkajsElection } from './consumer/kafkajs-election';
import { describeConnectFailure, describeTlsFailure } from './auth/login-failure';
import { OAuthTokenSource } from './auth/oauth-token-source';
import { oauthBearerAuthenticator } from './auth/oauth-bearer-authenticator';
import { gssapiAuthenticator } from './auth/gssapi-authenticator';
import { useKerberosEnvironment } from './auth/kerberos-environment';
import { MskIamTokenSource } from './auth/msk-iam-token-source';
import type { BearerTokenSource } from './auth/refreshing-token';
import { readTlsStores } from './tls/tls-stores';
import { readTlsOptions, tlsSocketFactory, usesTls } from './tls/tls-connect';
import { namingPrincipal, rolePrincipal } from './auth/role-principal';
import { withConnectionBehaviour, type ConnectionBehaviour } from './wire/connection-behaviour';
import { kafkajsDefaultSocketFactory } from './wire/kafkajs-internals';
import { framedReadsSocketFactory } from './wire/framed-reads';

/** Every write of mirrorflow's goes through a writer or a transaction port, which handle each partition's answer. */
const WRITER: ConnectionBehaviour = { partialProduceResults: true };

/** The token source of a cluster, shared by its clients. */
type TokenSources = (key: string, cluster: string, sasl: TokenSasl) => BearerTokenSource;
type TokenSasl = Extract<SaslSettings, { mechanism: 'oauthbearer' | 'aws_msk_iam' }>;

export interface KafkajsClientsOptions {
  readonly clusters: readonly ClusterConnection[];
  readonly logger: Logger;
  /** Prefix of every client id, e.g. the pipeline name. */
  readonly clientIdPrefix: string;
  /** kafkajs's own debug logs; `setDebug` changes it while running. */
  readonly debug?: boolean;
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
  private debug: boolean;
  private readonly admins = new Map<string, ClusterAdmin>();
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

  constructor(private readonly options: KafkajsClientsOptions) {
    this.debug = options.debug ?? false;
    registerCodecs();
    // JKS and PKCS12 stores are read now, so that a wrong password ends the command before any
    // connection; each connection reads them again (tls-connect.ts), for certificates rotated on disk.
    for (const login of options.clusters.flatMap(loginsOf)) if (usesTls(login.connection.security)) readTlsStores(login.connection);
    for (const connection of options.clusters) warnAboutUnverifiedTls(connection, options.logger);
  }

  /** The kafkajs instance of a role; `behaviour` (a writer's, a forwarding source's) makes one of its own. */
  private kafka(cluster: string, role: string, kind: ClientKind, behaviour?: ConnectionBehaviour): Kafka {
    const login = loginOf(this.connection(cluster), kind);
    const key = `${cluster}/${role}${behaviour === undefined ? '' : `/${JSON.stringify(behaviour)}`}`;
    let kafka = this.kafkas.get(key);
    if (!kafka) {
      const { connection } = login;
      kafka = new Kafka(
        kafkaConfig(
          login,
          `${connection.clientId ?? this.options.clientIdPrefix}|${role}`,
          { ...this.options, debug: this.debug },
          this.tokenSources,
          behaviour,
        ),
      );
      this.kafkas.set(key, kafka);
    }
    return kafka;
  }

  /** Turns kafkajs's debug logs on or off for every client, made or to be made (its `kafkajs` logger's level). */
  setDebug(on: boolean): void {
    if (on === this.debug) return;
    this.debug = on;
    for (const kafka of this.kafkas.values()) kafka.logger().setLogLevel(on ? logLevel.DEBUG : logLevel.WARN);
  }

  admin(cluster: string): ClusterAdmin {
    let admin = this.admins.get(cluster);
    if (!admin) {
      const own = new KafkajsAdmin(cluster, this.kafka(cluster, 'admin', 'admin'));
      this.open.push(own);
      admin = this.naming(cluster, 'admin', own);
      this.admins.set(cluster, admin);
    }
    return admin;
  }

  /** `port`, whose authorization failures name the role's principal when the role logs in with its own. */
  private naming<T extends object>(cluster: string, kind: ClientKind, port: T): T {
    const own = this.connection(cluster).security.roles?.[kind];
    return own === undefined ? port : namingPrincipal(port, rolePrincipal(kind, own));
  }

  writer(cluster: string, options: WriterOptions): RecordWriter {
    const writer = new KafkajsWriter(cluster, this.kafka(cluster, options.role, 'producer', WRITER), options, this.options.logger.child({ cluster }));
    this.open.push({ role: options.role, close: () => writer.close() });
    return this.naming(cluster, 'producer', writer);
  }

  transactions(cluster: string, options: TransactionsOptions): SlotTransactions {
    const port = new KafkajsTransactionPort(this.kafka(cluster, options.role, 'producer', WRITER), options.compression, options.timeoutMs);
    const transactions = new KafkaSlotTransactions(
      { cluster, prefix: options.transactionalIdPrefix, transactionTimeoutMs: options.transactionTimeoutMs, logger: this.options.logger.child({ cluster }) },
      port,
    );
    this.open.push({ role: options.role, close: () => transactions.close() });
    return this.naming(cluster, 'producer', transactions);
  }

  source(cluster: string, options: SourceOptions): RecordSource {
    const source = new KafkajsSource(
      cluster,
      // Its next Fetch goes out while the last one's records are handed over (wire/fetch-ahead.ts),
      // in a fetch session: only what changed is sent and answered (wire/fetch-session.ts); a
      // Fetch of few partitions may ask each for more (wire/shared-fetch-bytes.ts).
      (forward) =>
        this.kafka(cluster, options.role, 'consumer', {
          ...(forward === undefined ? {} : { forward }),
          fetchAhead: true,
          fetchSessions: true,
          ...(options.sharedFetchBytes === undefined ? {} : { sharedFetchBytes: options.sharedFetchBytes }),
        }),
      options,
      this.options.logger.child({ cluster }),
    );
    this.open.push({ role: options.role, close: () => source.stopped() });
    return this.naming(cluster, 'consumer', source);
  }

  election(cluster: string): LeaderElection {
    // Group membership is a consumer's (MM2's leader election is the Connect worker's group).
    const election = new KafkajsElection(cluster, this.kafka(cluster, 'election', 'consumer'), this.admin(cluster), this.options.logger.child({ cluster }));
    this.open.push({ close: () => election.stopped() });
    return this.naming(cluster, 'consumer', election);
  }

  groupReader(cluster: string): GroupReader {
    return this.naming(cluster, 'consumer', new KafkajsGroupReader(cluster, this.kafka(cluster, 'group-reader', 'consumer'), this.admin(cluster)));
  }

  reader(cluster: string): TopicReader {
    return this.naming(cluster, 'consumer', new KafkajsTopicReader(cluster, this.kafka(cluster, 'reader', 'consumer'), this.admin(cluster)));
  }

  rangeReader(cluster: string, role = 'range-reader'): RangeReader {
    const reader = new KafkajsRangeReader(
      cluster,
      this.kafka(cluster, role, 'consumer'),
      // Every record batch handed over whole, however small or compressed: the reader digests them from their bytes.
      this.kafka(cluster, role, 'consumer', { forward: { minCompressedBytes: 0, maxBytes: Number.MAX_SAFE_INTEGER } }),
      this.admin(cluster),
    );
    this.open.push({ role, close: () => reader.close() });
    return this.naming(cluster, 'consumer', reader);
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
        // The connection (TLS, SASL, ApiVersions) is the check: one round trip less than asking for
        // metadata too, which would tell nothing more (it is answered by the same broker).
        await admin.connect();
      } catch (error) {
        throw describeConnectFailure(login.connection, error);
      } finally {
        await admin.disconnect().catch(() => undefined); // a probe's connection: the check's outcome is what counts
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

/**
 * Turning verification off is the user's explicit choice, and said out loud: once for the
 * cluster's `ssl` block, and once for each role whose own `ssl` block turns it off (a role without
 * one uses the cluster's, warned about already).
 */
function warnAboutUnverifiedTls(connection: ClusterConnection, logger: Logger): void {
  const { security } = connection;
  warnIfUnverified(security, { cluster: connection.alias }, logger);
  for (const role of ['consumer', 'producer', 'admin'] as const) {
    const own = security.roles?.[role];
    if (own?.ssl === undefined || JSON.stringify(own.ssl) === JSON.stringify(security.ssl)) continue;
    warnIfUnverified(own, { cluster: connection.alias, role }, logger);
  }
}

function warnIfUnverified(security: Omit<ClusterSecurity, 'roles'>, meta: { cluster: string; role?: ClientKind }, logger: Logger): void {
  const ssl = security.ssl;
  if (!usesTls(security) || ssl === undefined) return;
  const whose = meta.role === undefined ? "this cluster's" : `the ${meta.role} role's`;
  const clients = meta.role === undefined ? '' : `, for the ${meta.role} role's clients`;
  if (!ssl.rejectUnauthorized) {
    logger.warn(
      `TLS certificate verification is off${clients}: ${whose} brokers are not authenticated, anyone in the path can read and change the data.`,
      meta,
    );
  } else if (!ssl.verifyHostname) {
    logger.warn(
      `TLS host name verification is off${clients}: any certificate of the trusted CAs is accepted for ${whose} brokers, whatever host it names.`,
      meta,
    );
  }
}

function kafkaConfig(login: Login, clientId: string, options: KafkajsClientsOptions, tokenSources: TokenSources, behaviour?: ConnectionBehaviour): KafkaConfig {
  const { connection } = login;
  const { security } = connection;
  const tls = usesTls(security);
  // TLS options are made for each connection by the socket factory, from the files as they are then.
  const socketFactory = tls
    ? tlsSocketFactory(
        () => readTlsOptions(connection),
        (error) => describeTlsFailure(connection, error),
        behaviour !== undefined,
      )
    : undefined;
  return {
    clientId,
    brokers: [...connection.bootstrapServers],
    connectionTimeout: connection.connectionTimeoutMs,
    requestTimeout: connection.requestTimeoutMs,
    logLevel: options.debug ? logLevel.DEBUG : logLevel.WARN,
    logCreator: kafkajsLogCreator(options.logger.child({ cluster: connection.alias })),
    ssl: tls,
    ...(behaviour === undefined
      ? socketFactory && { socketFactory }
      : { socketFactory: withConnectionBehaviour(socketFactory ?? framedReadsSocketFactory(kafkajsDefaultSocketFactory()), behaviour) }),
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
  if (sasl.mechanism === 'gssapi') {
    useKerberosEnvironment(cluster, sasl.kerberos);
    return { mechanism: 'GSSAPI', authenticationProvider: gssapiAuthenticator(cluster, sasl.kerberos) };
  }
  return { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password } as SASLOptions;
}
