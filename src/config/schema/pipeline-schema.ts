// size: one zod schema per pipeline section, kept in one file so the whole pipeline file reads top to bottom as the schema it is.
/**
 * The pipeline file, as one zod schema: the single source of truth for validation, defaults, the
 * JSON Schema editors use (`config/pipeline.schema.json`) and the docs. Every key says which MM2
 * setting it stands for, so an MM2 user can find their way, and where our default differs, why.
 *
 * The schema describes the file as written. Cross-field rules (a flow names declared clusters,
 * `sasl` iff a SASL protocol, regexes compile) live in `check-pipeline-semantics.ts`, because they must be
 * reported together with the shape problems, not only once the shape is right.
 */
import { z } from 'zod';
import { DEFAULT_CONFIG_PROPERTIES_EXCLUDE, DEFAULT_GROUPS_EXCLUDE, DEFAULT_GROUPS_INCLUDE, DEFAULT_TOPICS_EXCLUDE } from '../../policy';
import { CONVERTER_NAMES } from '../../plugins';
import { schemaRegistrySchema } from './schema-registry';

/** Cluster aliases become topic prefixes (`primary.orders`) and go into MM2 internal topic names. */
export const clusterAliasPattern = /^[A-Za-z0-9_-]+$/;
/** The pipeline name goes into group ids and client ids. */
export const pipelineNamePattern = /^[A-Za-z0-9._-]+$/;
/** `host:port`, `[ipv6]:port`. The port range is checked separately (a regex cannot say 1..65535 readably). */
const hostPortPattern = /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:,[\]]+):\d{1,5}$/;

/** MM2 `topics.exclude` default, as Kafka 4.3's MirrorSourceConfig has it (one list, in the policy layer). */
export const defaultTopicsExclude: readonly string[] = DEFAULT_TOPICS_EXCLUDE;
/** MM2 `config.properties.exclude` default (DefaultConfigPropertyFilter): never synced. */
export const defaultConfigsExclude: readonly string[] = DEFAULT_CONFIG_PROPERTIES_EXCLUDE;

const positiveInt = () => z.int().min(1);
const nonNegativeInt = () => z.int().min(0);

/**
 * Upper and lower case are both accepted because MM2 files say `SASL_SSL` and `SCRAM-SHA-512`;
 * the validated config always holds the lower-case form.
 */
function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T, description: string) {
  const upper = values.map((v) => v.toUpperCase());
  const accepted = z.enum([...values, ...upper] as [string, ...string[]]).describe(description);
  return {
    required: () => accepted.transform(lowerCase<T[number]>),
    // The default sits inside the transform so that the JSON Schema (input side) shows it.
    withDefault: (value: T[number]) => accepted.default(value).transform(lowerCase<T[number]>),
  };
}

function lowerCase<T extends string>(value: string): T {
  return value.toLowerCase() as T;
}

const hostPort = z
  .string()
  .regex(hostPortPattern, { error: 'must be host:port, e.g. 127.0.0.1:9092', abort: true })
  .refine((value) => {
    const port = Number(value.slice(value.lastIndexOf(':') + 1));
    return port >= 1 && port <= 65535;
  }, 'the port must be between 1 and 65535');

/** Kafka's LIST parsing (ConfigDef): trim, then split on commas with optional spaces around them. */
function splitList(value: string): string[] {
  const trimmed = value.trim();
  return trimmed === '' ? [] : trimmed.split(/\s*,\s*/);
}

const bootstrapServers = z
  .union([z.string().transform(splitList), z.array(z.string())], {
    error: 'expected a list of host:port, or one comma-separated string',
  })
  .pipe(z.array(hostPort).min(1))
  .describe('Brokers to bootstrap from, as a list or a comma-separated string (host:port). MM2: `<alias>.bootstrap.servers`.');

const regexList = (description: string) => z.array(z.string()).describe(description);

const oauthSchema = z
  .strictObject({
    token_endpoint_url: z
      .string()
      .regex(/^https?:\/\/[^\s/]+/i, 'must be an http:// or https:// URL')
      .describe(
        "The OAuth server's token endpoint; mirrorflow asks it for tokens with the client-credentials grant. MM2: `sasl.oauthbearer.token.endpoint.url`.",
      ),
    client_id: z.string().min(1).describe('OAuth client id. MM2: `clientId` in `sasl.jaas.config`, or `sasl.oauthbearer.client.credentials.client.id`.'),
    client_secret: z
      .string()
      .min(1)
      .describe(
        'OAuth client secret; use `${VAR}`, `${env:VAR}` or `${file:PATH:KEY}` to keep it out of the file. MM2: `clientSecret` in `sasl.jaas.config`, or `sasl.oauthbearer.client.credentials.client.secret`.',
      ),
    scope: z
      .string()
      .min(1)
      .optional()
      .describe('Scope to ask for, if the OAuth server needs one. MM2: `scope` in `sasl.jaas.config`, or `sasl.oauthbearer.scope`.'),
  })
  .describe('OAuth client credentials; required with mechanism `oauthbearer`, and only then.');

const saslSchema = z
  .strictObject({
    mechanism: caseInsensitiveEnum(
      ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer', 'aws_msk_iam'],
      'SASL mechanism. `aws_msk_iam`: AWS MSK IAM, tokens signed with AWS credentials and sent over OAUTHBEARER. MM2: `sasl.mechanism` (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM; upper case accepted).',
    ).required(),
    username: z.string().min(1).optional().describe('SASL user name; required with `plain` and `scram-*`. MM2: the `username` in `sasl.jaas.config`.'),
    password: z
      .string()
      .min(1)
      .optional()
      .describe(
        'SASL password; required with `plain` and `scram-*`. Use `${VAR}`, `${env:VAR}` or `${file:PATH:KEY}` to keep it out of the file. MM2: the `password` in `sasl.jaas.config`.',
      ),
    oauth: oauthSchema.optional(),
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region, e.g. eu-west-1')
      .optional()
      .describe(
        'AWS region of the MSK cluster, with mechanism `aws_msk_iam` only; default the region in the bootstrap host names (`b-1.<cluster>.kafka.<region>.amazonaws.com`), else `AWS_REGION`. MM2: read from the bootstrap servers.',
      ),
    profile: z
      .string()
      .min(1)
      .optional()
      .describe(
        "AWS credentials profile (`~/.aws/credentials`, `~/.aws/config`) to sign with, with mechanism `aws_msk_iam` only; default AWS's default credential chain. MM2: `awsProfileName` in `sasl.jaas.config`.",
      ),
    role_arn: z
      .string()
      .regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/\S+$/, 'must be an IAM role ARN, e.g. arn:aws:iam::123456789012:role/msk-mirror')
      .optional()
      .describe(
        "IAM role to assume (through STS, with the default chain's credentials) and sign with, with mechanism `aws_msk_iam` only; not with `profile`. MM2: `awsRoleArn` in `sasl.jaas.config`.",
      ),
    role_session_name: z
      .string()
      .min(1)
      .optional()
      .describe('Session name when assuming `role_arn`; default `MSKSASLDefaultSession`. MM2: `awsRoleSessionName` in `sasl.jaas.config`.'),
  })
  .describe('SASL credentials; required when `protocol` is `sasl_plaintext` or `sasl_ssl`, and only then.');

const sslSchema = z
  .strictObject({
    ca_file: z.string().min(1).optional().describe('PEM file of the CA(s) to trust, relative to the pipeline file. MM2: `ssl.truststore.location`.'),
    ca: z
      .string()
      .min(1)
      .optional()
      .describe('PEM certificates of the CA(s) to trust, in the file itself (with or besides `ca_file`). MM2: `ssl.truststore.certificates`.'),
    cert_file: z.string().min(1).optional().describe('PEM client certificate for mutual TLS, relative to the pipeline file. MM2: `ssl.keystore.location`.'),
    key_file: z.string().min(1).optional().describe('PEM private key of `cert_file`, relative to the pipeline file. MM2: `ssl.keystore.location`.'),
    cert: z
      .string()
      .min(1)
      .optional()
      .describe('PEM client certificate chain in the file itself, instead of `cert_file`. MM2: `ssl.keystore.certificate.chain`.'),
    key: z
      .string()
      .min(1)
      .optional()
      .describe(
        'PEM private key of `cert`, instead of `key_file`; use `${env:VAR}` or `${file:PATH:KEY}` to keep it out of the file. MM2: `ssl.keystore.key`.',
      ),
    truststore_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'JKS or PKCS12 truststore of the CA(s) to trust (the type is read from the file, as Java does), relative to the pipeline file; with or besides `ca_file`. MM2: `ssl.truststore.location` with `ssl.truststore.type` JKS or PKCS12.',
      ),
    truststore_password: z
      .string()
      .optional()
      .describe('Password of `truststore_file`; a JKS truststore without one is read unchecked, as Java does. MM2: `ssl.truststore.password`.'),
    keystore_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'JKS or PKCS12 keystore with the client certificate and key for mutual TLS, instead of `cert_file` and `key_file`; relative to the pipeline file. MM2: `ssl.keystore.location` with `ssl.keystore.type` JKS or PKCS12.',
      ),
    keystore_password: z.string().optional().describe('Password of `keystore_file`; required with it. MM2: `ssl.keystore.password`.'),
    key_password: z
      .string()
      .optional()
      .describe(
        'Passphrase of an encrypted `key_file` or `key`, or of the key in a JKS `keystore_file` when it differs from `keystore_password`. MM2: `ssl.key.password`.',
      ),
    verify_hostname: z
      .boolean()
      .default(true)
      .describe(
        "Check that a broker's certificate names the host it was reached at. Turning it off is logged as a warning at start. MM2: `ssl.endpoint.identification.algorithm` (`https`; empty = off).",
      ),
    reject_unauthorized: z
      .boolean()
      .default(true)
      .describe("Verify the brokers' certificates at all (chain and host name); turn off only for throwaway test clusters. No MM2 equivalent."),
  })
  .describe('TLS settings; used when `protocol` is `ssl` or `sasl_ssl`, and only then.');

function roleSecuritySchema(clients: string, prefix: string) {
  return z
    .strictObject({ sasl: saslSchema.optional(), ssl: sslSchema.optional() })
    .optional()
    .describe(`SASL and TLS settings of ${clients}, instead of the cluster's. MM2: \`<alias>.${prefix}.sasl.*\`, \`<alias>.${prefix}.ssl.*\`.`);
}

const securitySchema = z
  .strictObject({
    protocol: caseInsensitiveEnum(
      ['plaintext', 'ssl', 'sasl_plaintext', 'sasl_ssl'],
      'How clients talk to the brokers. MM2: `security.protocol` (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; upper case accepted).',
    ).withDefault('plaintext'),
    sasl: saslSchema.optional(),
    ssl: sslSchema.optional(),
    roles: z
      .strictObject({
        consumer: roleSecuritySchema('consumers (the replication consumer, and the readers of internal topics and group members)', 'consumer'),
        producer: roleSecuritySchema('producers (records, progress, offset syncs, checkpoints, heartbeats)', 'producer'),
        admin: roleSecuritySchema('the admin client (topics, configs, ACLs, groups)', 'admin'),
      })
      .optional()
      .describe(
        "Other credentials for one kind of client of this cluster, e.g. a producer user without CREATE and an admin user with it. A role's `sasl` or `ssl` replaces the cluster's block whole; a block it does not set is the cluster's. MM2: `<alias>.consumer.*`, `<alias>.producer.*`, `<alias>.admin.*`.",
      ),
  })
  .describe('Transport security of every client of this cluster. MM2: `<alias>.security.protocol`, `<alias>.ssl.*`, `<alias>.sasl.*`.');

export const clusterSchema = z
  .strictObject({
    bootstrap_servers: bootstrapServers,
    client_id: z.string().min(1).optional().describe('Prefix of every client id used against this cluster. MM2: `<alias>.client.id`.'),
    security: securitySchema.prefault({}),
    connection_timeout_ms: positiveInt()
      .default(10000)
      .describe('Time to establish a connection to a broker, ms. MM2: `socket.connection.setup.timeout.ms` (10000).'),
    request_timeout_ms: positiveInt().default(30000).describe('Time to wait for a broker response, ms. MM2: `request.timeout.ms` (30000).'),
  })
  .describe('A Kafka cluster. MM2: the `<alias>.*` properties.');

const defaultPolicySchema = z.strictObject({
  type: z.literal('default').describe('Remote topics are `<source><separator><topic>`. MM2: `DefaultReplicationPolicy`.'),
  separator: z.string().min(1).default('.').describe('Between the source alias and the topic name. MM2: `replication.policy.separator` (".").'),
  internal_topic_separator_enabled: z
    .boolean()
    .default(true)
    .describe(
      'Use `separator` in internal topic names too (`mm2-offset-syncs<sep><alias><sep>internal`); false keeps ".". MM2: `replication.policy.internal.topic.separator.enabled` (true).',
    ),
});

const identityPolicySchema = z.strictObject({
  type: z
    .literal('identity')
    .describe(
      'Remote topics keep their names; only heartbeats are prefixed. Cannot prevent replication loops for normal topics. MM2: `IdentityReplicationPolicy`.',
    ),
  separator: z
    .string()
    .min(1)
    .default('.')
    .describe('Used for the prefixed heartbeats topic (`<source><separator>heartbeats`), as MM2 does. MM2: `replication.policy.separator` (".").'),
});

const replicationPolicySchema = z
  .discriminatedUnion('type', [defaultPolicySchema, identityPolicySchema])
  .describe('How remote topics are named. MM2: `replication.policy.class`.');

const topicAclsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        "Copy the source's topic ACLs of replicated topics to their remote topics: never `ALLOW WRITE`, `ALLOW ALL` as `ALLOW READ`, never deleting a target ACL. A cluster without an authorizer turns it off for the flow (said once). MM2: `sync.topic.acls.enabled` (true).",
      ),
    interval_ms: z
      .int()
      .min(1000)
      .default(60000)
      .describe(
        'How often topic ACLs are synced, ms; the first time at start. Each pass reads the ACLs of both clusters once and creates only the missing ones. MM2: `sync.topic.acls.interval.seconds` (600 s, so an ACL granted on the source reached the target ten minutes later).',
      ),
    prefixed: z
      .boolean()
      .default(true)
      .describe(
        'Copy prefixed topic ACLs too, as prefixed ACLs on the remote name of the prefix (`orders.` → `primary.orders.`), when a replicated topic starts with the prefix. MM2 copies literal ACLs only (an mm2.properties file gets false).',
      ),
  })
  .describe('Topic ACL sync (MM2: `sync.topic.acls.*`).');

const topicSyncSchema = z
  .strictObject({
    refresh_enabled: z
      .boolean()
      .default(true)
      .describe(
        'Look for new topics and partitions every `refresh_interval_ms`; false replicates the topics (and partitions) found at start, and no later ones, as MirrorMaker 1 did. MM2: `refresh.topics.enabled` (true).',
      ),
    refresh_interval_ms: z
      .int()
      .min(1000)
      .default(30000)
      .describe(
        'How often new topics and partitions are looked for, ms. MM2: `refresh.topics.interval.seconds` (600 s, which made new topics appear far too late).',
      ),
    replication_factor: z
      .int()
      .max(32767)
      .refine((value) => value === -1 || value >= 1, "must be -1 (the target broker's default) or at least 1")
      .default(-1)
      .describe(
        "Replication factor of remote topics created on the target; -1 = the target broker's `default.replication.factor`. MM2: `replication.factor` (2).",
      ),
    sync_configs: z
      .boolean()
      .default(true)
      .describe('Copy topic configs to remote topics, when creating them and then every `configs_interval_ms`. MM2: `sync.topic.configs.enabled` (true).'),
    configs_interval_ms: z
      .int()
      .min(1000)
      .default(60000)
      .describe(
        'How often the configs of remote topics are brought in line with their source topics, ms. MM2: `sync.topic.configs.interval.seconds` (600 s, so a retention change took up to 10 minutes to arrive).',
      ),
    use_defaults_from: z
      .enum(['source', 'target'])
      .default('target')
      .describe(
        "For a config at its default on the source: `target` leaves the remote topic at the target cluster's default (removing an override there), `source` sets the source's default value on it. MM2: `use.defaults.from` (target).",
      ),
    configs_exclude: regexList('Topic config names never copied (regexes, full match). MM2: `config.properties.exclude`.').default(() => [
      ...defaultConfigsExclude,
    ]),
    acls: topicAclsSchema.prefault({}),
  })
  .describe('Creating remote topics and keeping their partitions and configs in step with the source.');

const offsetSyncsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('Write offset syncs, which checkpoints need to translate consumer offsets. MM2: `emit.offset-syncs.enabled` (true).'),
    location: z
      .enum(['source', 'target'])
      .default('source')
      .describe('Cluster that holds `mm2-offset-syncs.<cluster>.internal`. MM2: `offset-syncs.topic.location` (source).'),
    lag_max: nonNegativeInt().default(100).describe('Emit a sync at least every this many records per partition. MM2: `offset.lag.max` (100).'),
  })
  .describe('Offset-sync records (MM2-compatible), from which consumer offsets are translated.');

const progressSchema = z
  .strictObject({
    flush_interval_ms: positiveInt()
      .default(5000)
      .describe('How often replicated source offsets are stored, ms; only acknowledged records count. MM2: `offset.flush.interval.ms` (60000).'),
  })
  .describe('Where replication resumes after a restart.');

const batchingSchema = z
  .strictObject({
    max_records: positiveInt()
      .default(10000)
      .describe('Write a batch once it holds this many records, and never more: a larger fetch is written in several (a forwarded record batch is never cut).'),
    max_bytes: positiveInt()
      .default(4194304)
      .describe('Write a batch once it holds this many bytes, and never more: a larger fetch is written in several (a forwarded record batch is never cut).'),
    max_wait_ms: nonNegativeInt()
      .optional()
      .describe(
        "How long a batch may wait for more records, ms, before it is written however small it is. Unset: a batch goes to an idle target at once (with the other partitions of its fetch), and waits up to 10 ms for more only while another write is out, so a trickle is not held back and batches still grow with load. Set: every batch waits up to this long, however idle the target (Kafka's `linger.ms`); 0 never waits.",
      ),
    forward_batches: z
      .boolean()
      .default(true)
      .describe(
        'In flows without transforms, write source record batches to the target as fetched: same records, same compression, not decoded and re-encoded (uncompressed ones from one partition are joined into one batch per write). Not for control, LogAppendTime or compacted-with-gaps batches, batches larger than `producer.max_request_bytes`, nor batches compressed other than `producer.compression` when that is not none: those are re-encoded.',
      ),
    forward_compressed_min_bytes: nonNegativeInt()
      .default(65536)
      .describe(
        "Compressed source batches smaller than this are not forwarded as they are: Kafka takes one batch per partition per produce request, and a compressed batch cannot be joined with others, so forwarding many small ones costs a produce round each. Their records are decompressed into uncompressed batches instead (byte for byte, joined with the others), or, when `producer.compression` is set, re-encoded with it. The default, 64 KiB, decompresses what Java's producer writes with its default `batch.size` of 16384 (compressed batches up to about 22 KiB) and forwards what a tuned one writes (`batch.size` 262144): in the benchmark's compressed workload, 8 KiB gave 1.2-1.7x fewer records/s than 64 KiB, and 3.5x fewer through a 50 ms link with `producer.max_in_flight` 5, because a partition's records alternated between forwarded and joined batches, a produce round each. 0 forwards every compressed batch.",
      ),
  })
  .describe('Batches written to the target, per target partition; a batch is written when any limit is reached. MM2: producer `batch.size` / `linger.ms`.');

const bufferSchema = z
  .strictObject({
    max_bytes: positiveInt()
      .default(16777216)
      .describe('Bytes fetched from the source but not yet acknowledged by the target; fetching pauses at this bound (backpressure).'),
  })
  .describe('Memory bound of one flow.');

const consumerSchema = z
  .strictObject({
    isolation_level: z
      .enum(['read_committed', 'read_uncommitted'])
      .default('read_committed')
      .describe(
        '`read_committed` skips the records of aborted transactions; `read_uncommitted` copies them, and on the target they are committed records that read_committed consumers read. Exactly-once needs read_committed. MM2: `consumer.isolation.level`, whose default (read_uncommitted) an mm2.properties file does not bring along: only a value the file sets, with a warning.',
      ),
    max_bytes_per_partition: positiveInt()
      .default(1048576)
      .describe('Most bytes fetched from one partition per request. MM2: `consumer.max.partition.fetch.bytes` (1048576).'),
    max_wait_ms: nonNegativeInt().default(500).describe('How long a fetch waits for data at the broker, ms. MM2: `consumer.fetch.max.wait.ms` (500).'),
    auto_offset_reset: z
      .enum(['earliest', 'latest'])
      .default('earliest')
      .describe(
        "Where a partition resumes when its source log restarted below the stored position (the topic was deleted and created again, or its log was cut): at the new log's first record, or at its end. Each such reset is logged as a warning and counted (`sourceResets`). MM2: `consumer.auto.offset.reset` (earliest), which also sets `start`.",
      ),
    min_bytes: positiveInt()
      .default(1)
      .describe(
        'A fetch returns once this many bytes are there, or after `max_wait_ms`. 1 returns at once, for the lowest latency. In the benchmark at 5,000 records/s, 16384 with a `max_wait_ms` of 20 halved the CPU mirrorflow used and doubled its median latency (6 to 12 ms). MM2: `consumer.fetch.min.bytes` (1).',
      ),
  })
  .describe('The source consumer. MM2: `<source>.consumer.*`.');

/** Most writes in flight (`producer.max_in_flight`): the batches per partition a broker deduplicates for a producer. */
export const MAX_IN_FLIGHT = 5;

const producerSchema = z
  .strictObject({
    compression: z
      .enum(['none', 'gzip', 'snappy', 'lz4', 'zstd'])
      .default('none')
      .describe('Compression of batches written to the target. MM2: `producer.compression.type` (none).'),
    max_request_bytes: positiveInt()
      .default(1000000)
      .describe(
        'Most bytes of one partition in a produce request; a larger fetched batch is re-encoded to fit, so a source that takes larger batches than the target stays copyable. MM2: `producer.max.request.size` (1048576).',
      ),
    idempotent: z
      .boolean()
      .default(true)
      .describe(
        'Write with a producer id and per-partition sequences, so that a write sent again after its acknowledgement was lost is not appended twice; applies to every producer of the flow. The target must allow it: Kafka 0.11 or newer, and before 2.8 the IDEMPOTENT_WRITE ACL on the cluster; a target that refuses it ends the run with a message naming the cluster. MM2: `producer.enable.idempotence` (Connect sets false).',
      ),
    max_in_flight: positiveInt()
      .max(MAX_IN_FLIGHT)
      .default(MAX_IN_FLIGHT)
      .describe(
        "Writes of replicated records in flight at once, at most 5 (the broker deduplicates a producer's last 5 batches per partition), as Kafka's idempotent Java producer with `max.in.flight.requests.per.connection`. A write does not wait for the previous one's acknowledgement, so a long link or forwarded compressed batches are not bound by one round trip per write. Each partition's records stay in order and land once: their sequences order them, a write behind an earlier one that failed goes again after it, and a partition's first write under a producer id goes alone until acknowledged (until then the broker takes any sequence there); progress only passes records acknowledged with everything before them. 5, the default (as Java's producer), gave 1.37x the records/s of 1 through a 50 ms link in the benchmark's bulk-far-target workload and 1.76x in compressed-far-target; 1 waits for each write. It is 1, whatever is set, without `producer.idempotent`: without sequences a write sent again after a failure can land after a later one, reordering the partition (MM2's Connect producer is not idempotent and keeps 1 in flight for that reason); and with exactly-once (one transaction per slot) and `offsets: preserve` (markers are stored before each write). MM2: `producer.max.in.flight.requests.per.connection` (Connect: 1); a value above 5 from mm2.properties becomes 5, with a warning.",
      ),
  })
  .describe('The target producer (always acks=all). MM2: `<target>.producer.*`.');

const checkpointsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Emit checkpoints (translated consumer group offsets) to `<source>.checkpoints.internal` on the target. MM2: `emit.checkpoints.enabled` (true).',
      ),
    interval_ms: positiveInt()
      .default(60000)
      .describe('How often group offsets are translated and checkpointed, ms. MM2: `emit.checkpoints.interval.seconds` (60).'),
    groups: regexList('Consumer groups to checkpoint (regexes, full match). MM2: `groups`.').default(() => [...DEFAULT_GROUPS_INCLUDE]),
    groups_exclude: regexList('Consumer groups never checkpointed (regexes, full match). MM2: `groups.exclude`.').default(() => [...DEFAULT_GROUPS_EXCLUDE]),
    refresh_groups_enabled: z
      .boolean()
      .default(true)
      .describe(
        'Look for new consumer groups every `refresh_groups_interval_ms`; false checkpoints the groups found at start, and no later ones. MM2: `refresh.groups.enabled` (true).',
      ),
    refresh_groups_interval_ms: z
      .int()
      .min(1000)
      .default(30000)
      .describe('How often new consumer groups are looked for, ms. MM2: `refresh.groups.interval.seconds` (600).'),
    replication_factor: z
      .int()
      .max(32767)
      .refine((value) => value === -1 || value >= 1, "must be -1 (the broker's default) or at least 1")
      .default(-1)
      .describe("Replication factor of the checkpoints topic; -1 = the broker's default. MM2: `checkpoints.topic.replication.factor` (3)."),
    sync_group_offsets: z
      .strictObject({
        enabled: z
          .boolean()
          .default(false)
          .describe("Write translated offsets into the target's consumer groups that have no active members. MM2: `sync.group.offsets.enabled` (false)."),
        interval_ms: positiveInt().default(60000).describe('How often target groups are synced, ms. MM2: `sync.group.offsets.interval.seconds` (60).'),
      })
      .prefault({})
      .describe('Consumer group offset sync into the target cluster (for failover).'),
  })
  .describe('Checkpoints: consumer group offsets translated to the target. MM2: MirrorCheckpointConnector.');

const heartbeatsSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Emit heartbeats to the target's `heartbeats` topic. MM2: `emit.heartbeats.enabled` (true)."),
    interval_ms: positiveInt().default(1000).describe('How often a heartbeat is written, ms. MM2: `emit.heartbeats.interval.seconds` (1).'),
    replication_factor: z
      .int()
      .max(32767)
      .refine((value) => value === -1 || value >= 1, "must be -1 (the broker's default) or at least 1")
      .default(-1)
      .describe("Replication factor of the heartbeats topic; -1 = the broker's default. MM2: `heartbeats.topic.replication.factor` (3)."),
  })
  .describe('Heartbeats: liveness records that let tools count replication hops. MM2: MirrorHeartbeatConnector.');

const deadLetterQueueSchema = z
  .strictObject({
    topic_name: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Topic on the target that receives records that fail with `tolerance: all`: the original key, value, headers and timestamp, then `__connect.errors.*` context headers (source topic, partition, offset, stage, plugin, exception class and message). Created if missing. Required with `tolerance: all`. MM2: `errors.deadletterqueue.topic.name`.',
      ),
    replication_factor: z
      .int()
      .max(32767)
      .refine((value) => value === -1 || value >= 1, "must be -1 (the target broker's default) or at least 1")
      .default(-1)
      .describe(
        "Replication factor of the dead-letter topic when mirrorflow creates it; -1 = the target broker's default. MM2: `errors.deadletterqueue.topic.replication.factor` (3).",
      ),
  })
  .describe('The dead-letter topic. MM2: `errors.deadletterqueue.*`.');

const errorsSchema = z
  .strictObject({
    tolerance: z
      .enum(['none', 'all'])
      .default('none')
      .describe(
        "What a record that a transform throws on, or that the target refuses on its own (larger than the remote topic's `max.message.bytes`), does. `none`: the flow stops naming the record (topic, partition, offset, stage); progress stays before it. `all`: the record goes to `deadletterqueue.topic_name`, is counted and logged (never its contents), and replication goes on; its source offset counts as done once the dead-letter topic acknowledged it. Broker outages are retried, never dead-lettered. MM2: `errors.tolerance` (none).",
      ),
    deadletterqueue: deadLetterQueueSchema.prefault({}),
  })
  .describe("Records that cannot be transformed or written. MM2: Connect's `errors.*`.");

const converterName = z.enum(CONVERTER_NAMES).default('bytes');

const converterSchema = z
  .strictObject({
    key: converterName.describe(
      "How field-level transforms read and write the key: `bytes` (none; they are refused), `string` (UTF-8 text), `json` (JSON; Connect's JsonConverter with `schemas.enable=false`), `json_envelope` (Connect's JsonConverter with `schemas.enable=true`, its default: the `{schema, payload}` envelope, read as typed data and written back with the schema the transforms leave), `avro` (Confluent's AvroConverter: the wire format with a schema id and Avro binary, read with its writer schema from `schema_registry.source` and written back with the Avro schema of what the transforms leave, registered in `schema_registry.target`; needs `schema_registry` with the side in its `on`), `json_schema` (Confluent's JsonSchemaConverter: the wire format with a schema id and JSON text, read with its JSON Schema from `schema_registry.source` and written back with the JSON Schema of what the transforms leave, registered in `schema_registry.target`; needs `schema_registry` as `avro` does), `protobuf` (Confluent's ProtobufConverter: likewise with message indexes and Protobuf binary, written back as the proto3 message of what the transforms leave). MM2: `key.converter` (ByteArrayConverter).",
    ),
    value: converterName.describe('How field-level transforms read and write the value; as `key`. MM2: `value.converter` (ByteArrayConverter).'),
  })
  .describe(
    'How field-level transforms (insert_field, replace_field, cast, mask_field, hoist_field, extract_field) see the key and the value. A side is read only when such a step works on it, once, and written back once; other records and sides keep their bytes.',
  );

const transformStepSchema = z
  .looseObject({
    type: z.string().min(1).describe('Name of a built-in or custom transform plugin.'),
  })
  .describe("One transform: `type` plus that plugin's own options, which its schema checks.");

/** Every flow field except `source`/`target`; also the shape of `flow_defaults`. */
const flowSettings = {
  enabled: z
    .boolean()
    .default(true)
    .describe(
      'Replicate topics and emit checkpoints. MM2: `<source>-><target>.enabled` (false there: flows are off unless enabled; here listing a flow means you want it). A flow with `enabled: false` still emits heartbeats unless `heartbeats.enabled` is false, as MM2 runs heartbeats for every pair of clusters; `mirrorflow convert` writes such heartbeats-only flows.',
    ),
  topics: regexList('Topics to replicate (regexes, full match); an empty list replicates only heartbeats. MM2: `topics`.').default(() => ['.*']),
  topics_exclude: regexList('Topics never replicated (regexes, full match), applied after `topics`. MM2: `topics.exclude`.').default(() => [
    ...defaultTopicsExclude,
  ]),
  replication_policy: replicationPolicySchema.prefault({ type: 'default' }),
  replicate_heartbeats: z
    .boolean()
    .default(true)
    .describe('Replicate `heartbeats` topics even when the topic filters exclude them. MM2: `heartbeats.replication.enabled` (true).'),
  start: z
    .enum(['earliest', 'latest'])
    .default('earliest')
    .describe('Where partitions with no stored progress start. MM2: `consumer.auto.offset.reset` (earliest).'),
  delivery: z
    .enum(['at_least_once', 'exactly_once'])
    .default('at_least_once')
    .describe(
      "`exactly_once`: each source partition's records and the progress that says they were copied are committed in one Kafka transaction on the target, so a `read_committed` consumer of the target sees every committed source record once, whatever process crashes or is fenced (dead letters, offset syncs, checkpoints and heartbeats stay outside the transactions). Needs `producer.idempotent` and `consumer.isolation_level: read_committed`, and a target that allows transactions (the transactional ids `<group>-<slot>`). MM2: `<target>.exactly.once.source.support` (disabled; `enabled` maps here; MM2 ignores it at the top level).",
    ),
  tasks: positiveInt()
    .default(8)
    .describe(
      'Slots of an `exactly_once` flow: each source partition belongs to one slot (by topic and partition), each slot is one transactional producer, and the processes of the pipeline share whole slots, so at most this many do the work. Keep it the same in every process; no effect with `at_least_once`. MM2: `tasks.max` (1).',
    ),
  offsets: z
    .enum(['translate', 'preserve'])
    .default('translate')
    .describe(
      "`preserve`: each target partition holds its source partition's records at the same offsets, so consumers move over with their offsets unchanged (README: Offset-preserving replication). Holds while the target partition started empty and the source has no offsets without a record; every acknowledgement is checked, and a partition where it stops holding is replicated on with offset translation, reported on `/status`. Needs `start: earliest`, `producer.idempotent: true`, `delivery: at_least_once` and no transforms. `translate`: offsets differ and are translated through offset syncs, as MM2 does. A mirrorflow extension; in mm2.properties: `mirrorflow.offsets.preserve = true`.",
    ),
  topic_sync: topicSyncSchema.prefault({}),
  offset_syncs: offsetSyncsSchema.prefault({}),
  progress: progressSchema.prefault({}),
  batching: batchingSchema.prefault({}),
  buffer: bufferSchema.prefault({}),
  consumer: consumerSchema.prefault({}),
  producer: producerSchema.prefault({}),
  checkpoints: checkpointsSchema.prefault({}),
  heartbeats: heartbeatsSchema.prefault({}),
  errors: errorsSchema.prefault({}),
  converter: converterSchema.prefault({}),
  transforms: z
    .array(transformStepSchema)
    .default(() => [])
    .describe('Per-record transforms, in order. MM2: `transforms` (Connect SMTs).'),
  schema_registry: schemaRegistrySchema.optional(),
};

export const flowSchema = z
  .strictObject({
    source: z.string().min(1).describe('Alias of the cluster to copy from. MM2: the `A` in `A->B`.'),
    target: z.string().min(1).describe('Alias of the cluster to copy to; not the source. MM2: the `B` in `A->B`.'),
    ...flowSettings,
  })
  .describe('One direction of replication, source -> target. MM2: a `A->B` flow (its source, checkpoint and heartbeat connectors).');

export const flowDefaultsSchema = z
  .strictObject(flowSettings)
  .describe("Settings every flow starts from; a flow's own value wins. Maps are merged key by key, lists are replaced. MM2: top-level connector properties.");

const loggingSchema = z
  .strictObject({
    level: z.enum(['error', 'warn', 'info', 'debug']).default('info').describe('Least severe level written.'),
    format: z.enum(['text', 'json']).default('text').describe('`text` for people, `json` for log collectors.'),
  })
  .describe('Process logs (stdout).');

// --- HTTP endpoints (metrics, health, status) -----------------------------------------------

/** Default of `http.listen`: loopback only, and not Kafka Connect's 8083, so MM2 can run beside it. */
export const DEFAULT_HTTP_LISTEN = '127.0.0.1:9464';

const httpSchema = z
  .strictObject({
    listen: z
      .string()
      .regex(/^(off|(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5})$/, { error: 'must be HOST:PORT (e.g. 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464) or off' })
      .refine((v) => v === 'off' || Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, { error: 'the port must be 0 to 65535' })
      .optional()
      .describe(
        "Address of the HTTP endpoints (a status page at `/`, `/metrics` for Prometheus, `/healthz`, `/ready`, `/status`, and a subset of Kafka Connect's REST API), as HOST:PORT, or `off`. Unset: `127.0.0.1:9464` (loopback only; 9464 rather than Connect's 8083 so both can run on one host), and when another process of the host holds it, the next free port of 9465-9479 (then any), said in the log, in `/status` and by `mirrorflow status`, so several processes of a pipeline can share a host. An address set here or with `mirrorflow run --http` (which overrides it) is used as given: in use, the run ends. MM2: `listeners` (Connect REST, http://:8083).",
      ),
    connect_api: z
      .enum(['read_only', 'read_write'])
      .default('read_only')
      .describe(
        "What the Connect-style `/connectors` routes allow. `read_only` answers the write routes (PUT config, pause, resume, DELETE, restart) with 405. `read_write` lets anyone who reaches the listener change, pause, stop and restart replication, with no authentication: keep `listen` on loopback (or behind a proxy that authenticates). `mirrorflow run --connect-api` overrides it. MM2: none (a Connect worker's REST API always takes writes).",
      ),
  })
  .describe('HTTP endpoints of the running process: metrics, health, readiness and status.');

// ------------------------------------------------------------------------------------------------

export const pipelineFileSchema = z
  .strictObject({
    name: z
      .string()
      .regex(pipelineNamePattern, { error: 'may only contain letters, digits, ".", "_" and "-"' })
      .optional()
      .describe('Pipeline name, used in group ids and client ids; default: the file name without extension.'),
    clusters: z
      .record(z.string().regex(clusterAliasPattern, { error: 'a cluster alias may only contain letters, digits, "_" and "-"' }), clusterSchema)
      .describe('Clusters by alias. MM2: `clusters` plus the `<alias>.*` properties.'),
    flow_defaults: flowDefaultsSchema.optional(),
    flows: z.array(flowSchema).min(1).describe('Replication flows. MM2: the `A->B.enabled = true` flows.'),
    plugins: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'npm packages of transform plugins the flows may use as `type:`, e.g. `@acme/mirrorflow-mask`: each default-exports one transform definition, and is found as `require` finds it from the folder of this file (its `node_modules` or one above). A mirrorflow extension.',
      ),
    logging: loggingSchema.prefault({}),
    http: httpSchema.prefault({}),
  })
  .meta({
    title: 'mirrorflow pipeline',
    description: 'A mirrorflow pipeline: Kafka clusters and the flows that replicate topics between them. Run with `mirrorflow run FILE`.',
  });
