/** `flows[].consumer`: the source consumer. */
import { z } from 'zod';
import { nonNegativeInt, positiveInt } from './fields';

export const consumerSchema = z
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
