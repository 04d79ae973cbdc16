/**
 * One MM2 flow (`source->target` herder) as a pipeline flow, from the connector, client and worker
 * configs MM2 would give its three connectors (see `Mm2DriverConfig`). Every field is written out
 * with MM2's value, its default included, because several of mirrorflow's own defaults differ
 * (topic refresh every 30 s rather than 10 min, replication factor -1 rather than 2, …): a
 * properties file must behave as it did under MM2.
 */
import type { PathSegment } from '../config-path';
import { MAX_IN_FLIGHT } from '../schema/producer';
import { DEFAULT_SESSION_TIMEOUT_MS } from '../schema/consumer';
import { CLIENT_DEFAULTS } from './mm2-client-keys';
import { MM2_KEYS, mm2Key, DEFAULT_POLICY_CLASS, IDENTITY_POLICY_CLASS, LEGACY_POLICY_CLASSES } from './mm2-keys';
import type { HerderPair, Mm2DriverConfig } from './mm2-driver-config';
import type { Mm2Document, Mm2Property, Provenance } from './mm2-document';
import { mapConverters } from './mm2-converter-mapping';
import { mapTransforms } from './mm2-transform-mapping';
import type { Mm2Values } from './mm2-values';

export interface FlowMappingContext {
  readonly driver: Mm2DriverConfig;
  readonly document: Mm2Document;
  readonly values: Mm2Values;
  readonly provenance: (prop: Mm2Property) => Provenance;
}

/** What the mapping learnt about a flow, for checks across flows. */
export interface MappedFlow {
  readonly pair: HerderPair;
  readonly enabled: boolean | undefined;
}

export function mapFlow(pair: HerderPair, index: number, declaredBy: Mm2Property | undefined, context: FlowMappingContext): MappedFlow {
  const { driver, document, values, provenance } = context;
  const connector = driver.connectorConfig(pair);
  const sourceConsumer = driver.clientConfig(connector, 'source', 'consumer');
  const targetProducer = driver.clientConfig(connector, 'target', 'producer');
  const worker = driver.workerConfig(pair.target);
  const base: PathSegment[] = ['flows', index];
  if (declaredBy !== undefined) document.declare(base, provenance(declaredBy));

  /** The effective property, or MM2's default as a property without a place in the file. */
  const effective = (config: ReadonlyMap<string, Mm2Property>, key: string): { prop: Mm2Property; origin: Provenance } => {
    const prop = config.get(key);
    if (prop !== undefined && (prop.entry !== undefined || prop.viaSet === true)) return { prop, origin: provenance(prop) };
    const value = prop?.value ?? mm2Key(key)?.default ?? CLIENT_DEFAULTS[key] ?? '';
    return { prop: { key, value }, origin: { kind: 'default', key } };
  };
  const field = <T>(path: PathSegment[], config: ReadonlyMap<string, Mm2Property>, key: string, read: (prop: Mm2Property) => T | undefined): T | undefined => {
    const { prop, origin } = effective(config, key);
    const value = read(prop);
    if (value !== undefined) document.set([...base, ...path], value, origin);
    else document.fail([...base, ...path]);
    return value;
  };
  const c = withAliasesRead(connector, values);

  document.set([...base, 'source'], pair.source);
  document.set([...base, 'target'], pair.target);
  const enabled = field(['enabled'], c, 'enabled', (p) => values.boolean(p));
  field(['topics'], c, 'topics', (p) => values.list(p));
  field(['topics_exclude'], c, 'topics.exclude', (p) => values.list(p));
  mapPolicy(base, connector, context, effective);
  field(['replicate_heartbeats'], c, 'heartbeats.replication.enabled', (p) => values.booleanLeaf(p));
  // Written only when the file sets it: MM2 files without it stay as they convert today.
  if (c.get('mirrorflow.offsets.preserve')?.entry !== undefined || c.get('mirrorflow.offsets.preserve')?.viaSet === true)
    field(['offsets'], c, 'mirrorflow.offsets.preserve', (p) => {
      const preserve = values.boolean(p);
      return preserve === undefined ? undefined : preserve ? 'preserve' : 'translate';
    });
  // Written only when the file sets it, as the key above.
  if (isSet(c, 'provenance.header.enable')) field(['provenance', 'enabled'], c, 'provenance.header.enable', (p) => values.boolean(p));
  field(['start'], sourceConsumer, 'auto.offset.reset', (p) => values.choice(p, ['earliest', 'latest'] as const, 'none and by_duration are not supported yet'));
  // Continuous verification, a mirrorflow extension: written only when the file sets it.
  if (isSet(c, 'mirrorflow.verify.enabled')) field(['verify', 'enabled'], c, 'mirrorflow.verify.enabled', (p) => values.booleanLeaf(p));
  if (isSet(c, 'mirrorflow.verify.interval.ms')) field(['verify', 'interval_ms'], c, 'mirrorflow.verify.interval.ms', (p) => values.integerLeaf(p, 'long'));
  if (isSet(c, 'mirrorflow.verify.records.per.interval')) {
    field(['verify', 'records_per_interval'], c, 'mirrorflow.verify.records.per.interval', (p) => values.integerLeaf(p, 'int'));
  }

  field(['topic_sync', 'refresh_enabled'], c, 'refresh.topics.enabled', (p) => values.booleanLeaf(p));
  field(['topic_sync', 'refresh_interval_ms'], c, 'refresh.topics.interval.seconds', (p) => values.secondsAsMs(p));
  field(['topic_sync', 'replication_factor'], c, 'replication.factor', (p) => values.integerLeaf(p, 'int'));
  field(['topic_sync', 'sync_configs'], c, 'sync.topic.configs.enabled', (p) => values.booleanLeaf(p));
  field(['topic_sync', 'configs_exclude'], c, 'config.properties.exclude', (p) => values.list(p));
  field(['topic_sync', 'configs_interval_ms'], c, 'sync.topic.configs.interval.seconds', (p) => values.secondsAsMs(p));
  field(['topic_sync', 'use_defaults_from'], c, 'use.defaults.from', (p) => values.choice(p, ['source', 'target'] as const, 'MM2 knows only these two'));
  field(['topic_sync', 'acls', 'enabled'], c, 'sync.topic.acls.enabled', (p) => values.booleanLeaf(p));
  field(['topic_sync', 'acls', 'interval_ms'], c, 'sync.topic.acls.interval.seconds', (p) => values.secondsAsMs(p));
  // MM2 copies literal topic ACLs only.
  document.set([...base, 'topic_sync', 'acls', 'prefixed'], false);
  // Each internal topic with its own factor, MM2's default where the file sets none (3, which a
  // cluster of fewer brokers refuses: such a file sets them, as MM2 needed it to).
  field(['offset_syncs', 'replication_factor'], c, 'offset-syncs.topic.replication.factor', (p) => values.integerLeaf(p, 'short'));
  // Connector configs carry no worker settings: their Connect worker's factor is not known, and the flow's own applies.
  const fromConnectorConfigs = driver.get('clusters')?.aliases !== undefined;
  if (!fromConnectorConfigs || isSet(worker, 'offset.storage.replication.factor'))
    field(['progress', 'replication_factor'], worker, 'offset.storage.replication.factor', (p) => values.integerLeaf(p, 'short'));
  if (isSet(worker, 'offset.storage.topic'))
    field(['progress', 'topic'], worker, 'offset.storage.topic', (p) => values.literal(p, 'to name the progress topic'));
  useIncrementalAlterConfigs(c, values);

  const offsetSyncs = field(['offset_syncs', 'enabled'], c, 'emit.offset-syncs.enabled', (p) => values.boolean(p));
  field(['offset_syncs', 'location'], c, 'offset-syncs.topic.location', (p) => values.choice(p, ['source', 'target'] as const));
  field(['offset_syncs', 'lag_max'], c, 'offset.lag.max', (p) => values.integerLeaf(p, 'long'));
  // Unlike the other keys, MM2's default (60 s) is not kept: it only decides how much a crash
  // copies again, and mirrorflow's 5 s is strictly better at that.
  if (isSet(worker, 'offset.flush.interval.ms'))
    field(['progress', 'flush_interval_ms'], worker, 'offset.flush.interval.ms', (p) => values.integerLeaf(p, 'long'));

  field(['errors', 'tolerance'], c, 'errors.tolerance', (p) => values.choice(p, ['none', 'all'] as const));
  // An empty name is Connect's "no dead-letter topic"; the semantic check then asks for one.
  if (isSet(c, 'errors.deadletterqueue.topic.name') && c.get('errors.deadletterqueue.topic.name')!.value.trim() !== '') {
    field(['errors', 'deadletterqueue', 'topic_name'], c, 'errors.deadletterqueue.topic.name', (p) => p.value.trim());
  }
  mapConverters(base, [c, worker], context);
  mapTransforms(base, c, enabled === true, context);
  field(['errors', 'deadletterqueue', 'replication_factor'], c, 'errors.deadletterqueue.topic.replication.factor', (p) => values.integerLeaf(p, 'short'));

  // MM2's consumer applies auto.offset.reset both where nothing is stored and where the stored
  // offset is no longer in the log.
  field(['consumer', 'auto_offset_reset'], sourceConsumer, 'auto.offset.reset', (p) =>
    values.choice(p, ['earliest', 'latest'] as const, 'none and by_duration are not supported yet'),
  );
  // Connect's exactly-once source support, read from the worker of the target (top level, or
  // `<target>.exactly.once.source.support`, as MM2 reads it).
  const delivery = field(['delivery'], worker, 'exactly.once.source.support', (p) => {
    const support = values.choice(p, ['disabled', 'preparing', 'enabled'] as const);
    if (support === 'preparing') {
      values.warn(
        p,
        `${pair.source}->${pair.target} replicates at least once: preparing is the step of Connect's rolling upgrade before enabled`,
        'set enabled for exactly-once',
      );
    }
    return support === undefined ? undefined : support === 'enabled' ? 'exactly_once' : 'at_least_once';
  });
  field(['tasks'], c, 'tasks.max', (p) => {
    const tasks = values.integerLeaf(p, 'int');
    // tasks.max = 1 (Connect's default, in nearly every connector config) asks for nothing a single process does not do.
    if (enabled === true && delivery !== 'exactly_once' && isSet(c, 'tasks.max') && tasks !== 1)
      values.warnOnce(
        p,
        `has no effect outside exactly-once: mirrorflow does not split a flow into tasks; it scales by running more processes with the same file, which share each flow's partitions through a consumer group (no REST rebalance, no tasks to size)`,
        'start as many mirrorflow processes as MM2 had tasks in all (each takes a share of the partitions), or remove the key',
      );
    return tasks;
  });
  if (isSet(targetProducer, 'acks'))
    for (const p of [effective(targetProducer, 'acks').prop]) {
      const acks = values.choice(p, ['all', '-1', '1', '0'] as const);
      if (acks === '1' || acks === '0')
        values.warnOnce(
          p,
          `is read as acks=all: mirrorflow writes every record with acks=all, so that a record the target acknowledged survives the loss of its leader (acks=${acks} may lose it, and MM2's offset syncs would then point past it)`,
          'remove it, or write acks=all',
        );
    }
  // MM2's consumer default, read_uncommitted, copies what the source's aborted transactions
  // wrote as committed records on the target, where read_committed consumers then read it: that
  // default is not kept (mirrorflow's, read_committed, applies). A value the file sets is; with
  // exactly-once the semantic check refuses read_uncommitted.
  if (isSet(sourceConsumer, 'isolation.level'))
    field(['consumer', 'isolation_level'], sourceConsumer, 'isolation.level', (p) => {
      const level = values.choice(p, ['read_uncommitted', 'read_committed'] as const);
      if (level === 'read_uncommitted' && delivery !== 'exactly_once')
        values.warn(
          p,
          `${pair.source}->${pair.target} copies the records of aborted source transactions: on ${pair.target} they are committed records, which read_committed consumers read`,
          "remove it to read read_committed (mirrorflow's default); read_uncommitted is MM2's default behaviour",
        );
      return level;
    });
  field(['consumer', 'max_bytes_per_partition'], sourceConsumer, 'max.partition.fetch.bytes', (p) => values.integerLeaf(p, 'int'));
  field(['consumer', 'max_wait_ms'], sourceConsumer, 'fetch.max.wait.ms', (p) => values.integerLeaf(p, 'int'));
  field(['consumer', 'min_bytes'], sourceConsumer, 'fetch.min.bytes', (p) => values.integerLeaf(p, 'int'));
  mapGroupTimings(base, sourceConsumer, worker, context, field);
  // A consumer without a rack (Java's default, also an empty value) fetches from leaders.
  if (isSet(sourceConsumer, 'client.rack') && sourceConsumer.get('client.rack')!.value.trim() !== '')
    field(['consumer', 'client_rack'], sourceConsumer, 'client.rack', (p) => p.value.trim());
  field(['producer', 'compression'], targetProducer, 'compression.type', (p) => values.choice(p, ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const));
  field(['producer', 'max_request_bytes'], targetProducer, 'max.request.size', (p) => values.integerLeaf(p, 'int'));
  // Connect's producer default differs (1, kept by its Worker for ordering without idempotence): only a value the file sets is taken over.
  // MM2 takes any value (its producer is not idempotent); above 5 Java's idempotent producer
  // refuses to start, and the broker deduplicates only a producer's last 5 batches: a file MM2
  // ran is not refused, it gets 5, with a warning.
  if (isSet(targetProducer, 'max.in.flight.requests.per.connection'))
    field(['producer', 'max_in_flight'], targetProducer, 'max.in.flight.requests.per.connection', (p) => {
      const value = values.integerLeaf(p, 'int');
      if (typeof value !== 'number' || value <= MAX_IN_FLIGHT) return value;
      // Not idempotent: one write in flight whatever this says (writes-in-flight.ts).
      const idempotenceOff =
        isSet(targetProducer, 'enable.idempotence') && effective(targetProducer, 'enable.idempotence').prop.value.trim().toLowerCase() === 'false';
      if (!idempotenceOff)
        values.warn(
          p,
          `${pair.source}->${pair.target} keeps ${MAX_IN_FLIGHT} writes in flight, not ${value}: an idempotent producer keeps at most ${MAX_IN_FLIGHT} (the broker deduplicates a producer's last ${MAX_IN_FLIGHT} batches per partition)`,
          `write ${MAX_IN_FLIGHT} or less`,
        );
      return MAX_IN_FLIGHT;
    });
  // Connect's producer is not idempotent unless this says so; mirrorflow's is (fewer copies
  // after a lost answer), so only a value the file sets is taken over.
  if (isSet(targetProducer, 'enable.idempotence')) field(['producer', 'idempotent'], targetProducer, 'enable.idempotence', (p) => values.booleanLeaf(p));

  // MM2's checkpoint connector refuses to start without offset syncs (MirrorCheckpointConfig.validate).
  const checkpoints = field(['checkpoints', 'enabled'], c, 'emit.checkpoints.enabled', (p) => {
    const on = values.boolean(p);
    if (on === true && offsetSyncs === false) {
      if (enabled === true)
        values.warn(
          effective(c, 'emit.offset-syncs.enabled').prop,
          `${pair.source}->${pair.target} emits no checkpoints: MM2's checkpoint connector cannot run without offset syncs`,
        );
      return false;
    }
    return on;
  });
  // Checkpoints turned off in a driver file leave the offset syncs without a reader (only the
  // flow's own checkpoint connector reads them): no offset-syncs topic, unless the file asks.
  // A MirrorSourceConnector config writes them, as in Connect: a checkpoint connector may run elsewhere.
  const checkpointsKey = effective(c, 'emit.checkpoints.enabled');
  const driverFile = checkpointsKey.origin.kind === 'property' && checkpointsKey.prop.entry?.file === undefined;
  if (checkpoints === false && offsetSyncs === true && driverFile && !isSet(c, 'emit.offset-syncs.enabled')) {
    document.set([...base, 'offset_syncs', 'enabled'], false, checkpointsKey.origin);
  }
  field(['checkpoints', 'interval_ms'], c, 'emit.checkpoints.interval.seconds', (p) => values.secondsAsMs(p));
  field(['checkpoints', 'groups'], c, 'groups', (p) => values.list(p));
  field(['checkpoints', 'groups_exclude'], c, 'groups.exclude', (p) => values.list(p));
  field(['checkpoints', 'refresh_groups_enabled'], c, 'refresh.groups.enabled', (p) => values.booleanLeaf(p));
  field(['checkpoints', 'refresh_groups_interval_ms'], c, 'refresh.groups.interval.seconds', (p) => values.secondsAsMs(p));
  field(['checkpoints', 'replication_factor'], c, 'checkpoints.topic.replication.factor', (p) => values.integerLeaf(p, 'short'));
  field(['checkpoints', 'sync_group_offsets', 'enabled'], c, 'sync.group.offsets.enabled', (p) => values.booleanLeaf(p));
  field(['checkpoints', 'sync_group_offsets', 'interval_ms'], c, 'sync.group.offsets.interval.seconds', (p) => values.secondsAsMs(p));

  field(['heartbeats', 'enabled'], c, 'emit.heartbeats.enabled', (p) => values.boolean(p));
  field(['heartbeats', 'interval_ms'], c, 'emit.heartbeats.interval.seconds', (p) => values.secondsAsMs(p));
  field(['heartbeats', 'replication_factor'], c, 'heartbeats.topic.replication.factor', (p) => values.integerLeaf(p, 'short'));

  return { pair, enabled };
}

/** Broker defaults of `group.min.session.timeout.ms` and `group.max.session.timeout.ms`: a JoinGroup outside is refused. */
const BROKER_SESSION_RANGE = [6000, 1800000] as const;

/**
 * The timings of the group that shares a flow's partitions between processes. MM2's consumers are
 * assigned their partitions and join no group; MM2's processes share their work in the Connect
 * worker group on the target. So the source consumer's settings are taken when the file sets
 * them (`A.consumer.session.timeout.ms`), else the target worker's (`B.session.timeout.ms`),
 * else none: mirrorflow's defaults, not the Java consumer's (45 s sessions, a 5 min rebalance
 * timeout), which nothing in MM2 used. Each is checked as Kafka documents it.
 */
function mapGroupTimings(
  base: PathSegment[],
  consumer: ReadonlyMap<string, Mm2Property>,
  worker: ReadonlyMap<string, Mm2Property>,
  context: FlowMappingContext,
  field: <T>(path: PathSegment[], config: ReadonlyMap<string, Mm2Property>, key: string, read: (prop: Mm2Property) => T | undefined) => T | undefined,
): void {
  const { values } = context;
  const timing = (name: string, consumerKey: string, workerKey: string): { value: number | string | undefined; prop: Mm2Property } | undefined => {
    const [config, key] = isSet(consumer, consumerKey) ? [consumer, consumerKey] : isSet(worker, workerKey) ? [worker, workerKey] : [];
    if (config === undefined || key === undefined) return undefined;
    return { value: field(['consumer', name], config, key, (p) => values.integerLeaf(p, 'int')), prop: config.get(key)! };
  };
  const session = timing('session_timeout_ms', 'session.timeout.ms', 'session.timeout.ms');
  const heartbeat = timing('heartbeat_interval_ms', 'heartbeat.interval.ms', 'heartbeat.interval.ms');
  timing('rebalance_timeout_ms', 'max.poll.interval.ms', 'rebalance.timeout.ms');
  const [min, max] = BROKER_SESSION_RANGE;
  if (session !== undefined && typeof session.value === 'number' && session.value > 0 && (session.value < min || session.value > max)) {
    values.warn(
      session.prop,
      `a session of ${session.value} ms is outside what brokers accept by default (group.min.session.timeout.ms ${min}, group.max.session.timeout.ms ${max}): they refuse the group's join unless configured otherwise`,
      `write ${min} to ${max}`,
    );
  }
  const sessionMs = typeof session?.value === 'number' ? session.value : DEFAULT_SESSION_TIMEOUT_MS;
  if (heartbeat !== undefined && typeof heartbeat.value === 'number' && heartbeat.value < sessionMs && heartbeat.value * 3 > sessionMs) {
    values.warn(
      heartbeat.prop,
      `a heartbeat every ${heartbeat.value} ms is more than a third of the ${sessionMs} ms session: a process may leave its group after a heartbeat or two is late`,
      `Kafka recommends at most ${Math.floor(sessionMs / 3)} ms`,
    );
  }
}

/**
 * The connector config with MM2's older names read as MM2 3.x reads them
 * (ConfigUtils.translateDeprecatedConfigs): `topics.blacklist` stands for `topics.exclude` unless
 * that is set too, which wins. The note on the old name is the key check's; here only the case
 * where it is ignored.
 */
function withAliasesRead(connector: ReadonlyMap<string, Mm2Property>, values: Mm2Values): ReadonlyMap<string, Mm2Property> {
  let out: Map<string, Mm2Property> | undefined;
  for (const spec of MM2_KEYS) {
    if (spec.support.kind !== 'alias') continue;
    const old = connector.get(spec.key);
    if (old === undefined) continue;
    const current = connector.get(spec.support.of);
    if (current !== undefined) {
      values.warnOnce(old, `is ignored: ${spec.support.of} is set for the same flow and wins, as in MM2 3.x`, `remove ${old.key}`);
      continue;
    }
    out ??= new Map(connector);
    out.set(spec.support.of, old);
  }
  return out ?? connector;
}

/**
 * MM2 3.5–3.9's `use.incremental.alter.configs`: mirrorflow syncs topic configs with
 * IncrementalAlterConfigs whatever it says; `never` asked for AlterConfigs, which replaces a
 * remote topic's whole config and so also drops overrides made on the target.
 */
function useIncrementalAlterConfigs(c: ReadonlyMap<string, Mm2Property>, values: Mm2Values): void {
  if (!isSet(c, 'use.incremental.alter.configs')) return;
  const prop = c.get('use.incremental.alter.configs')!;
  const mode = values.choice(prop, ['requested', 'required', 'never'] as const);
  if (mode === undefined) return;
  values.warnOnce(
    prop,
    mode === 'never'
      ? "is read as required: mirrorflow syncs topic configs with IncrementalAlterConfigs (brokers 2.3 and later), which changes only the configs it syncs; AlterConfigs would also have reset the remote topics' other overrides"
      : `is deprecated in MM2 3.9 and gone in Kafka 4.0: mirrorflow always syncs topic configs with IncrementalAlterConfigs (brokers 2.3 and later), as required asks`,
    'remove it',
  );
}

/** Whether the file (or `--set`) gives `key`, rather than MM2's default standing in for it. */
function isSet(config: ReadonlyMap<string, Mm2Property>, key: string): boolean {
  const prop = config.get(key);
  return prop !== undefined && (prop.entry !== undefined || prop.viaSet === true);
}

function mapPolicy(
  base: PathSegment[],
  connector: ReadonlyMap<string, Mm2Property>,
  context: FlowMappingContext,
  effective: (config: ReadonlyMap<string, Mm2Property>, key: string) => { prop: Mm2Property; origin: Provenance },
): void {
  const { document, values } = context;
  const path = [...base, 'replication_policy'];
  const policy = effective(connector, 'replication.policy.class');
  const className = values.isOpaque(policy.prop) ? undefined : policy.prop.value.trim();
  if (className === undefined) {
    values.report(policy.prop, `comes from a \${…} reference, and convert needs its value`, 'write the class name in the file');
    return;
  }
  const legacy = LEGACY_POLICY_CLASSES.includes(className);
  if (legacy && policy.prop.entry !== undefined) {
    values.warn(
      policy.prop,
      `${className} is KIP-382's name for what Kafka ships as ${IDENTITY_POLICY_CLASS}: topics keep their names (identity policy)`,
      `write ${IDENTITY_POLICY_CLASS}, which MM2 itself can load`,
    );
  }
  const type = className === DEFAULT_POLICY_CLASS ? 'default' : className === IDENTITY_POLICY_CLASS || legacy ? 'identity' : undefined;
  if (type === undefined) {
    values.report(
      policy.prop,
      `names Java code, which mirrorflow cannot run: only MM2's DefaultReplicationPolicy and IdentityReplicationPolicy are built in`,
      `use ${DEFAULT_POLICY_CLASS} (remote topics named <source>.<topic>) or ${IDENTITY_POLICY_CLASS} (names kept)`,
    );
    return;
  }
  document.set([...path, 'type'], type, policy.origin);
  // The policy reads its separator untrimmed, and the internal-topic flag only with a separator.
  const separator = connector.get('replication.policy.separator');
  if (separator === undefined) return;
  document.set([...path, 'separator'], separator.value, context.provenance(separator));
  const internal = connector.get('replication.policy.internal.topic.separator.enabled');
  if (internal === undefined) return;
  const enabled = values.booleanLeaf(internal);
  if (type === 'default') {
    if (enabled !== undefined) document.set([...path, 'internal_topic_separator_enabled'], enabled, context.provenance(internal));
  } else if (enabled !== true) {
    values.report(
      internal,
      `with the identity policy is not supported yet`,
      'with the identity policy mirrorflow names internal topics with the separator, as MM2 does by default',
    );
  }
}
