import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from './kafkajs';
import type { ClusterConnection } from '../core/cluster';
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
import { toUnavailableError } from './errors';

export interface KafkajsClientsOptions {
  readonly clusters: readonly ClusterConnection[];
  readonly logger: Logger;
  /** Prefix of every client id, e.g. the pipeline name. */
  readonly clientIdPrefix: string;
  readonly debug?: boolean;
}

interface Closable {
  close(): Promise<void>;
}

/** KafkaClients backed by kafkajs: one kafkajs instance per cluster, clients made on demand. */
export class KafkajsClients implements KafkaClients {
  private readonly kafkas = new Map<string, Kafka>();
  private readonly admins = new Map<string, KafkajsAdmin>();
  private readonly open: Closable[] = [];

  constructor(private readonly options: KafkajsClientsOptions) {
    registerCodecs();
  }

  private kafka(cluster: string, role: string): Kafka {
    const connection = this.options.clusters.find((c) => c.alias === cluster);
    if (!connection) throw new ClusterUnavailableError(cluster, 'is not declared in the pipeline');
    const key = `${cluster}/${role}`;
    let kafka = this.kafkas.get(key);
    if (!kafka) {
      kafka = new Kafka(kafkaConfig(connection, `${connection.clientId ?? this.options.clientIdPrefix}|${role}`, this.options));
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
    this.open.push(writer);
    return writer;
  }

  source(cluster: string, options: SourceOptions): RecordSource {
    const source = new KafkajsSource(cluster, this.kafka(cluster, options.role), options, this.options.logger.child({ cluster }));
    this.open.push({ close: () => source.stopped() });
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
      ...kafkaConfig(this.connection(cluster), `${this.options.clientIdPrefix}|probe`, this.options),
      retry: { retries: 1, initialRetryTime: 200 },
      logLevel: logLevel.NOTHING,
    });
    const admin = probe.admin();
    try {
      await admin.connect();
      await admin.describeCluster();
    } catch (error) {
      throw toUnavailableError(cluster, error);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  private connection(cluster: string): ClusterConnection {
    const connection = this.options.clusters.find((c) => c.alias === cluster);
    if (!connection) throw new ClusterUnavailableError(cluster, 'is not declared in the pipeline');
    return connection;
  }

  async close(): Promise<void> {
    const closing = this.open.splice(0).reverse();
    this.admins.clear();
    await Promise.allSettled(closing.map((c) => c.close()));
  }
}

function kafkaConfig(connection: ClusterConnection, clientId: string, options: KafkajsClientsOptions): KafkaConfig {
  const { security } = connection;
  const tls = security.protocol === 'ssl' || security.protocol === 'sasl_ssl';
  const ssl = security.ssl;
  return {
    clientId,
    brokers: [...connection.bootstrapServers],
    connectionTimeout: connection.connectionTimeoutMs,
    requestTimeout: connection.requestTimeoutMs,
    logLevel: options.debug ? logLevel.DEBUG : logLevel.WARN,
    logCreator: kafkajsLogCreator(options.logger.child({ cluster: connection.alias })),
    ssl: tls
      ? {
          rejectUnauthorized: ssl?.rejectUnauthorized ?? true,
          ca: ssl?.caFile ? [readFileSync(ssl.caFile, 'utf8')] : undefined,
          cert: ssl?.certFile ? readFileSync(ssl.certFile, 'utf8') : undefined,
          key: ssl?.keyFile ? readFileSync(ssl.keyFile, 'utf8') : undefined,
          passphrase: ssl?.keyPassword,
        }
      : undefined,
    sasl: security.sasl
      ? ({ mechanism: security.sasl.mechanism, username: security.sasl.username, password: security.sasl.password } as SASLOptions)
      : undefined,
  };
}
