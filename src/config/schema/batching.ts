/** `flows[].batching`: the batches written to the target. */
import { z } from '#zod';
import { nonNegativeInt, positiveInt } from './fields';

export const batchingSchema = z
  .strictObject({
    max_records: positiveInt()
      .default(10000)
      .describe('Write a batch once it holds this many records, and never more: a larger fetch is written in several (a forwarded record batch is never cut).'),
    max_bytes: positiveInt()
      .default(4194304)
      .describe('Write a batch once it holds this many bytes, and never more: a larger fetch is written in several (a forwarded record batch is never cut).'),
    max_wait_ms: nonNegativeInt()
      .optional()
      .describe(
        "How long a batch may wait for more records, ms, before it is written however small it is. Unset: a batch goes to an idle target at once (with the other partitions of its fetch), and waits up to 10 ms for more only while another write is out, so a trickle is not held back and batches still grow with load. Set: every batch waits up to this long, however idle the target (Kafka's `linger.ms`); 0 never waits.",
      ),
    forward_batches: z
      .boolean()
      .default(true)
      .describe(
        'In flows without transforms, write source record batches to the target as fetched: same records, same compression, not decoded and re-encoded (uncompressed ones from one partition are joined into one batch per write). Not for control, LogAppendTime or compacted-with-gaps batches, batches larger than `producer.max_request_bytes`, nor batches compressed other than `producer.compression` when that is not none: those are re-encoded.',
      ),
    forward_compressed_min_bytes: nonNegativeInt()
      .default(65536)
      .describe(
        "Compressed source batches smaller than this on average are not forwarded as they are: Kafka takes one batch per partition per produce request, and a compressed batch cannot be joined with others, so forwarding many small ones costs a produce round each. Decided per partition and fetch: when a partition's compressed batches of one fetch are smaller than this on average, their records are decompressed and joined (byte for byte) with the others, and the joined batch is compressed again with the source's codec, or with `producer.compression` when that is set, so the target keeps what the source compressed; otherwise all of them are forwarded, so a partition never alternates between the two (a produce round for each change). The default, 64 KiB, joins what Java's producer writes with its default `batch.size` of 16384 (compressed batches up to about 16 KiB in the benchmark) and with `batch.size` 262144 and the default `linger.ms` of 5 (3-250 KiB, 26 KiB on average in the benchmark, where forwarding them used 1.1-1.2x the CPU and gave 0.64-0.74x the records/s of joining), and forwards what fills larger batches (`linger.ms` 50). 0 forwards every compressed batch.",
      ),
  })
  .describe('Batches written to the target, per target partition; a batch is written when any limit is reached. MM2: producer `batch.size` / `linger.ms`.');
