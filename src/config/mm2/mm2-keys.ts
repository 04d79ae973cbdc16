// size: the catalogue of every key MM2 defines, one entry each, so a reader finds any key in one place.
/**
 * Every key MirrorMaker 2 defines for its driver file (MirrorMakerConfig, the
 * connector configs, the Connect settings they include, the worker settings the driver passes
 * on), with MM2's type and default, and what mirrorflow does with it. Nothing outside this list
 * and the client settings of `mm2-client-keys.ts` is accepted, so no key is ever silently
 * ignored. The table of MM2 keys in docs/configuration.md is generated from this list.
 */
import { DEFAULT_CONFIG_PROPERTIES_EXCLUDE, DEFAULT_GROUPS_EXCLUDE, DEFAULT_GROUPS_INCLUDE, DEFAULT_TOPICS_EXCLUDE } from '../../policy';

export type Mm2ValueType = 'list' | 'boolean' | 'int' | 'long' | 'short' | 'string' | 'class' | 'password';

/** What mirrorflow does with a key. */
export type Mm2Support =
  /** Read with MM2's meaning and default; `field` is where it lands in the pipeline. */
  | { readonly kind: 'mapped'; readonly field: string }
  /** Accepted without effect, for the reason given; with `warn`, a file that sets it is told so. */
  | { readonly kind: 'no-effect'; readonly why: string; readonly warn: boolean }
  /** Names Java code; only the values in `accepts` pass, as the behaviour mirrorflow has anyway. */
  | { readonly kind: 'java'; readonly why: string; readonly accepts: readonly string[] }
  /** Not supported yet; only the values in `accepts` (MM2's default behaviour) pass. */
  | { readonly kind: 'unsupported'; readonly why: string; readonly accepts: readonly string[] }
  /**
   * An older name MM2 3.x still reads (ConfigUtils.translateDeprecatedConfigs): it stands for
   * `of` unless `of` is set too, which then wins. A file using it gets a note.
   */
  | { readonly kind: 'alias'; readonly of: string; readonly since: string };

/**
 * Where MM2 reads a key. `driver` and `rest`: top level only. `connector`: top level (every flow)
 * or per flow (`A->B.key`). `worker`: the Connect worker of the herders whose target is the
 * cluster (`B.key`; at top level only the prefixes MM2 passes on).
 */
export type Mm2KeyGroup = 'driver' | 'rest' | 'connector' | 'source' | 'checkpoint' | 'heartbeat' | 'connect' | 'worker';

export interface Mm2KeySpec {
  readonly key: string;
  readonly group: Mm2KeyGroup;
  readonly type: Mm2ValueType;
  /** MM2's default as it would be written in the file; undefined when there is none. */
  readonly default?: string;
  readonly support: Mm2Support;
}

const mapped = (field: string): Mm2Support => ({ kind: 'mapped', field });
/** Accepted without effect: a file that sets it is told so, at its line (`warn` false only for a key Connect requires in every file). */
const noEffect = (why: string, warn = true): Mm2Support => ({ kind: 'no-effect', why, warn });
const alias = (of: string, since: string): Mm2Support => ({ kind: 'alias', of, since });
const java = (why: string, ...accepts: string[]): Mm2Support => ({ kind: 'java', why, accepts });
const unsupported = (why: string, ...accepts: string[]): Mm2Support => ({ kind: 'unsupported', why, accepts });

const list = (values: readonly string[]): string => values.join(', ');

const MIRROR = 'org.apache.kafka.connect.mirror.';
export const DEFAULT_POLICY_CLASS = `${MIRROR}DefaultReplicationPolicy`;
export const IDENTITY_POLICY_CLASS = `${MIRROR}IdentityReplicationPolicy`;
/** KIP-382's name for the policy that keeps topic names ("emulate legacy mirror-maker"); Kafka ships it as IdentityReplicationPolicy. */
export const LEGACY_POLICY_CLASSES: readonly string[] = ['org.apache.kafka.mirror.LegacyReplicationPolicy', `${MIRROR}LegacyReplicationPolicy`];
export const BYTE_ARRAY_CONVERTER = 'org.apache.kafka.connect.converters.ByteArrayConverter';

const NO_REST =
  "the REST server MM2's workers talk to each other through is not needed: processes of one pipeline share work through a Kafka consumer group (mirrorflow's own HTTP endpoints, with Connect's REST API, are set with http.listen or run --http)";
const NO_CONNECT_TOPICS = 'mirrorflow keeps no Connect config or status topics';
const CUSTOM_CODE = 'custom Java classes cannot run in mirrorflow; write a transform plugin (plugins/) instead';

export const MM2_KEYS: readonly Mm2KeySpec[] = [
  // MirrorMakerConfig (the driver)
  { key: 'clusters', group: 'driver', type: 'list', support: mapped('clusters, one per alias, with its <alias>.* settings') },
  { key: 'config.providers', group: 'driver', type: 'list', default: '', support: mapped('${file:…}, ${env:…}, ${dir:…} references') },
  {
    key: 'dedicated.mode.enable.internal.rest',
    group: 'driver',
    type: 'boolean',
    default: 'false',
    support: noEffect(NO_REST, true),
  },
  ...[
    'listeners',
    'rest.advertised.host.name',
    'rest.advertised.port',
    'rest.advertised.listener',
    'access.control.allow.origin',
    'access.control.allow.methods',
    'admin.listeners',
    'response.http.headers.config',
    'rest.servlet.initializor.classes',
  ].map((key): Mm2KeySpec => ({ key, group: 'rest', type: 'string', support: noEffect(NO_REST, true) })),

  // MirrorConnectorConfig: common to the three connectors
  { key: 'enabled', group: 'connector', type: 'boolean', default: 'false', support: mapped('flows[].enabled') },
  {
    key: 'emit.heartbeats.enabled',
    group: 'heartbeat',
    type: 'boolean',
    default: 'true',
    support: mapped('flows[].heartbeats.enabled (and which flows exist)'),
  },
  {
    key: 'source.cluster.alias',
    group: 'connector',
    type: 'string',
    support: unsupported("the driver sets it to the flow's source; renaming a cluster per flow is not supported yet"),
  },
  {
    key: 'target.cluster.alias',
    group: 'connector',
    type: 'string',
    support: unsupported("the driver sets it to the flow's target; renaming a cluster per flow is not supported yet"),
  },
  {
    key: 'admin.timeout.ms',
    group: 'connector',
    type: 'long',
    default: '60000',
    support: noEffect("mirrorflow bounds admin calls by each cluster's request_timeout_ms and retries"),
  },
  {
    key: 'replication.policy.class',
    group: 'connector',
    type: 'class',
    default: DEFAULT_POLICY_CLASS,
    support: mapped(
      "flows[].replication_policy.type (DefaultReplicationPolicy = default, IdentityReplicationPolicy = identity, and so is KIP-382's LegacyReplicationPolicy, with a note; other classes are Java code)",
    ),
  },
  { key: 'replication.policy.separator', group: 'connector', type: 'string', default: '.', support: mapped('flows[].replication_policy.separator') },
  {
    key: 'replication.policy.internal.topic.separator.enabled',
    group: 'connector',
    type: 'boolean',
    default: 'true',
    support: mapped('flows[].replication_policy.internal_topic_separator_enabled (read only when replication.policy.separator is set, as in MM2)'),
  },
  {
    key: 'forwarding.admin.class',
    group: 'connector',
    type: 'class',
    default: 'org.apache.kafka.clients.admin.ForwardingAdmin',
    support: java(CUSTOM_CODE, 'org.apache.kafka.clients.admin.ForwardingAdmin'),
  },
  {
    key: 'metric.reporters',
    group: 'connector',
    type: 'list',
    default: 'org.apache.kafka.common.metrics.JmxReporter',
    support: java(
      'mirrorflow has no JMX; it serves Prometheus metrics on /metrics (http.listen) and logs its progress (--status-interval)',
      'org.apache.kafka.common.metrics.JmxReporter',
      '',
    ),
  },

  // MirrorSourceConfig
  { key: 'topics', group: 'source', type: 'list', default: '.*', support: mapped('flows[].topics') },
  // Not MM2's: a mirrorflow extension, so that an mm2.properties file can ask for it too.
  {
    key: 'mirrorflow.offsets.preserve',
    group: 'source',
    type: 'boolean',
    default: 'false',
    support: mapped('flows[].offsets (a mirrorflow extension, not an MM2 key: true is offsets: preserve)'),
  },
  // Not MM2's: Confluent Replicator's key for the same idea, so that an mm2.properties file of an active-active setup can ask for it.
  {
    key: 'provenance.header.enable',
    group: 'source',
    type: 'boolean',
    default: 'false',
    support: mapped(
      "flows[].provenance.enabled (Confluent Replicator's key, not MM2's: true adds mirrorflow's provenance header, which lets identity naming run both ways)",
    ),
  },
  {
    key: 'mirrorflow.verify.enabled',
    group: 'source',
    type: 'boolean',
    default: 'false',
    support: mapped('flows[].verify.enabled (a mirrorflow extension, not an MM2 key)'),
  },
  {
    key: 'mirrorflow.verify.interval.ms',
    group: 'source',
    type: 'long',
    default: '60000',
    support: mapped('flows[].verify.interval_ms (a mirrorflow extension, not an MM2 key)'),
  },
  {
    key: 'mirrorflow.verify.records.per.interval',
    group: 'source',
    type: 'int',
    default: '10000',
    support: mapped('flows[].verify.records_per_interval (a mirrorflow extension, not an MM2 key)'),
  },
  { key: 'topics.exclude', group: 'source', type: 'list', default: list(DEFAULT_TOPICS_EXCLUDE), support: mapped('flows[].topics_exclude') },
  { key: 'topics.blacklist', group: 'source', type: 'list', support: alias('topics.exclude', 'Kafka 2.7') },
  {
    key: 'config.properties.exclude',
    group: 'source',
    type: 'list',
    default: list(DEFAULT_CONFIG_PROPERTIES_EXCLUDE),
    support: mapped('flows[].topic_sync.configs_exclude'),
  },
  { key: 'config.properties.blacklist', group: 'source', type: 'list', support: alias('config.properties.exclude', 'Kafka 2.7') },
  {
    key: 'topic.filter.class',
    group: 'source',
    type: 'class',
    default: `${MIRROR}DefaultTopicFilter`,
    support: java(CUSTOM_CODE, `${MIRROR}DefaultTopicFilter`),
  },
  {
    key: 'config.property.filter.class',
    group: 'source',
    type: 'class',
    default: `${MIRROR}DefaultConfigPropertyFilter`,
    support: java(CUSTOM_CODE, `${MIRROR}DefaultConfigPropertyFilter`),
  },
  {
    key: 'use.defaults.from',
    group: 'source',
    type: 'string',
    default: 'target',
    support: mapped('flows[].topic_sync.use_defaults_from'),
  },
  {
    key: 'use.incremental.alter.configs',
    group: 'source',
    type: 'string',
    default: 'requested',
    support: mapped(
      "requested, required or never (MM2 3.5 to 3.9, deprecated there and gone in Kafka 4.0): mirrorflow always syncs topic configs with IncrementalAlterConfigs (brokers 2.3 and later), which is required's behaviour and Kafka 4.0's; requested and required are read with a note, never with a warning (AlterConfigs would also have dropped the remote topic's other overrides)",
    ),
  },
  {
    key: 'add.source.alias.to.metrics',
    group: 'source',
    type: 'boolean',
    default: 'false',
    support: noEffect("mirrorflow's MM2-named metrics always carry the source label, as Kafka 4.0's do; dashboards written for either read them"),
  },
  {
    key: 'consumer.poll.timeout.ms',
    group: 'source',
    type: 'long',
    default: '1000',
    support: noEffect('a Connect task polling detail; mirrorflow fetches with consumer.max_wait_ms'),
  },
  {
    key: 'refresh.topics.enabled',
    group: 'source',
    type: 'boolean',
    default: 'true',
    support: mapped('flows[].topic_sync.refresh_enabled'),
  },
  { key: 'refresh.topics.interval.seconds', group: 'source', type: 'long', default: '600', support: mapped('flows[].topic_sync.refresh_interval_ms') },
  { key: 'sync.topic.configs.enabled', group: 'source', type: 'boolean', default: 'true', support: mapped('flows[].topic_sync.sync_configs') },
  { key: 'sync.topic.configs.interval.seconds', group: 'source', type: 'long', default: '600', support: mapped('flows[].topic_sync.configs_interval_ms') },
  {
    key: 'sync.topic.acls.enabled',
    group: 'source',
    type: 'boolean',
    default: 'true',
    support: mapped('flows[].topic_sync.acls.enabled (literal topic ACLs, as MM2: flows[].topic_sync.acls.prefixed is set to false)'),
  },
  {
    key: 'sync.topic.acls.interval.seconds',
    group: 'source',
    type: 'long',
    default: '600',
    support: mapped('flows[].topic_sync.acls.interval_ms'),
  },
  {
    key: 'replication.factor',
    group: 'source',
    type: 'int',
    default: '2',
    support: mapped('flows[].topic_sync.replication_factor'),
  },
  {
    key: 'offset-syncs.topic.replication.factor',
    group: 'source',
    type: 'short',
    default: '3',
    support: mapped("flows[].offset_syncs.replication_factor (MM2's default 3 when the file does not set it)"),
  },
  { key: 'offset.lag.max', group: 'source', type: 'long', default: '100', support: mapped('flows[].offset_syncs.lag_max') },
  { key: 'offset-syncs.topic.location', group: 'source', type: 'string', default: 'source', support: mapped('flows[].offset_syncs.location') },
  {
    key: 'emit.offset-syncs.enabled',
    group: 'source',
    type: 'boolean',
    default: 'true',
    support: mapped(
      'flows[].offset_syncs.enabled (checkpoints need it, as in MM2; a flow whose file sets emit.checkpoints.enabled = false writes none unless this key is set: nothing would read them)',
    ),
  },
  { key: 'heartbeats.replication.enabled', group: 'source', type: 'boolean', default: 'true', support: mapped('flows[].replicate_heartbeats') },

  // MirrorCheckpointConfig
  { key: 'groups', group: 'checkpoint', type: 'list', default: list(DEFAULT_GROUPS_INCLUDE), support: mapped('flows[].checkpoints.groups') },
  { key: 'groups.exclude', group: 'checkpoint', type: 'list', default: list(DEFAULT_GROUPS_EXCLUDE), support: mapped('flows[].checkpoints.groups_exclude') },
  { key: 'groups.blacklist', group: 'checkpoint', type: 'list', support: alias('groups.exclude', 'Kafka 2.7') },
  {
    key: 'group.filter.class',
    group: 'checkpoint',
    type: 'class',
    default: `${MIRROR}DefaultGroupFilter`,
    support: java(CUSTOM_CODE, `${MIRROR}DefaultGroupFilter`),
  },
  {
    key: 'refresh.groups.enabled',
    group: 'checkpoint',
    type: 'boolean',
    default: 'true',
    support: mapped('flows[].checkpoints.refresh_groups_enabled'),
  },
  {
    key: 'refresh.groups.interval.seconds',
    group: 'checkpoint',
    type: 'long',
    default: '600',
    support: mapped('flows[].checkpoints.refresh_groups_interval_ms'),
  },
  { key: 'emit.checkpoints.enabled', group: 'checkpoint', type: 'boolean', default: 'true', support: mapped('flows[].checkpoints.enabled') },
  { key: 'emit.checkpoints.interval.seconds', group: 'checkpoint', type: 'long', default: '60', support: mapped('flows[].checkpoints.interval_ms') },
  {
    key: 'sync.group.offsets.enabled',
    group: 'checkpoint',
    type: 'boolean',
    default: 'false',
    support: mapped('flows[].checkpoints.sync_group_offsets.enabled'),
  },
  {
    key: 'sync.group.offsets.interval.seconds',
    group: 'checkpoint',
    type: 'long',
    default: '60',
    support: mapped('flows[].checkpoints.sync_group_offsets.interval_ms'),
  },
  { key: 'checkpoints.topic.replication.factor', group: 'checkpoint', type: 'short', default: '3', support: mapped('flows[].checkpoints.replication_factor') },

  // MirrorHeartbeatConfig
  { key: 'emit.heartbeats.interval.seconds', group: 'heartbeat', type: 'long', default: '1', support: mapped('flows[].heartbeats.interval_ms') },
  { key: 'heartbeats.topic.replication.factor', group: 'heartbeat', type: 'short', default: '3', support: mapped('flows[].heartbeats.replication_factor') },

  // Connect's ConnectorConfig, part of every MM2 connector's config
  // Connect requires a name in every connector config: saying so in each file would be noise.
  { key: 'name', group: 'connect', type: 'string', support: noEffect('the driver names the connectors itself', false) },
  { key: 'connector.class', group: 'connect', type: 'class', support: java('the driver chooses the connector classes itself') },
  {
    key: 'tasks.max',
    group: 'connect',
    type: 'int',
    default: '1',
    support: mapped(
      "flows[].tasks: the slots of an exactly-once flow; outside exactly-once it has no effect (said with a warning): mirrorflow scales by running more processes with the same file, which share the flow's partitions through a consumer group",
    ),
  },
  { key: 'tasks.max.enforce', group: 'connect', type: 'boolean', default: 'true', support: noEffect('see tasks.max') },
  {
    key: 'key.converter',
    group: 'connect',
    type: 'class',
    support: mapped(
      'flows[].converter.key: ByteArrayConverter = bytes, StringConverter = string, JsonConverter with key.converter.schemas.enable=false = json, with schemas.enable=true (its default) = json_envelope, io.confluent.connect.avro.AvroConverter = avro, io.confluent.connect.json.JsonSchemaConverter = json_schema and io.confluent.connect.protobuf.ProtobufConverter = protobuf, each with flows[].schema_registry (source and target) from key.converter.schema.registry.url and key.converter.basic.auth.user.info; other classes are refused',
    ),
  },
  {
    key: 'value.converter',
    group: 'connect',
    type: 'class',
    support: mapped(
      'flows[].converter.value: ByteArrayConverter = bytes, StringConverter = string, JsonConverter with value.converter.schemas.enable=false = json, with schemas.enable=true (its default) = json_envelope, io.confluent.connect.avro.AvroConverter = avro, io.confluent.connect.json.JsonSchemaConverter = json_schema and io.confluent.connect.protobuf.ProtobufConverter = protobuf, each with flows[].schema_registry (source and target) from value.converter.schema.registry.url and value.converter.basic.auth.user.info; other classes are refused',
    ),
  },
  {
    key: 'header.converter',
    group: 'connect',
    type: 'class',
    support: java('mirrorflow copies keys, values and headers as bytes, which is what ByteArrayConverter does', BYTE_ARRAY_CONVERTER),
  },
  {
    key: 'transforms',
    group: 'connect',
    type: 'list',
    default: '',
    support: mapped(
      'flows[].transforms, with transforms.<alias>.type and options per flow (A->B.transforms.<alias>.*): RegexRouter = rename_topic, TimestampRouter = route_by_timestamp, InsertHeader = insert_header, DropHeaders = drop_headers, Filter = drop, and (with a converter) InsertField, ReplaceField, Cast, MaskField, HoistField, ExtractField, Flatten, HeaderFrom, TimestampConverter, SetSchemaMetadata $Key/$Value = insert_field, replace_field, cast, mask_field, hoist_field, extract_field, flatten, header_from, timestamp_converter, set_schema_metadata with on: key/value, and ValueToKey = value_to_key; other classes are refused',
    ),
  },
  {
    key: 'predicates',
    group: 'connect',
    type: 'list',
    default: '',
    support: mapped(
      'flows[].transforms[].when and .negate of any transform (transforms.<alias>.predicate, .negate), with predicates.<alias>.type per flow: TopicNameMatches = topic_matches, HasHeaderKey = has_header, RecordIsTombstone = is_tombstone',
    ),
  },
  { key: 'config.action.reload', group: 'connect', type: 'string', default: 'restart', support: noEffect('mirrorflow reads its configuration once, at start') },
  {
    key: 'errors.retry.timeout',
    group: 'connect',
    type: 'long',
    default: '0',
    support: noEffect('mirrorflow retries transient Kafka errors itself for as long as they last; they never count as a failed record (errors.tolerance)'),
  },
  {
    key: 'errors.retry.delay.max.ms',
    group: 'connect',
    type: 'long',
    default: '60000',
    support: noEffect('mirrorflow retries transient Kafka errors itself for as long as they last; they never count as a failed record (errors.tolerance)'),
  },
  {
    key: 'errors.tolerance',
    group: 'connect',
    type: 'string',
    default: 'none',
    support: mapped('flows[].errors.tolerance (all needs errors.deadletterqueue.topic.name: mirrorflow never skips a record without keeping it)'),
  },
  { key: 'errors.deadletterqueue.topic.name', group: 'connect', type: 'string', default: '', support: mapped('flows[].errors.deadletterqueue.topic_name') },
  {
    key: 'errors.deadletterqueue.topic.replication.factor',
    group: 'connect',
    type: 'short',
    default: '3',
    support: mapped('flows[].errors.deadletterqueue.replication_factor'),
  },
  {
    key: 'errors.deadletterqueue.context.headers.enable',
    group: 'connect',
    type: 'boolean',
    default: 'false',
    support: noEffect(
      'dead-letter records always carry the __connect.errors.* context headers: they name the source position and the failure, never record contents',
      true,
    ),
  },
  { key: 'errors.log.enable', group: 'connect', type: 'boolean', default: 'false', support: noEffect('mirrorflow logs every failure') },
  { key: 'errors.log.include.messages', group: 'connect', type: 'boolean', default: 'false', support: noEffect('mirrorflow never logs record contents') },

  // Connect worker settings the driver passes to the herders of a target cluster
  {
    key: 'offset.flush.interval.ms',
    group: 'worker',
    type: 'long',
    default: '60000',
    support: mapped(
      "flows[].progress.flush_interval_ms of flows into that cluster; when the file does not set it, mirrorflow's own 5000 ms rather than MM2's 60000, so a crash re-copies seconds of data, not a minute",
    ),
  },
  {
    key: 'offset.flush.timeout.ms',
    group: 'worker',
    type: 'long',
    default: '5000',
    support: noEffect('progress is stored once the target acknowledged the records'),
  },
  {
    key: 'offset.storage.topic',
    group: 'worker',
    type: 'string',
    default: 'mm2-offsets.<source>.internal',
    support: mapped('flows[].progress.topic of flows into that cluster (MM2 names it mm2-offsets.<source>.internal unless the file says otherwise)'),
  },
  {
    key: 'group.id',
    group: 'worker',
    type: 'string',
    default: '<source>-mm2',
    support: noEffect(
      "the Connect worker group that MM2 nodes share; mirrorflow's processes share a pipeline's flows through one consumer group per flow on its source, named after the pipeline (mirrorflow.<pipeline name>.<source>-<target>): processes run with the same file (same name) share the work, and a deployment kept apart gets its own name (--set name=…)",
    ),
  },
  {
    key: 'offset.storage.replication.factor',
    group: 'worker',
    type: 'short',
    default: '3',
    support: mapped("flows[].progress.replication_factor of flows into that cluster (Connect's default 3 when the file does not set it)"),
  },
  {
    key: 'offset.storage.partitions',
    group: 'worker',
    type: 'int',
    default: '25',
    support: unsupported("the progress topic has MM2's default 25 partitions", '25'),
  },
  { key: 'config.storage.topic', group: 'worker', type: 'string', support: noEffect(NO_CONNECT_TOPICS) },
  { key: 'config.storage.replication.factor', group: 'worker', type: 'short', default: '3', support: noEffect(NO_CONNECT_TOPICS) },
  { key: 'status.storage.topic', group: 'worker', type: 'string', support: noEffect(NO_CONNECT_TOPICS) },
  { key: 'status.storage.replication.factor', group: 'worker', type: 'short', default: '3', support: noEffect(NO_CONNECT_TOPICS) },
  { key: 'status.storage.partitions', group: 'worker', type: 'int', default: '5', support: noEffect(NO_CONNECT_TOPICS) },
  {
    key: 'exactly.once.source.support',
    group: 'worker',
    type: 'string',
    default: 'disabled',
    support: mapped(
      'flows[].delivery, per target cluster (<cluster>.exactly.once.source.support): enabled is exactly_once; preparing (a step of a rolling upgrade in Connect) is at_least_once',
    ),
  },
  // The worker's group membership: MM2's processes share their work in the Connect worker group
  // on the target; mirrorflow's processes, in each flow's group on the source.
  {
    key: 'session.timeout.ms',
    group: 'worker',
    type: 'int',
    default: '10000',
    support: mapped(
      "flows[].consumer.session_timeout_ms of flows into that cluster, unless their consumer.session.timeout.ms is set; when neither is, mirrorflow's own 6000 ms",
    ),
  },
  {
    key: 'heartbeat.interval.ms',
    group: 'worker',
    type: 'int',
    default: '3000',
    support: mapped(
      "flows[].consumer.heartbeat_interval_ms of flows into that cluster, unless their consumer.heartbeat.interval.ms is set; when neither is, mirrorflow's own 1000 ms",
    ),
  },
  {
    key: 'rebalance.timeout.ms',
    group: 'worker',
    type: 'int',
    default: '60000',
    support: mapped('flows[].consumer.rebalance_timeout_ms of flows into that cluster, unless their consumer.max.poll.interval.ms is set'),
  },
  {
    key: 'scheduled.rebalance.max.delay.ms',
    group: 'worker',
    type: 'int',
    default: '300000',
    support: noEffect('processes of one pipeline rebalance through a Kafka consumer group'),
  },
  { key: 'task.shutdown.graceful.timeout.ms', group: 'worker', type: 'long', default: '5000', support: noEffect('use mirrorflow run --shutdown-timeout') },
];

const byKey = new Map(MM2_KEYS.map((spec) => [spec.key, spec]));

export function mm2Key(key: string): Mm2KeySpec | undefined {
  return byKey.get(key);
}

/** Keys that MM2's connector ConfigDefs know: the only top-level keys that reach a flow (connectorBaseConfig's first step). */
export function isConnectorKey(key: string): boolean {
  // DefaultConfigPropertyFilter reads it, but no connector ConfigDef defines it.
  if (key === 'use.defaults.from') return false;
  const group = byKey.get(key)?.group;
  return group === 'connector' || group === 'source' || group === 'checkpoint' || group === 'heartbeat' || group === 'connect';
}

/** Top-level keys MM2 passes to the Connect workers (MirrorMakerConfig.workerConfig), by prefix. */
export const WORKER_TOP_LEVEL_PREFIXES: readonly string[] = [
  'offset.storage',
  'config.storage',
  'status.storage',
  'key.converter',
  'value.converter',
  'header.converter',
  'task',
  'worker',
  'replication.policy',
];
