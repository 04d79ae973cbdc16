import type { KafkaRecord, MirrorRecord, RecordFailure } from '../../core/record';
import { countOnly, recordDigest, type DigestInto } from '../../core/record-digest';

/**
 * How copies are told from other records: `content` by timestamp, key, value and headers (after
 * the flow's transforms, which are run on the source record as the flow runs them); `count` when
 * the target's bytes cannot be worked out from the source's (schema ids moved to another
 * registry, transforms of plugins, which may not give the same output twice): then only how many
 * records the filters let through is compared, in order.
 */
export type ComparedBy = 'content' | 'count';

export interface ExpectedCopyOf {
  readonly by: ComparedBy;
  /** The remote topic the policy names (before the transforms' renames). */
  readonly remoteTopic: string;
  /** The topic compared: where the transforms' renames send the remote topic's records. */
  readonly comparedTopic: string;
  /** The flow's transform chain; none for a flow without transforms. */
  readonly transform?: (records: readonly MirrorRecord[], failures?: RecordFailure[]) => readonly MirrorRecord[];
}

/** What a target record is compared by. */
export function actualDigest(by: ComparedBy): DigestInto {
  return by === 'count' ? countOnly : recordDigest;
}

/**
 * A source record as its copy should be: its digest after the flow's transforms; false when they
 * drop it, fail on it (it went to the dead letters or stopped the flow) or route it to a topic
 * other than the one compared.
 */
export function expectedDigest({ by, remoteTopic, comparedTopic, transform }: ExpectedCopyOf): (record: KafkaRecord, out: Uint32Array, at: number) => boolean {
  if (transform === undefined) return actualDigest(by);
  const failures: RecordFailure[] = [];
  const digest = actualDigest(by);
  return (record, out, at) => {
    const mirrored: MirrorRecord = {
      source: { topic: record.topic, partition: record.partition, offset: record.offset },
      topic: remoteTopic,
      partition: record.partition,
      timestamp: record.timestamp,
      key: record.key,
      value: record.value,
      headers: record.headers,
    };
    failures.length = 0;
    let transformed: readonly MirrorRecord[];
    try {
      transformed = transform([mirrored], failures);
    } catch {
      return false;
    }
    const copy = transformed[0];
    if (copy === undefined || failures.length > 0 || copy.topic !== comparedTopic || copy.partition !== record.partition) return false;
    return digest(copy, out, at);
  };
}
