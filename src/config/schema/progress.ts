/** `flows[].progress`: where replication resumes after a restart. */
import { z } from '#zod';
import { internalReplicationFactor, positiveInt } from './fields';

export const progressSchema = z
  .strictObject({
    flush_interval_ms: positiveInt()
      .default(5000)
      .describe('How often replicated source offsets are stored, ms; only acknowledged records count. MM2: `offset.flush.interval.ms` (60000).'),
    topic: z
      .string()
      .min(1)
      .max(249)
      .regex(/^[A-Za-z0-9._-]+$/, 'a Kafka topic name: letters, digits, ".", "_" and "-"')
      .optional()
      .describe(
        "The topic on the target that holds the flow's progress (Connect's source offsets, keyed by the source alias, so flows from several sources may share one). Default `mm2-offsets.<source>.internal`, MM2's. MM2: `offset.storage.topic` of the target cluster's worker.",
      ),
    replication_factor: internalReplicationFactor(
      "Replication factor of the progress topic when mirrorflow creates it; -1 = the broker's default; unset = `topic_sync.replication_factor`. MM2: `offset.storage.replication.factor` (3).",
    ),
  })
  .describe('Where replication resumes after a restart.');
