/**
 * Kafka client settings in an mm2.properties file: what mirrorflow does with each one MM2 users
 * write (`A.security.protocol`, `A.consumer.isolation.level`, `A->B.producer.compression.type`).
 * Connection settings belong to a cluster in a pipeline; a few consumer and producer settings
 * belong to a flow; tuning knobs of the Java clients are accepted without effect (and said so);
 * anything else is refused, so no setting is silently dropped.
 */
import type { Mm2Support } from './mm2-keys';

export type ClientRole = 'consumer' | 'producer' | 'admin';
export const CLIENT_ROLES: readonly ClientRole[] = ['consumer', 'producer', 'admin'];

/** MM2's `MirrorClientConfig.CLIENT_CONFIG_DEF`: the keys a cluster prefix hands to every client role. */
export function isSharedClientKey(key: string): boolean {
  return key === 'bootstrap.servers' || key === 'security.protocol' || key.startsWith('ssl.') || key.startsWith('sasl.');
}

/** Settings that say how to reach a cluster: one value per cluster in a pipeline. */
export const CONNECTION_KEYS: readonly string[] = [
  'bootstrap.servers',
  'security.protocol',
  'sasl.mechanism',
  'sasl.jaas.config',
  'sasl.kerberos.service.name',
  'sasl.login.callback.handler.class',
  'sasl.client.callback.handler.class',
  'sasl.oauthbearer.token.endpoint.url',
  'sasl.oauthbearer.client.credentials.client.id',
  'sasl.oauthbearer.client.credentials.client.secret',
  'sasl.oauthbearer.scope',
  'ssl.truststore.location',
  'ssl.truststore.type',
  'ssl.truststore.password',
  'ssl.keystore.location',
  'ssl.keystore.type',
  'ssl.keystore.password',
  'ssl.key.password',
  'ssl.endpoint.identification.algorithm',
  'ssl.truststore.certificates',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.key',
  'client.id',
  'request.timeout.ms',
  'socket.connection.setup.timeout.ms',
];

export function isConnectionKey(key: string): boolean {
  return CONNECTION_KEYS.includes(key);
}

const KERBEROS_RENEWAL =
  'MIT Kerberos gets a new ticket from the keytab itself when one expires; without a keytab, renewing the ticket cache is yours (kinit -R)';
const TLS_NEGOTIATION = 'Node.js negotiates the TLS version and ciphers itself';
/** Only a consumer fetches from a replica of its rack; Java's producer and admin know no client.rack either. */
const NOT_A_CONSUMER_RACK = 'only the consumer fetches from the nearest replica: write it as consumer.client.rack';
const JAVA_CLIENT_TUNING = "a Java client tuning setting; mirrorflow sizes fetches and batches with the flow's consumer, batching and buffer settings";

/** Connection settings that are refused with a reason, or accepted without effect. */
const CONNECTION_EXTRAS: Readonly<Record<string, Mm2Support>> = {
  'ssl.protocol': { kind: 'no-effect', why: TLS_NEGOTIATION, warn: true },
  'ssl.enabled.protocols': { kind: 'no-effect', why: TLS_NEGOTIATION, warn: true },
  'ssl.cipher.suites': { kind: 'no-effect', why: TLS_NEGOTIATION, warn: true },
  'ssl.keymanager.algorithm': { kind: 'no-effect', why: TLS_NEGOTIATION, warn: true },
  'ssl.trustmanager.algorithm': { kind: 'no-effect', why: TLS_NEGOTIATION, warn: true },
  'ssl.secure.random.implementation': { kind: 'no-effect', why: TLS_NEGOTIATION, warn: true },
  'ssl.provider': { kind: 'no-effect', why: TLS_NEGOTIATION, warn: true },
  'ssl.engine.factory.class': { kind: 'java', why: 'custom Java classes cannot run in mirrorflow', accepts: [] },
  'sasl.login.class': { kind: 'java', why: 'custom Java classes cannot run in mirrorflow', accepts: [] },
  'sasl.kerberos.kinit.cmd': { kind: 'no-effect', why: KERBEROS_RENEWAL, warn: true },
  'sasl.kerberos.ticket.renew.window.factor': { kind: 'no-effect', why: KERBEROS_RENEWAL, warn: true },
  'sasl.kerberos.ticket.renew.jitter': { kind: 'no-effect', why: KERBEROS_RENEWAL, warn: true },
  'sasl.kerberos.min.time.before.relogin': { kind: 'no-effect', why: KERBEROS_RENEWAL, warn: true },
};

/** Prefixes of SASL settings mirrorflow cannot use. */
const UNSUPPORTED_SASL_PREFIXES: readonly [string, string][] = [
  ['sasl.kerberos.', 'a Kerberos setting of brokers, or one mirrorflow does not know'],
  ['sasl.oauthbearer.', 'of the OAUTHBEARER client settings mirrorflow reads the token endpoint, client id, client secret and scope'],
];

/** Token login timing of the Java client: mirrorflow has its own (a token is renewed at 80 % of its lifetime). */
const LOGIN_TIMING_PREFIX = 'sasl.login.';

/** Settings common to every Java client that mirrorflow has no use for. */
const COMMON_TUNING = [
  'receive.buffer.bytes',
  'send.buffer.bytes',
  'metadata.max.age.ms',
  'reconnect.backoff.ms',
  'reconnect.backoff.max.ms',
  'retry.backoff.ms',
  'retry.backoff.max.ms',
  'connections.max.idle.ms',
  'socket.connection.setup.timeout.max.ms',
  'client.dns.lookup',
  'metrics.num.samples',
  'metrics.sample.window.ms',
  'metrics.recording.level',
  'default.api.timeout.ms',
];

/** Flow settings read from the replication consumer and producer (`flows[].consumer/producer`). */
const ROLE_MAPPED: Readonly<Record<ClientRole, Readonly<Record<string, string>>>> = {
  consumer: {
    'isolation.level': 'flows[].consumer.isolation_level',
    'auto.offset.reset': 'flows[].start, flows[].consumer.auto_offset_reset',
    'max.partition.fetch.bytes': 'flows[].consumer.max_bytes_per_partition',
    'fetch.max.wait.ms': 'flows[].consumer.max_wait_ms',
    'fetch.min.bytes': 'flows[].consumer.min_bytes',
    'session.timeout.ms': 'flows[].consumer.session_timeout_ms',
    'heartbeat.interval.ms': 'flows[].consumer.heartbeat_interval_ms',
    'max.poll.interval.ms': 'flows[].consumer.rebalance_timeout_ms',
    'client.rack': 'flows[].consumer.client_rack',
  },
  producer: {
    'compression.type': 'flows[].producer.compression',
    'max.request.size': 'flows[].producer.max_request_bytes',
    'enable.idempotence': 'flows[].producer.idempotent',
    'max.in.flight.requests.per.connection': 'flows[].producer.max_in_flight',
    // Read in mm2-flow-mapping.ts: all and -1 as they are, 0 and 1 with a warning.
    acks: 'none: mirrorflow always writes with acks=all, so that no acknowledged record can be lost (acks=1 or 0 is accepted with a warning)',
  },
  admin: {},
};

/** Kafka's client defaults for the settings a flow reads (those a flow takes only when the file sets them have none here). */
export const CLIENT_DEFAULTS: Readonly<Record<string, string>> = {
  'isolation.level': 'read_uncommitted',
  'auto.offset.reset': 'latest',
  'max.partition.fetch.bytes': '1048576',
  'fetch.max.wait.ms': '500',
  'fetch.min.bytes': '1',
  'compression.type': 'none',
  'max.request.size': '1048576',
};

const ROLE_EXTRAS: Readonly<Record<ClientRole, Readonly<Record<string, Mm2Support>>>> = {
  consumer: {
    'enable.auto.commit': { kind: 'no-effect', why: 'MM2 forces it to false, and mirrorflow never commits on the source either', warn: true },
    'group.id': { kind: 'no-effect', why: 'the replication consumer is assigned partitions; mirrorflow names its own group', warn: true },
    'fetch.max.bytes': { kind: 'no-effect', why: JAVA_CLIENT_TUNING, warn: true },
    'max.poll.records': { kind: 'no-effect', why: JAVA_CLIENT_TUNING, warn: true },
    'check.crcs': { kind: 'no-effect', why: JAVA_CLIENT_TUNING, warn: true },
    'exclude.internal.topics': { kind: 'no-effect', why: 'internal topics are never replicated', warn: true },
    'allow.auto.create.topics': { kind: 'no-effect', why: 'mirrorflow never creates topics by reading them', warn: true },
    'partition.assignment.strategy': { kind: 'java', why: 'custom Java classes cannot run in mirrorflow', accepts: [] },
    'key.deserializer': { kind: 'java', why: 'mirrorflow copies bytes', accepts: ['org.apache.kafka.common.serialization.ByteArrayDeserializer'] },
    'value.deserializer': { kind: 'java', why: 'mirrorflow copies bytes', accepts: ['org.apache.kafka.common.serialization.ByteArrayDeserializer'] },
    'interceptor.classes': { kind: 'java', why: 'custom Java classes cannot run in mirrorflow', accepts: [''] },
  },
  producer: {
    'batch.size': { kind: 'no-effect', why: 'mirrorflow batches per target partition with flows[].batching', warn: true },
    'linger.ms': { kind: 'no-effect', why: 'mirrorflow batches per target partition with flows[].batching', warn: true },
    'buffer.memory': { kind: 'no-effect', why: 'mirrorflow bounds memory per flow with flows[].buffer.max_bytes', warn: true },
    'delivery.timeout.ms': { kind: 'no-effect', why: 'mirrorflow retries a failed write until the flow is stopped', warn: true },
    retries: { kind: 'no-effect', why: 'mirrorflow retries a failed write until the flow is stopped', warn: true },
    'max.block.ms': { kind: 'no-effect', why: JAVA_CLIENT_TUNING, warn: true },
    'client.rack': { kind: 'no-effect', why: NOT_A_CONSUMER_RACK, warn: true },
    'partitioner.class': { kind: 'java', why: 'records keep their partition number', accepts: [] },
    'key.serializer': { kind: 'java', why: 'mirrorflow copies bytes', accepts: ['org.apache.kafka.common.serialization.ByteArraySerializer'] },
    'value.serializer': { kind: 'java', why: 'mirrorflow copies bytes', accepts: ['org.apache.kafka.common.serialization.ByteArraySerializer'] },
    'interceptor.classes': { kind: 'java', why: 'custom Java classes cannot run in mirrorflow', accepts: [''] },
    'transactional.id': {
      kind: 'unsupported',
      why: 'mirrorflow names its transactional ids itself (<group>-<slot>, one per slot); set exactly.once.source.support = enabled for exactly-once replication',
      accepts: [],
    },
  },
  admin: {
    retries: { kind: 'no-effect', why: 'mirrorflow retries transient admin errors itself', warn: true },
    'client.rack': { kind: 'no-effect', why: NOT_A_CONSUMER_RACK, warn: true },
  },
};

/** What a client setting written for `role` (or for every role, when undefined) leads to. */
export type ClientKeyUse =
  | { readonly kind: 'connection' }
  | { readonly kind: 'flow'; readonly field: string }
  | { readonly kind: 'support'; readonly support: Mm2Support }
  | { readonly kind: 'unknown'; readonly candidates: readonly string[] };

export function clientKeyUse(key: string, role: ClientRole | undefined): ClientKeyUse {
  if (isConnectionKey(key)) return { kind: 'connection' };
  const extra = CONNECTION_EXTRAS[key];
  if (extra !== undefined) return { kind: 'support', support: extra };
  for (const [prefix, why] of UNSUPPORTED_SASL_PREFIXES) {
    if (key.startsWith(prefix)) return { kind: 'support', support: { kind: 'unsupported', why, accepts: [] } };
  }
  if (key.startsWith(LOGIN_TIMING_PREFIX)) {
    return {
      kind: 'support',
      support: { kind: 'no-effect', why: 'mirrorflow renews an OAuth token at 80 % of its lifetime and retries on its own', warn: true },
    };
  }
  if (COMMON_TUNING.includes(key)) return { kind: 'support', support: { kind: 'no-effect', why: JAVA_CLIENT_TUNING, warn: key !== 'client.rack' } };
  if (role !== undefined) {
    const field = ROLE_MAPPED[role][key];
    if (field !== undefined) return { kind: 'flow', field };
    const support = ROLE_EXTRAS[role][key];
    if (support !== undefined) return { kind: 'support', support };
  }
  return { kind: 'unknown', candidates: knownClientKeys(role) };
}

/**
 * The roles whose settings include `key`, e.g. `consumer` for `isolation.level`: those where it
 * has an effect, when it has one somewhere (`client.rack`: the consumer only).
 */
export function rolesOf(key: string): ClientRole[] {
  const mapped = CLIENT_ROLES.filter((role) => ROLE_MAPPED[role][key] !== undefined);
  return mapped.length > 0 ? mapped : CLIENT_ROLES.filter((role) => ROLE_EXTRAS[role][key] !== undefined);
}

/** Every client key this file knows for `role`, for did-you-mean hints. */
export function knownClientKeys(role: ClientRole | undefined): string[] {
  const roles = role === undefined ? [] : [role];
  return [
    ...CONNECTION_KEYS,
    ...Object.keys(CONNECTION_EXTRAS),
    ...COMMON_TUNING,
    ...roles.flatMap((r) => [...Object.keys(ROLE_MAPPED[r]), ...Object.keys(ROLE_EXTRAS[r])]),
  ];
}
