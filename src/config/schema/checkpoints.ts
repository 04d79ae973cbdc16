/** `flows[].checkpoints`: consumer group offsets translated to the target, and synced into its groups. */
import { z } from '#zod';
import { DEFAULT_GROUPS_EXCLUDE, DEFAULT_GROUPS_INCLUDE } from '../../policy';
import { positiveInt, regexList } from './fields';

export const checkpointsSchema = z
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
    groups_exclude: regexList(
      "Consumer groups never checkpointed (regexes, full match); mirrorflow's own groups (`mirrorflow.…`, `mirrorflow-drill.…`, `mirrorflow-reader-…`) never are either. MM2: `groups.exclude`.",
    ).default(() => [...DEFAULT_GROUPS_EXCLUDE]),
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
