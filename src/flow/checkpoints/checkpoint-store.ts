/**
 * The checkpoints already emitted, per consumer group and target topic-partition (MM2's
 * `CheckpointStore` plus `MirrorCheckpointTask.checkpointIsMoreRecent`).
 *
 * Loaded once from `<source>.checkpoints.internal` on the target when a flow starts, so a
 * restarted flow keeps its checkpoints monotonic; then updated in memory with every checkpoint
 * the flow writes. Also the way tools read a checkpoints topic (`CheckpointStore.read`).
 */
import { type Observable, catchError, defer, lastValueFrom, map, of, reduce } from '#rxjs';
import type { GroupOffset } from '../../core/ports/cluster-admin';
import type { Logger } from '../../core/ports/logger';
import { silentLogger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord } from '../../core/record';
import { topicPartitionKey } from '../../core/record';
import { describeError } from '../../core/errors';
import { type Checkpoint, RecordFormatError, decodeCheckpoint } from '../../formats';

export interface CheckpointReadOptions {
  /** Keep only these groups (MM2 keeps the task's groups); default: every group. */
  readonly acceptGroup?: (group: string) => boolean;
  readonly logger?: Logger;
}

/** Why a new checkpoint is written or not (MM2's `checkpointIsMoreRecent`, with its trace reasons, and `upstream-advanced`). */
export type CheckpointDecision =
  'first-for-group' | 'first-for-partition' | 'upstream-rewind' | 'downstream-advanced' | 'upstream-advanced' | 'repeated' | 'downstream-rewind';

export class CheckpointStore {
  private readonly groups = new Map<string, Map<string, Checkpoint>>();
  private skipped = 0;

  /**
   * Reads partition 0 of a checkpoints topic to its end (the last checkpoint per group and
   * partition wins; malformed records are skipped with a warning). Errors if the read fails.
   */
  static read(reader: TopicReader, topic: string, options: CheckpointReadOptions = {}): Observable<CheckpointStore> {
    return defer(() => {
      const store = new CheckpointStore();
      const accept = options.acceptGroup ?? (() => true);
      const logger = options.logger ?? silentLogger;
      return reader.readToEnd(topic).pipe(
        reduce((_, batch) => {
          // MM2 reads only partition 0 of its internal topics.
          if (batch.partition === 0) store.addRecords(topic, batch.records, accept, logger);
          return store;
        }, store),
      );
    });
  }

  /**
   * MM2's `CheckpointStore.start()`: loads the topic; on any failure (the topic cannot be read,
   * say for lack of READ permission) the store stays empty and the result is false, which makes
   * the offset-sync store keep only the latest sync per partition while it loads (so no
   * translation can go behind a checkpoint it could not see).
   */
  static load(reader: TopicReader, topic: string, options: CheckpointReadOptions = {}): Observable<{ store: CheckpointStore; loaded: boolean }> {
    const logger = options.logger ?? silentLogger;
    return CheckpointStore.read(reader, topic, options).pipe(
      map((store) => {
        logger.info('Checkpoints loaded.', { topic, groups: store.groups.size, checkpoints: store.size });
        return { store, loaded: true };
      }),
      catchError((error: unknown) => {
        logger.warn('Could not load the checkpoints topic; only offsets replicated from now on will be checkpointed.', {
          topic,
          error: describeError(error),
        });
        return of({ store: new CheckpointStore(), loaded: false });
      }),
    );
  }

  /** Adds records of a checkpoints topic in log order; returns how many were skipped as malformed. */
  addRecords(topic: string, records: readonly KafkaRecord[], accept: (group: string) => boolean = () => true, logger: Logger = silentLogger): number {
    let skipped = 0;
    let firstOffset: number | undefined;
    let reason: string | undefined;
    for (const record of records) {
      let cp: Checkpoint;
      try {
        cp = decodeCheckpoint(record.key, record.value);
      } catch (error) {
        if (!(error instanceof RecordFormatError)) throw error;
        skipped++;
        firstOffset ??= record.offset;
        reason ??= error.message;
        continue;
      }
      if (accept(cp.consumerGroupId)) this.put(cp);
    }
    if (skipped > 0) {
      this.skipped += skipped;
      logger.warn('Skipped malformed checkpoint records.', { topic, skipped, firstOffset, reason });
    }
    return skipped;
  }

  get size(): number {
    let n = 0;
    for (const cps of this.groups.values()) n += cps.size;
    return n;
  }

  get skippedRecords(): number {
    return this.skipped;
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  /** The group's checkpoints by target topic-partition key (`topic-partition`), if it has any. */
  get(group: string): ReadonlyMap<string, Checkpoint> | undefined {
    return this.groups.get(group);
  }

  /** The group's checkpoints, sorted by topic and partition. */
  checkpoints(group: string): Checkpoint[] {
    return [...(this.groups.get(group)?.values() ?? [])].sort((a, b) =>
      a.topicPartition.topic < b.topicPartition.topic
        ? -1
        : a.topicPartition.topic > b.topicPartition.topic
          ? 1
          : a.topicPartition.partition - b.topicPartition.partition,
    );
  }

  /** Records checkpoints that were written (MM2's `update`). */
  update(checkpoints: readonly Checkpoint[]): void {
    for (const cp of checkpoints) this.put(cp);
  }

  /**
   * MM2's `checkpointIsMoreRecent`: write a checkpoint when it is the first for its group or
   * partition, when the group's upstream offset went back (a rewind on the source is passed on,
   * so checkpoints may go backwards then), or when the downstream offset advanced — also while
   * the group stands still, as replication catches up and translates it closer; skip a repeat and
   * a downstream rewind (the sync store's precision changed, not the group). Beyond MM2, a group
   * whose offset moved on while its translation stayed (between two offset syncs) is written too,
   * so the last checkpoint always says where the group is (what a failover would read again).
   */
  decide(cp: Checkpoint): CheckpointDecision {
    const group = this.groups.get(cp.consumerGroupId);
    if (group === undefined) return 'first-for-group';
    const last = group.get(topicPartitionKey(cp.topicPartition));
    if (last === undefined) return 'first-for-partition';
    if (cp.upstreamOffset < last.upstreamOffset) return 'upstream-rewind';
    if (cp.downstreamOffset > last.downstreamOffset) return 'downstream-advanced';
    if (cp.downstreamOffset < last.downstreamOffset) return 'downstream-rewind';
    return cp.upstreamOffset > last.upstreamOffset ? 'upstream-advanced' : 'repeated';
  }

  isMoreRecent(cp: Checkpoint): boolean {
    const decision = this.decide(cp);
    return decision !== 'repeated' && decision !== 'downstream-rewind';
  }

  /**
   * MM2's `computeConvertedUpstreamOffset`: per group, the offsets to commit on the target (each
   * checkpoint's downstream offset and metadata), for syncing target consumer groups.
   */
  convertedOffsets(): Map<string, GroupOffset[]> {
    const out = new Map<string, GroupOffset[]>();
    for (const [group, cps] of this.groups) {
      out.set(
        group,
        [...cps.values()].map((cp) => ({
          topic: cp.topicPartition.topic,
          partition: cp.topicPartition.partition,
          offset: cp.downstreamOffset,
          metadata: cp.metadata,
        })),
      );
    }
    return out;
  }

  private put(cp: Checkpoint): void {
    let group = this.groups.get(cp.consumerGroupId);
    if (group === undefined) this.groups.set(cp.consumerGroupId, (group = new Map()));
    group.set(topicPartitionKey(cp.topicPartition), cp);
  }
}

/** `CheckpointStore.read` as a Promise, for tools. */
export function readCheckpoints(reader: TopicReader, topic: string, options: CheckpointReadOptions = {}): Promise<CheckpointStore> {
  return lastValueFrom(CheckpointStore.read(reader, topic, options));
}
