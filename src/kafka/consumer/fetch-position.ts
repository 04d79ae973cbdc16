import type { LogRestart } from '../../core/ports/record-source';

/**
 * The source's position decisions, kept apart from the kafkajs consumer so they can be tested on
 * their own (src/kafka/consumer/fetch-position.spec.ts). The consumer never commits and starts every
 * assigned partition at its beginning; the flow says where each partition really starts, and
 * these functions say what a fetch means against that position.
 */

/** What to do with a fetch of one partition, given the offset the flow expects to read next. */
export type FetchDecision =
  /** The fetch reaches the expected offset: hand over its records from there on. */
  | { readonly action: 'deliver' }
  /** The fetch ends before the expected offset, which the log still has: seek there and drop this fetch. */
  | { readonly action: 'seek'; readonly offset: number }
  /**
   * The log ends before the expected offset (the topic was recreated, or its log cut): seeking
   * there would only answer OFFSET_OUT_OF_RANGE, after which kafkajs starts over from the
   * beginning, forever. The flow decides where the new log is read from.
   */
  | { readonly action: 'log-restarted'; readonly restart: LogRestart };

/** `lastOffset`: the fetch's last offset; `highWatermark`: the partition's log end as fetched. */
export function decideFetch(expected: number, lastOffset: number, highWatermark: number): FetchDecision {
  if (lastOffset >= expected) return { action: 'deliver' };
  if (highWatermark >= expected) return { action: 'seek', offset: expected };
  return { action: 'log-restarted', restart: { expected, logEnd: highWatermark } };
}

/** After the flow chose where a restarted log is read from: deliver when this fetch reaches it, else seek there. */
export function decideAfterRestart(next: number, lastOffset: number): FetchDecision {
  return lastOffset >= next ? { action: 'deliver' } : { action: 'seek', offset: next };
}

/**
 * kafkajs does not hand over a fetch whose records were all filtered out (aborted transactions,
 * transaction markers); it only moves its own position past them. The flow's position must move
 * too, or a partition ending with such records would show a lag forever and resume before them.
 * Returns the partition's new next offset, or undefined when the fetch changes nothing.
 */
export function positionAfterFilteredFetch(batchSize: number, lastOffset: number, current: number): number | undefined {
  if (batchSize > 0) return undefined;
  const skippedTo = lastOffset + 1;
  return skippedTo > current ? skippedTo : undefined;
}
