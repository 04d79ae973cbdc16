/** `flows[].offset_syncs`: the MM2 offset-sync records that consumer offsets are translated through. */
import { z } from '#zod';
import { internalReplicationFactor, nonNegativeInt } from './fields';

export const offsetSyncsSchema = z
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
    replication_factor: internalReplicationFactor(
      "Replication factor of the offset-syncs topic when mirrorflow creates it; -1 = the broker's default; unset = `topic_sync.replication_factor`. MM2: `offset-syncs.topic.replication.factor` (3).",
    ),
  })
  .describe('Offset-sync records (MM2-compatible), from which consumer offsets are translated.');
