/** `flows[]` and `flow_defaults`: one direction of replication, assembled from the sections beside this file. */
import { z } from '#zod';
import { DEFAULT_TOPICS_EXCLUDE } from '../../policy';
import { batchingSchema } from './batching';
import { bufferSchema } from './buffer';
import { checkpointsSchema } from './checkpoints';
import { consumerSchema } from './consumer';
import { converterSchema } from './converter';
import { errorsSchema } from './errors';
import { positiveInt, regexList } from './fields';
import { heartbeatsSchema } from './heartbeats';
import { verifySchema } from './verify';
import { offsetSyncsSchema } from './offset-syncs';
import { producerSchema } from './producer';
import { progressSchema } from './progress';
import { provenanceSchema, provenanceSchemaWith } from './provenance';
import { replicationPolicySchema } from './replication-policy';
import { schemaRegistrySchema } from './schema-registry';
import { topicSyncSchema } from './topic-sync';
import { transformStepSchema } from './transforms';

/** MM2 `topics.exclude` default, as Kafka 4.3's MirrorSourceConfig has it (one list, in the policy layer). */
export const defaultTopicsExclude: readonly string[] = DEFAULT_TOPICS_EXCLUDE;

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
      "`preserve`: each target partition holds its source partition's records at the same offsets, so consumers move over with their offsets unchanged (docs/failover-and-migration.md: Offset-preserving replication). Holds while the target partition started empty and the source has no offsets without a record; every acknowledgement is checked, and a partition where it stops holding is replicated on with offset translation, reported on `/status`. Needs `start: earliest`, `producer.idempotent: true`, `delivery: at_least_once` and no transforms. `translate`: offsets differ and are translated through offset syncs, as MM2 does. A mirrorflow extension; in mm2.properties: `mirrorflow.offsets.preserve = true`.",
    ),
  topic_sync: topicSyncSchema.prefault({}),
  offset_syncs: offsetSyncsSchema.prefault({}),
  progress: progressSchema.prefault({}),
  batching: batchingSchema.prefault({}),
  buffer: bufferSchema.prefault({}),
  consumer: consumerSchema.prefault({}),
  producer: producerSchema.prefault({}),
  provenance: provenanceSchema.prefault({}),
  checkpoints: checkpointsSchema.prefault({}),
  heartbeats: heartbeatsSchema.prefault({}),
  verify: verifySchema.prefault({}),
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

export const linkSchema = z
  .strictObject({
    clusters: z
      .array(z.string().min(1))
      .describe('The two clusters, by alias: `[west, east]` replicates west -> east and east -> west, as two flows named `west->east` and `east->west`.'),
    ...flowSettings,
    provenance: provenanceSchemaWith(true)
      .prefault({})
      .describe(
        'Provenance headers; on in a link (whatever `flow_defaults` says), so that both directions can keep topic names without a record coming back. `enabled: false` turns them off: records stay byte for byte as the producer wrote them, and kept names both ways are then refused as a loop.',
      ),
  })
  .describe(
    "Replication both ways between two clusters, with one set of settings: both directions' topics, heartbeats and checkpoints, and provenance headers on. Takes every key of `flows[]` except `source` and `target`. MM2: `A->B.enabled = true` and `B->A.enabled = true` with the same settings; `mirrorflow convert` writes such a pair as a link.",
  );

export const flowDefaultsSchema = z
  .strictObject(flowSettings)
  .describe("Settings every flow starts from; a flow's own value wins. Maps are merged key by key, lists are replaced. MM2: top-level connector properties.");
