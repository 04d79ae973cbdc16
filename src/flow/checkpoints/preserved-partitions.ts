import { type Observable, firstValueFrom, from, of } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { topicPartitionKey, type TopicPartition } from '../../core/record';
import { describeError } from '../../core/errors';
import { readPreservationMarkers } from '../replication/preservation-markers';

/** A partition that holds its source's offsets: the first offset preserved, and the target partition's end. */
export interface PreservedRange {
  readonly since: number;
  readonly end: number;
}

/** Preserved partitions by remote topic-partition (`topicPartitionKey`). */
export type PreservedPartitions = ReadonlyMap<string, PreservedRange>;

const NONE_PRESERVED: PreservedPartitions = new Map();

/**
 * The partitions of a flow with `offsets: preserve` that hold their source's offsets, read from
 * the markers of `markerGroup` on the target (offset-preservation.ts) with each partition's end;
 * empty when the markers cannot be read (then every offset is translated, as always). Without a
 * marker group nothing is read, and a pass stays synchronous up to its first request.
 */
export function preservedPartitions(targetAdmin: ClusterAdmin, markerGroup: string | undefined, logger: Logger): Observable<PreservedPartitions> {
  return markerGroup === undefined ? of(NONE_PRESERVED) : from(readPreservedPartitions(targetAdmin, markerGroup, logger));
}

async function readPreservedPartitions(targetAdmin: ClusterAdmin, markerGroup: string, logger: Logger): Promise<PreservedPartitions> {
  const found = new Map<string, PreservedRange>();
  try {
    const markers = await readPreservationMarkers(targetAdmin, markerGroup);
    const topics = new Set<string>();
    for (const [key, marker] of markers) if (marker.preserved) topics.add(key.slice(0, key.lastIndexOf('-')));
    for (const topic of topics) {
      for (const p of await firstValueFrom(targetAdmin.partitionOffsets(topic))) {
        const marker = markers.get(topicPartitionKey({ topic, partition: p.partition }));
        if (marker?.preserved === true) found.set(topicPartitionKey({ topic, partition: p.partition }), { since: marker.offset, end: p.latest });
      }
    }
  } catch (error) {
    logger.debug('Reading which partitions keep their offsets failed; this pass translates every offset.', { error: describeError(error) });
    found.clear();
  }
  return found;
}

/**
 * A group offset on a preserved partition (`remote`), from the first offset preserved up to the
 * target's end, is the same offset on the target, once replicated up to it; undefined otherwise.
 */
export function preservedOffset(preserved: PreservedPartitions, remote: TopicPartition, offset: number): number | undefined {
  const range = preserved.size === 0 ? undefined : preserved.get(topicPartitionKey(remote));
  return range !== undefined && offset >= range.since && offset <= range.end ? offset : undefined;
}
