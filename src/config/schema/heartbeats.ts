/** `flows[].heartbeats`: liveness records on the target. */
import { z } from '#zod';
import { positiveInt } from './fields';

export const heartbeatsSchema = z
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
