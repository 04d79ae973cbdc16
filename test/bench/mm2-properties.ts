/**
 * The mm2.properties of the two MirrorMaker 2 runs, written from code so every choice is here.
 *
 * Both runs: one flow source->target over exactly the run's topics, the reverse flow off and its
 * heartbeats off (mirrorflow runs no reverse flow either), replication factor 1 everywhere (one
 * broker per cluster), ACL sync off (the brokers have no authorizer). Checkpoints, heartbeats and
 * offset syncs stay on at MM2's defaults, as they stay on at mirrorflow's (emit checkpoints every
 * 60 s, heartbeats every 1 s, offset syncs with offset.lag.max 100).
 *
 * `default` changes nothing else: tasks.max 1 and Connect's producer (batch.size 16 KiB,
 * linger.ms 5, max.in.flight 1, acks all), offset.flush.interval.ms 60 s.
 *
 * `tuned` follows the tuning MM2's users are pointed to (Kafka's geo-replication docs, the
 * Strimzi/Red Hat guide "Handling high volumes of messages"): more tasks, bigger producer
 * batches with a short linger, more records per poll, a shorter offset flush, and plugin
 * discovery by ServiceLoader as MM2's own startup warning suggests. Compression stays off, as it
 * is for mirrorflow and the limit, so the comparison is about the replicator, not the codec.
 */
import { renderProperties } from '../../src/local/broker-properties';

export type Mm2Variant = 'default' | 'tuned';

export interface Mm2PropertiesInput {
  readonly sourceAlias: string;
  readonly targetAlias: string;
  readonly sourceBootstrap: string;
  readonly targetBootstrap: string;
  /** Regexes of the topics to replicate (MM2 `topics`, full match). */
  readonly topics: readonly string[];
  readonly variant: Mm2Variant;
  /** tasks.max of the tuned run; MM2 caps it at the number of partitions. */
  readonly tunedTasks: number;
  /**
   * On clusters shared with other work (the CI smoke on the test clusters): do not replicate
   * other `*.heartbeats` topics (MM2 replicates them whatever `topics` says) and checkpoint no
   * other consumer groups, so the run touches only its own topics.
   */
  readonly isolateFrom?: string;
  /** Of the topics MM2 creates (remote and internal ones); default 1, 3 on clusters of three brokers. */
  readonly replicationFactor?: number;
}

/** Tuned settings, also shown in the report. `<target>.`/`<source>.` prefixes are added per run. */
export function tunedSettings(tunedTasks: number): Record<string, string> {
  return {
    'tasks.max': String(tunedTasks),
    // Batches as large as one produce request (max.request.size 1 MiB), a linger as short as
    // the wait of mirrorflow's batches while another write is out (10 ms).
    'target.producer.batch.size': '1048576',
    'target.producer.linger.ms': '10',
    'target.producer.compression.type': 'none',
    // As many records per poll as mirrorflow's batching.max_records.
    'source.consumer.max.poll.records': '10000',
    'target.offset.flush.interval.ms': '10000',
    'target.plugin.discovery': 'service_load',
  };
}

export function mm2Properties(input: Mm2PropertiesInput): Record<string, string> {
  const { sourceAlias: s, targetAlias: t } = input;
  const rf = String(input.replicationFactor ?? 1);
  const properties: Record<string, string> = {
    clusters: `${s}, ${t}`,
    [`${s}.bootstrap.servers`]: input.sourceBootstrap,
    [`${t}.bootstrap.servers`]: input.targetBootstrap,
    [`${s}->${t}.enabled`]: 'true',
    [`${s}->${t}.topics`]: input.topics.join(', '),
    [`${t}->${s}.enabled`]: 'false',
    [`${t}->${s}.emit.heartbeats.enabled`]: 'false',
    'replication.factor': rf,
    'checkpoints.topic.replication.factor': rf,
    'heartbeats.topic.replication.factor': rf,
    'offset-syncs.topic.replication.factor': rf,
    'offset.storage.replication.factor': rf,
    'status.storage.replication.factor': rf,
    'config.storage.replication.factor': rf,
    'sync.topic.acls.enabled': 'false',
  };
  if (input.isolateFrom !== undefined) {
    properties['heartbeats.replication.enabled'] = 'false';
    properties['groups'] = `${input.isolateFrom}-no-such-group`;
  }
  if (input.variant === 'tuned') {
    for (const [key, value] of Object.entries(tunedSettings(input.tunedTasks))) {
      // `<alias>.producer.*` of the target reaches the Connect worker's producers (the replication
      // producers); `<alias>.consumer.*` of the source reaches MirrorSourceTask's consumer.
      const resolved = key.replace(/^target\./, `${t}.`).replace(/^source\./, `${s}.`);
      properties[resolved] = value;
    }
  }
  return properties;
}

export function renderMm2Properties(input: Mm2PropertiesInput): string {
  return renderProperties(mm2Properties(input), `MirrorMaker 2 (${input.variant}) for a mirrorflow benchmark run, written by test/bench.`);
}

/** A regex that matches exactly `name` (Java and JS agree on these escapes). */
export function exactTopicRegex(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
