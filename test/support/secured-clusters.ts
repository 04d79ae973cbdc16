/**
 * Secured clusters of one test file (see src/local/local-security.ts): each has a SASL_SSL
 * listener (SCRAM-SHA-512, SCRAM-SHA-256, PLAIN), an SSL listener that requires a client
 * certificate, and the StandardAuthorizer with `admin` as the only super user. Started before the
 * file's first test, stopped after its last one, like ownClusters().
 *
 *     const secured = securedClusters(['source', 'target']);
 *     const kit = secured.adminKit('source');                   // topics, records, as the super user
 *     const cluster = await secured.client('target', 'mtls', 'alice');   // YAML `clusters.<alias>` for alice
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { ClusterSecurity } from '../../src/core/cluster';
import {
  javaCommand,
  readLocalPassword,
  startLocalClusters,
  type LocalCluster,
  type LocalClusterSecurity,
  type LocalClusters,
  type LocalSecurityOptions,
  type RestartableBroker,
} from '../../src/local';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes } from '../../src/kafka/kafkajs';
import { KafkaKit } from './kafka-kit';
import { cleanupHarness } from './pipeline-harness';
import { waitFor } from './wait-for';

/** How a client logs in: a SASL mechanism over the SASL_SSL listener, or its certificate on the SSL one. */
export type LocalLogin = 'scram-sha-512' | 'scram-sha-256' | 'plain' | 'mtls';

/** A pipeline's `clusters.<alias>` entry (snake_case, as written in YAML) and the same for the adapters. */
export interface SecuredClient {
  readonly bootstrap: string;
  /** For a pipeline file: `{ bootstrap_servers, security }`. */
  readonly yaml: Record<string, unknown>;
  /** For KafkaKit / KafkajsClients. */
  readonly security: ClusterSecurity;
}

export interface SecuredClusters<A extends string> {
  /** Resolves once the clusters serve clients; for a file's own `before` hooks, which may run alongside the one that starts them. */
  ready(): Promise<void>;
  cluster(alias: A): LocalCluster & { readonly security: LocalClusterSecurity };
  /** The broker of `alias`, to halt and start again (its server.properties is read at each start). */
  broker(alias: A): RestartableBroker;
  security(alias: A): LocalClusterSecurity;
  password(alias: A, user: string): Promise<string>;
  /** How `user` (default the super user) reaches `alias` with `login`. */
  client(alias: A, login: LocalLogin, user?: string): Promise<SecuredClient>;
  /** A KafkaKit logged in as the super user with SCRAM-SHA-512 over TLS, closed after the file. */
  adminKit(alias: A): Promise<KafkaKit>;
  /**
   * A Java client properties file for `user` with `login`, written the way Kafka users write
   * them (PEM truststore by location, JAAS inline, client certificate and key inline).
   */
  javaClientProperties(alias: A, login: LocalLogin, user: string, dir: string): Promise<string>;
  /**
   * Writes `lines` to `topic` with Kafka's own console producer (the Java client) logged in as
   * `user` with `login`, from a client properties file; a line is `header:value,…<TAB>key<TAB>value`.
   */
  produceWithJava(alias: A, login: LocalLogin, user: string, topic: string, lines: readonly string[], dir: string): Promise<void>;
  /** Lets `user` do anything with every topic and group and the cluster (ACLs, as the super user). */
  grantAll(alias: A, user: string): Promise<void>;
}

export function securedClusters<A extends string>(aliases: readonly A[], options: LocalSecurityOptions = {}): SecuredClusters<A> {
  let local: LocalClusters | undefined;
  const kits = new Map<A, Promise<KafkaKit>>();
  let markReady!: (started: boolean) => void;
  const ready = new Promise<boolean>((resolve) => (markReady = resolve));
  before(async () => {
    try {
      local = await startLocalClusters({ aliases, heapMb: 384, security: options });
    } finally {
      markReady(local !== undefined);
    }
  });
  after(async () => {
    await cleanupHarness();
    await Promise.all([...kits.values()].map(async (kit) => (await kit).close()));
    await local?.stop();
  });
  const cluster = (alias: A): LocalCluster & { readonly security: LocalClusterSecurity } => {
    if (local === undefined) throw new Error('securedClusters() are used before they started: use them inside tests or hooks.');
    const found = local.clusters[alias];
    if (found?.security === undefined) throw new Error(`No secured cluster "${alias}".`);
    return found as LocalCluster & { readonly security: LocalClusterSecurity };
  };
  const security = (alias: A): LocalClusterSecurity => cluster(alias).security;
  const client = async (alias: A, login: LocalLogin, user?: string): Promise<SecuredClient> => {
    const s = security(alias);
    const name = user ?? s.superUser;
    if (login === 'mtls') {
      const certificate = s.clientCertificates[name];
      if (certificate === undefined) throw new Error(`No client certificate for "${name}" on ${alias}.`);
      return {
        bootstrap: s.sslBootstrap,
        yaml: {
          bootstrap_servers: [s.sslBootstrap],
          security: { protocol: 'ssl', ssl: { ca_file: s.caFile, cert_file: certificate.certFile, key_file: certificate.keyFile } },
        },
        security: {
          protocol: 'ssl',
          ssl: { caFile: s.caFile, certFile: certificate.certFile, keyFile: certificate.keyFile, verifyHostname: true, rejectUnauthorized: true },
        },
      };
    }
    const password = await readLocalPassword(s, name);
    return {
      bootstrap: s.saslSslBootstrap,
      yaml: {
        bootstrap_servers: [s.saslSslBootstrap],
        security: { protocol: 'sasl_ssl', sasl: { mechanism: login, username: name, password }, ssl: { ca_file: s.caFile } },
      },
      security: {
        protocol: 'sasl_ssl',
        sasl: { mechanism: login, username: name, password },
        ssl: { caFile: s.caFile, verifyHostname: true, rejectUnauthorized: true },
      },
    };
  };
  const api: SecuredClusters<A> = {
    ready: async () => {
      if (!(await ready)) throw new Error('The secured clusters did not start.');
    },
    cluster,
    broker: (alias) => {
      if (local === undefined) throw new Error('securedClusters() are used before they started: use them inside tests or hooks.');
      return local.broker(alias);
    },
    security,
    password: (alias, user) => readLocalPassword(security(alias), user),
    client,
    adminKit: (alias) => {
      let kit = kits.get(alias);
      if (kit === undefined) {
        kit = client(alias, 'scram-sha-512').then((c) => new KafkaKit(c.bootstrap, c.security));
        kits.set(alias, kit);
      }
      return kit;
    },
    produceWithJava: async (alias, login, user, topic, lines, dir) => {
      const config = await api.javaClientProperties(alias, login, user, dir);
      const java = javaCommand(local!.distribution, {
        mainClass: 'org.apache.kafka.tools.ConsoleProducer',
        profile: 'tool',
        logDir: undefined,
        args: [
          '--bootstrap-server',
          login === 'mtls' ? security(alias).sslBootstrap : security(alias).saslSslBootstrap,
          '--topic',
          topic,
          '--command-config',
          config,
          '--property',
          'parse.key=true',
          '--property',
          'parse.headers=true',
          '--property',
          'null.marker=<null>',
        ],
      });
      await new Promise<void>((resolve, reject) => {
        const child = execFile(java.command, java.args, { timeout: 120_000, killSignal: 'SIGKILL' }, (error, _stdout, stderr) =>
          error ? reject(new Error(`The Java console producer failed: ${error.message}\n${stderr.slice(-3000)}`, { cause: error })) : resolve(),
        );
        child.stdin!.end(lines.map((line) => `${line}\n`).join(''));
      });
    },
    grantAll: async (alias, user) => {
      const s = security(alias);
      const kafka = new Kafka({
        brokers: [s.saslSslBootstrap],
        clientId: 'mirrorflow-test-acls',
        ssl: { ca: [readFileSync(s.caFile, 'utf8')] },
        sasl: { mechanism: 'scram-sha-512', username: s.superUser, password: await readLocalPassword(s, s.superUser) },
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      try {
        const resources: [AclResourceTypes, string][] = [
          [AclResourceTypes.TOPIC, '*'],
          [AclResourceTypes.GROUP, '*'],
          [AclResourceTypes.CLUSTER, 'kafka-cluster'],
        ];
        await admin.createAcls({
          acl: resources.map(([resourceType, resourceName]) => ({
            resourceType,
            resourceName,
            resourcePatternType: ResourcePatternTypes.LITERAL,
            principal: `User:${user}`,
            host: '*',
            operation: AclOperationTypes.ALL,
            permissionType: AclPermissionTypes.ALLOW,
          })),
        });
        // The broker applies ACLs from the metadata log; wait until it answers with them.
        await waitFor(
          async () => {
            const described = await admin.describeAcls({
              resourceType: AclResourceTypes.ANY,
              resourcePatternType: ResourcePatternTypes.ANY,
              principal: `User:${user}`,
              operation: AclOperationTypes.ANY,
              permissionType: AclPermissionTypes.ANY,
            });
            return described.resources.length >= resources.length;
          },
          { what: `the ACLs of ${user} on ${alias}`, timeoutMs: 30_000 },
        );
      } finally {
        await admin.disconnect();
      }
    },
    javaClientProperties: async (alias, login, user, dir) => {
      const s = security(alias);
      const lines = [
        `bootstrap.servers=${login === 'mtls' ? s.sslBootstrap : s.saslSslBootstrap}`,
        'ssl.truststore.type=PEM',
        `ssl.truststore.location=${s.caFile}`,
      ];
      if (login === 'mtls') {
        const certificate = s.clientCertificates[user]!;
        const oneLine = (pem: string): string => pem.trim().split('\n').join(' \\\n    ');
        lines.push(
          'security.protocol=SSL',
          'ssl.keystore.type=PEM',
          `ssl.keystore.certificate.chain=${oneLine(await readFile(certificate.certFile, 'utf8'))}`,
          `ssl.keystore.key=${oneLine(await readFile(certificate.keyFile, 'utf8'))}`,
        );
      } else {
        const module =
          login === 'plain' ? 'org.apache.kafka.common.security.plain.PlainLoginModule' : 'org.apache.kafka.common.security.scram.ScramLoginModule';
        const password = await readLocalPassword(s, user);
        lines.push(
          'security.protocol=SASL_SSL',
          `sasl.mechanism=${login.toUpperCase()}`,
          `sasl.jaas.config=${module} required username="${user}" password="${password}";`,
        );
      }
      const file = join(dir, `${alias}-${user}-${login}.properties`);
      writeFileSync(file, lines.join('\n') + '\n', { mode: 0o600 });
      return file;
    },
  };
  return api;
}

/**
 * The lines an mm2.properties needs for one-broker test clusters: MM2's defaults (2 and 3
 * replicas) cannot be met there. With quick topic refreshes and progress flushes.
 */
export const SINGLE_BROKER_MM2_LINES: readonly string[] = [
  'replication.factor = 1',
  'offset-syncs.topic.replication.factor = 1',
  'offset.storage.replication.factor = 1',
  'checkpoints.topic.replication.factor = 1',
  'heartbeats.topic.replication.factor = 1',
  'refresh.topics.interval.seconds = 1',
  'offset.flush.interval.ms = 500',
];

/** The mm2.properties lines of a `source` cluster reached over SASL_SSL with SCRAM-SHA-512 as `username`. */
export function scramSourceLines(bootstrap: string, username: string, password: string): string[] {
  return [
    `source.bootstrap.servers = ${bootstrap}`,
    'source.security.protocol = SASL_SSL',
    'source.sasl.mechanism = SCRAM-SHA-512',
    `source.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required username="${username}" password="${password}";`,
  ];
}
