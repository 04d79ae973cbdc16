/** `flows[].errors`: records that cannot be transformed or written, and the dead-letter topic. */
import { z } from '#zod';

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

export const errorsSchema = z
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
