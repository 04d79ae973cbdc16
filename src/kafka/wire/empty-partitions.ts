/**
 * A flow source consumer's Fetch answer without the partitions that brought nothing, before
 * kafkajs's consumer sees it (install.ts, on the `Broker.fetch` of a consumer that fetches ahead).
 *
 * kafkajs's `ConsumerGroup.fetch` turns every partition of an answer into a `Batch`, empty or not,
 * after looking its topic up with `find` over the request's topics (quadratic in topics) and its
 * partition likewise; its fetcher then marks each batch's partition as taken in a Map and hands
 * them all to the worker queue. An idle consumer of 19,000 partitions did all of that for 19,000
 * empty partitions twice a second. For a partition that brought nothing, what kafkajs does with
 * it is nothing:
 *
 * - its `Batch` is empty, and `Runner.handleBatch` only heartbeats for it (no offset is resolved,
 *   no event emitted, `eachBatch` not called); an answer of nothing at all makes `Runner.fetch`
 *   heartbeat instead, so the heartbeat stays, once per fetch;
 * - its next Fetch asks for the partition from the same offset either way;
 * - the answer's errors were thrown by kafkajs's response parser before this sees it, but a
 *   partition with an error code is kept all the same.
 *
 * Kept: a partition with any message (a record, a forwarded batch, a control record or a record
 * below the fetch offset: kafkajs moves its position past those), and one naming a preferred read
 * replica (KIP-392), which kafkajs remembers for the partition's next fetches.
 */
import type { FetchResponse } from './fetch-ahead';

/** What this reads of a partition of kafkajs's parsed Fetch answer (v4 and later). */
interface AnsweredPartition {
  readonly errorCode?: number;
  readonly preferredReadReplica?: number;
  readonly messages: readonly unknown[];
}

function brought(p: AnsweredPartition): boolean {
  return p.messages.length > 0 || (p.errorCode ?? 0) !== 0 || (p.preferredReadReplica ?? -1) !== -1;
}

/** `response` with the partitions that brought nothing left out, and the topics left with none; the same object when there is none. */
export function withoutEmptyPartitions<R extends FetchResponse>(response: R): R {
  let empty = false;
  for (const topic of response.responses) {
    for (const p of topic.partitions) {
      if (!brought(p)) {
        empty = true;
        break;
      }
    }
    if (empty) break;
  }
  if (!empty) return response;
  const responses: R['responses'][number][] = [];
  for (const topic of response.responses) {
    const partitions = topic.partitions.filter(brought);
    if (partitions.length === topic.partitions.length) responses.push(topic);
    else if (partitions.length > 0) responses.push({ ...topic, partitions });
  }
  return { ...response, responses };
}
