/** `flows[].consumer`: the source consumer. */
import { z } from '#zod';
import { nonNegativeInt, positiveInt } from './fields';

/** The group's timings when a file does not set them: the shortest session a broker accepts by default, a heartbeat a sixth of it, kafkajs's rebalance timeout. */
export const DEFAULT_SESSION_TIMEOUT_MS = 6000;
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 1000;
export const DEFAULT_REBALANCE_TIMEOUT_MS = 60000;

export const consumerSchema = z
  .strictObject({
    isolation_level: z
      .enum(['read_committed', 'read_uncommitted'])
      .default('read_committed')
      .describe(
        '`read_committed` skips the records of aborted transactions; `read_uncommitted` copies them, and on the target they are committed records that read_committed consumers read. Exactly-once needs read_committed. MM2: `consumer.isolation.level`, whose default (read_uncommitted) an mm2.properties file does not bring along: only a value the file sets, with a warning.',
      ),
    max_bytes_per_partition: positiveInt()
      .optional()
      .describe(
        "Most bytes fetched from one partition per request. Unset: 1048576 (1 MiB), and a request to a broker this process fetches fewer than four partitions from shares 4 MiB among them (at most a quarter of `buffer.max_bytes`): a partition is read one request after another, so one busy partition on a broker is bound by a request's round trip. In the benchmark's `large` workload (10 KiB records, one partition) that copied 1.16–1.34× the records per second once running; eight partitions keep 1 MiB each, which was faster for them. Set, every partition asks for exactly this. MM2: `consumer.max.partition.fetch.bytes` (1048576).",
      ),
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
    session_timeout_ms: positiveInt()
      .default(DEFAULT_SESSION_TIMEOUT_MS)
      .describe(
        "How long the flow's group waits for a process that stopped heartbeating (killed, cut off) before its partitions go to the others, ms. Brokers accept 6000 to 1800000 by default (`group.min.session.timeout.ms`, `group.max.session.timeout.ms`). MM2: `consumer.session.timeout.ms`, or the target's Connect worker setting `<target>.session.timeout.ms` when the consumer's is not set; MM2's consumer default (45000) does not apply, as MM2's consumers join no group.",
      ),
    heartbeat_interval_ms: positiveInt()
      .default(DEFAULT_HEARTBEAT_INTERVAL_MS)
      .describe(
        "How often a process tells its group it is alive, ms; also how soon it learns of a rebalance. Below `session_timeout_ms`, and at most a third of it as Kafka recommends. MM2: `consumer.heartbeat.interval.ms`, or `<target>.heartbeat.interval.ms` (the worker's).",
      ),
    rebalance_timeout_ms: positiveInt()
      .default(DEFAULT_REBALANCE_TIMEOUT_MS)
      .describe(
        "How long a rebalance waits for every process to rejoin the flow's group, ms; a process first waits up to half of it for what it fetched to be acknowledged, and one that takes longer is left out of the generation. MM2: `consumer.max.poll.interval.ms` (the Java consumer's rebalance timeout), or `<target>.rebalance.timeout.ms` (the worker's); MM2's consumer default (300000) does not apply.",
      ),
    client_rack: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The rack (availability zone) this process runs in, as the source's brokers name theirs in `broker.rack`: with a broker-side `replica.selector.class` of `org.apache.kafka.common.replica.RackAwareReplicaSelector`, partitions are fetched from a replica in the same rack, not across zones from the leader. Per host, so usually `${env:…}`. MM2: `consumer.client.rack`.",
      ),
  })
  .describe('The source consumer. MM2: `<source>.consumer.*`.');
