/**
 * A Fetch of few partitions asks each of them for a share of a per-request size, where that share
 * is more than the consumer's own per-partition size (install.ts, on the `Broker.fetch` of a flow
 * source consumer whose file left `consumer.max_bytes_per_partition` unset).
 *
 * Why: a partition is read one Fetch after another, so a broker that leads one busy partition of a
 * flow hands over at most `max_bytes_per_partition` per round trip. With 10 KiB records at the
 * default 1 MiB, the benchmark's `large` workload (one partition) spent its time in serial 5 ms
 * Fetches of ~750 KB and reached 0.75–0.80× of what the target takes in; 4 MiB per partition
 * copied 1.15–1.19× the records per second (0.97× of the target's ceiling). But 4 MiB for each of
 * eight partitions was 1.09× slower on `bulk`: larger answers that wait longer to be handed over.
 * So the larger size is per request, shared: one partition gets all of it, eight get their own
 * 1 MiB as before.
 *
 * What it never changes: which partitions, from which offsets, in which isolation; a partition
 * already asking for at least its share keeps its own size. A request's total (`maxBytes`) bounds
 * the share, so an answer stays within what the request allowed before.
 */
import type { FetchRequest } from './fetch-ahead';

/**
 * `request` with each partition asking for at least `floor(shared / partitions)` bytes (and no more
 * than the request's own `maxBytes`); the same object when no partition would ask for more.
 */
export function withSharedFetchBytes(request: FetchRequest, shared: number): FetchRequest {
  let partitions = 0;
  for (const topic of request.topics) partitions += topic.partitions.length;
  if (partitions === 0) return request;
  const share = Math.floor(Math.min(shared, request.maxBytes ?? shared) / partitions);
  let widen = false;
  for (const topic of request.topics) {
    for (const p of topic.partitions) if (p.maxBytes < share) widen = true;
  }
  if (!widen) return request;
  return {
    ...request,
    topics: request.topics.map(({ topic, partitions: asked }) => ({
      topic,
      partitions: asked.map((p) => (p.maxBytes < share ? { ...p, maxBytes: share } : p)),
    })),
  };
}
