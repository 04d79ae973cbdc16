/** `flows[].producer`: the target producer. */
import { z } from '#zod';
import { positiveInt } from './fields';

/** Most writes in flight (`producer.max_in_flight`): the batches per partition a broker deduplicates for a producer. */
export const MAX_IN_FLIGHT = 5;

export const producerSchema = z
  .strictObject({
    compression: z
      .enum(['none', 'gzip', 'snappy', 'lz4', 'zstd'])
      .default('none')
      .describe('Compression of batches written to the target. MM2: `producer.compression.type` (none).'),
    max_request_bytes: positiveInt()
      .default(1048576)
      .describe(
        "Most bytes of one partition in a produce request; a larger fetched batch is re-encoded to fit, so a source that takes larger batches than the target stays copyable. The default, 1 MiB as Java's producer (and within a broker's default `message.max.bytes`, 1048588), takes what one fetch of a partition brings at 1 MiB per partition (`consumer.max_bytes_per_partition`'s own size) in one request: with 10 KiB records in 256 KiB source batches, 1000000 sent each such fetch as two requests (75 and 25 records), and the benchmark's `large` workload copied 1.8× as many records per second once running with one. MM2: `producer.max.request.size` (1048576).",
      ),
    idempotent: z
      .boolean()
      .default(true)
      .describe(
        'Write with a producer id and per-partition sequences, so that a write sent again after its acknowledgement was lost is not appended twice; applies to every producer of the flow. The target must allow it: Kafka 0.11 or newer, and before 2.8 the IDEMPOTENT_WRITE ACL on the cluster; a target that refuses it ends the run with a message naming the cluster. MM2: `producer.enable.idempotence` (Connect sets false).',
      ),
    max_in_flight: positiveInt()
      .max(MAX_IN_FLIGHT)
      .default(MAX_IN_FLIGHT)
      .describe(
        "Writes of replicated records in flight at once, at most 5 (the broker deduplicates a producer's last 5 batches per partition), as Kafka's idempotent Java producer with `max.in.flight.requests.per.connection`. A write does not wait for the previous one's acknowledgement, so a long link or forwarded compressed batches are not bound by one round trip per write. Each partition's records stay in order and land once: their sequences order them, a write behind an earlier one that failed goes again after it and the later writes of its partition wait until it has gone, a partition's first write under a producer id goes alone until acknowledged (until then the broker takes any sequence there), and while a write of a partition waits to go again (its leader moved, say) at most four later batches of the partition go before it, so that the broker still recognises it if it was written; progress only passes records acknowledged with everything before them. 5, the default (as Java's producer), gave 1.37x the records/s of 1 through a 50 ms link in the benchmark's bulk-far-target workload and 1.76x in compressed-far-target; 1 waits for each write. It is 1, whatever is set, without `producer.idempotent`: without sequences a write sent again after a failure can land after a later one, reordering the partition (MM2's Connect producer is not idempotent and keeps 1 in flight for that reason); and with exactly-once (one transaction per slot) and `offsets: preserve` (markers are stored before each write). MM2: `producer.max.in.flight.requests.per.connection` (Connect: 1); a value above 5 from mm2.properties becomes 5, with a warning.",
      ),
  })
  .describe('The target producer (always acks=all). MM2: `<target>.producer.*`.');
