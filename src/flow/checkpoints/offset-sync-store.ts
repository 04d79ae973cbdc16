/**
 * MM2's `OffsetSyncStore` (connect-mirror, post KAFKA-14666/KAFKA-15906): the offset syncs of
 * `mm2-offset-syncs.<cluster>.internal` kept as a sparse history per source partition, and the
 * translation of a consumer group's upstream offset into a downstream offset from it.
 *
 * Per partition, 64 slots hold syncs at exponentially growing distances from the latest one:
 *   A: slot 0 is the latest sync;
 *   B: syncs[i].upstream <= syncs[j].upstream + 2^j - 2^i  for i < j (recent slots are recent);
 *   C: syncs[i].upstream >= syncs[j].upstream + 2^max(i-2,0) for i < j, unless the same sync
 *      (neighbouring distinct syncs are spread out);
 *   D: slot 63 is the earliest usable sync.
 * Slots that hold the same sync hold the same object: `===` is how the update tells them apart.
 *
 * Offsets are JS numbers. Java computes the invariant bounds in int64 and relies on overflow for
 * slot 63 (`1L << 63` is negative); for non-negative safe integers, which is all a decoded sync
 * can hold here, the comparisons below give exactly Java's answers (see `invariantB/C`), and the
 * spec checks that against a literal BigInt port of MM2's code.
 *
 * Beyond MM2: offsets that groups sit at can be held (`hold`, held-offsets.ts), and keep the best
 * sync that streamed past them, so a group that stopped keeps a precise translation while the
 * sparse history moves on.
 */
import { type Observable, EMPTY, defer, map, mergeMap, of, take } from '#rxjs';
import type { Logger } from '../../core/ports/logger';
import { silentLogger } from '../../core/ports/logger';
import type { TopicReader } from '../../core/ports/record-source';
import type { KafkaRecord, TopicPartition } from '../../core/record';
import { topicPartitionKey } from '../../core/record';
import { type OffsetSync, RecordFormatError, decodeOffsetSync } from '../../formats';
import { HeldOffsets } from './held-offsets';

/** MM2's `SYNCS_PER_PARTITION` (`Long.SIZE`). */
export const SYNCS_PER_PARTITION = 64;

const LAST = SYNCS_PER_PARTITION - 1;

/** 2^i for i in 0..63; every one is exact as a double. */
const POW2: readonly number[] = Array.from({ length: SYNCS_PER_PARTITION }, (_, i) => 2 ** i);

/** One stored sync. Compared by identity, never by value. */
export interface StoredSync {
  readonly upstreamOffset: number;
  readonly downstreamOffset: number;
}

export interface OffsetSyncStoreOptions {
  /**
   * MM2's `start(initializationMustReadToEnd)`: true (the default) keeps only the latest sync per
   * partition while the topic is first read, so no translation can go behind a checkpoint that
   * may already exist. The checkpoint flow passes false when it loaded the existing checkpoints,
   * which keep its output monotonic anyway, and so gets the full history.
   */
  readonly initializationMustReadToEnd?: boolean;
  readonly logger?: Logger;
  /**
   * Called when a partition's first sync arrives, before it is applied: the moment to `hold` the
   * offsets groups are known to sit at there (a restarted flow's loaded checkpoints), so the
   * syncs read next are remembered for them.
   */
  readonly onNewPartition?: (tp: TopicPartition) => void;
}

/** Where a translation came from, for logs and tools (`translateDownstream` gives just the offset). */
export interface Translation {
  /** The downstream offset; -1 when the group is behind the oldest sync kept. */
  readonly offset: number;
  /** The sync used; undefined for -1. */
  readonly sync: StoredSync | undefined;
}

export class OffsetSyncStore {
  private readonly syncs = new Map<string, StoredSync[]>();
  private readonly held = new HeldOffsets();
  private readonly onNewPartition: ((tp: TopicPartition) => void) | undefined;
  private readonly initializationMustReadToEnd: boolean;
  private readonly logger: Logger;
  private readToEnd = false;
  private skipped = 0;

  constructor(options: OffsetSyncStoreOptions = {}) {
    this.initializationMustReadToEnd = options.initializationMustReadToEnd ?? true;
    this.logger = options.logger ?? silentLogger;
    this.onNewPartition = options.onNewPartition;
  }

  /**
   * Reads the offset-syncs topic (partition 0) to its end once and completes with the store:
   * for tools that translate a stopped group's offsets without running a flow.
   */
  static load(reader: TopicReader, topic: string, options: OffsetSyncStoreOptions = {}): Observable<OffsetSyncStore> {
    return defer(() => {
      const store = new OffsetSyncStore(options);
      return store.follow(reader, topic).pipe(
        take(1),
        map(() => store),
      );
    });
  }

  /** True once the topic was read to its end; translations are refused before. */
  get isReadToEnd(): boolean {
    return this.readToEnd;
  }

  /** Source partitions with at least one sync. */
  get partitionCount(): number {
    return this.syncs.size;
  }

  /** Malformed records skipped so far. */
  get skippedRecords(): number {
    return this.skipped;
  }

  /**
   * Loads partition 0 of `topic`, marks the store read-to-end when the load reaches the end the
   * partition had at subscription (emitting once, then), and keeps applying new syncs until
   * unsubscribed. Malformed records are skipped with a warning.
   */
  follow(reader: TopicReader, topic: string): Observable<void> {
    return reader.follow(topic, 0).pipe(
      mergeMap((event) => {
        if (event.type === 'records') {
          this.handleRecords(topic, event.batch.records);
          return EMPTY;
        }
        if (!this.readToEnd) {
          this.markReadToEnd();
          this.logger.info('Offset syncs loaded.', { topic, partitions: this.syncs.size });
        }
        return of(undefined);
      }),
    );
  }

  /** Decodes and applies records of the offset-syncs topic; returns how many were skipped as malformed. */
  handleRecords(topic: string, records: readonly KafkaRecord[]): number {
    let skipped = 0;
    let firstError: string | undefined;
    let firstOffset: number | undefined;
    for (const record of records) {
      let sync: OffsetSync;
      try {
        sync = decodeOffsetSync(record.key, record.value);
        if (sync.upstreamOffset < 0 || sync.downstreamOffset < 0) {
          throw new RecordFormatError(`Malformed offset-sync: negative offset (${sync.upstreamOffset} → ${sync.downstreamOffset})`);
        }
      } catch (error) {
        if (!(error instanceof RecordFormatError)) throw error;
        skipped++;
        firstError ??= error.message;
        firstOffset ??= record.offset;
        continue;
      }
      this.handle(sync);
    }
    if (skipped > 0) {
      this.skipped += skipped;
      this.logger.warn('Skipped malformed offset-sync records.', { topic, skipped, firstOffset, reason: firstError });
    }
    return skipped;
  }

  /** Applies one sync (MM2's `handleRecord`). Offsets must be non-negative safe integers. */
  handle(sync: OffsetSync): void {
    const key = topicPartitionKey(sync.topicPartition);
    const stored: StoredSync = { upstreamOffset: sync.upstreamOffset, downstreamOffset: sync.downstreamOffset };
    const original = this.syncs.get(key);
    if (original === undefined) {
      this.onNewPartition?.(sync.topicPartition);
      this.syncs.set(key, new Array<StoredSync>(SYNCS_PER_PARTITION).fill(stored));
      this.held.offer(key, stored, false);
      return;
    }
    // A fresh array per update, as MM2 does (copy-on-write): the update reads the old one.
    const updated = original.slice();
    this.updateSyncArray(updated, original, stored);
    this.syncs.set(key, updated);
    this.held.offer(key, stored, stored.upstreamOffset < original[0]!.upstreamOffset);
  }

  /**
   * Holds `upstreamOffset` of `tp`, where a group sits (once per holder): from now on the newest
   * sync at or before it is remembered as syncs arrive, and translations of it use that sync when
   * it is nearer than what the sparse history kept. Never further than MM2's translation, and
   * never past the offset: a consumer may re-read, never skip.
   */
  hold(tp: TopicPartition, upstreamOffset: number): void {
    const syncs = this.syncs.get(topicPartitionKey(tp));
    this.held.hold(topicPartitionKey(tp), upstreamOffset, syncs === undefined ? undefined : lookupLatestSync(syncs, upstreamOffset));
  }

  /** Gives up one `hold` of the offset. */
  release(tp: TopicPartition, upstreamOffset: number): void {
    this.held.release(topicPartitionKey(tp), upstreamOffset);
  }

  /** Offsets held, over all partitions. */
  get heldOffsets(): number {
    return this.held.size;
  }

  /** The end of the initial read: from now on translations are given and the full history is kept. */
  markReadToEnd(): void {
    this.readToEnd = true;
  }

  /**
   * MM2's `translateDownstream`: the downstream offset a consumer of the remote topic should
   * resume at, given the group's committed `upstreamOffset` on the source partition `tp`.
   * `undefined` while the topic is still being loaded or when `tp` has no sync; -1 when the
   * offset is older than every sync kept. Never ahead of what is known to be replicated: one
   * past the nearest sync at or before the offset, so a consumer may re-read, never skip.
   */
  translateDownstream(tp: TopicPartition, upstreamOffset: number): number | undefined {
    return this.translate(tp, upstreamOffset)?.offset;
  }

  /** `translateDownstream` with the sync it used. */
  translate(tp: TopicPartition, upstreamOffset: number): Translation | undefined {
    if (!this.readToEnd) return undefined;
    const key = topicPartitionKey(tp);
    const syncs = this.syncs.get(key);
    if (syncs === undefined) return undefined;
    const looked = lookupLatestSync(syncs, upstreamOffset);
    const held = this.held.best(key, upstreamOffset);
    const sync = held !== undefined && (looked.upstreamOffset > upstreamOffset || held.upstreamOffset > looked.upstreamOffset) ? held : looked;
    if (sync.upstreamOffset > upstreamOffset) return { offset: -1, sync: undefined };
    return { offset: sync.downstreamOffset + (upstreamOffset === sync.upstreamOffset ? 0 : 1), sync };
  }

  /**
   * Read the other way: of the records of source partition `tp` this flow copied, the first one
   * whose copy may be at or after `downstreamOffset` on the target — one past the upstream offset
   * of the latest sync whose downstream offset is before it (every record up to that sync was
   * copied before `downstreamOffset`; of those after it, the syncs cannot tell). When every sync
   * kept is at or after it, the oldest one's upstream offset: with the topic's history (the
   * store keeps its first sync in its last slot), that is the first record the flow copied.
   * `undefined` while loading or when `tp` has no sync (the flow copied nothing of it).
   */
  upstreamBefore(tp: TopicPartition, downstreamOffset: number): number | undefined {
    if (!this.readToEnd) return undefined;
    const syncs = this.syncs.get(topicPartitionKey(tp));
    if (syncs === undefined) return undefined;
    for (let i = 0; i < SYNCS_PER_PARTITION; i++) {
      const sync = syncs[i]!;
      if (sync.downstreamOffset < downstreamOffset) return sync.upstreamOffset + 1;
    }
    return syncs[LAST]!.upstreamOffset;
  }

  /** The sync in slot `index` of `tp` (MM2's `syncFor`, for tests and diagnostics). */
  syncFor(tp: TopicPartition, index: number): StoredSync {
    const syncs = this.syncs.get(topicPartitionKey(tp));
    if (syncs === undefined) throw new RangeError(`No syncs present for ${topicPartitionKey(tp)}`);
    const sync = syncs[index];
    if (sync === undefined) throw new RangeError(`Sync ${index} requested for ${topicPartitionKey(tp)}; there are ${syncs.length}`);
    return sync;
  }

  /** MM2's `updateSyncArray`, statement for statement. `syncs` starts as a copy of `original`. */
  private updateSyncArray(syncs: StoredSync[], original: readonly StoredSync[], sync: StoredSync): void {
    const onlyLoadLastOffset = !this.readToEnd && this.initializationMustReadToEnd;
    const upstreamRewind = sync.upstreamOffset < syncs[0]!.upstreamOffset;
    if (onlyLoadLastOffset || upstreamRewind) {
      syncs.fill(sync);
      return;
    }
    let replacement = sync;
    let replacementIndex = 0;
    syncs[0] = replacement;
    for (let current = 1; current < SYNCS_PER_PARTITION; current++) {
      const previous = current - 1;
      let skipOldValue: boolean;
      do {
        const oldValue = original[replacementIndex]!;
        const isRecent = invariantB(syncs[previous]!, oldValue, previous, current);
        const separatedFromPrevious = invariantC(syncs[previous]!, oldValue, previous);
        const next = current + 1;
        const separatedFromNext = next >= SYNCS_PER_PARTITION || invariantC(oldValue, syncs[next]!, current);
        const nextReplacement = replacementIndex + 1;
        const duplicate = nextReplacement < SYNCS_PER_PARTITION && oldValue === original[nextReplacement];
        const promote = isRecent && separatedFromPrevious && separatedFromNext;
        if (promote) replacement = oldValue;
        skipOldValue = duplicate || !separatedFromPrevious;
        if (promote || skipOldValue) replacementIndex++;
      } while (replacementIndex < current && skipOldValue);
      // Once invariant B holds here it holds for every later slot: keep the older tail.
      if (invariantB(syncs[previous]!, syncs[current]!, previous, current)) break;
      syncs[current] = replacement;
    }
  }
}

/** The latest sync at or before `upstreamOffset`, else the oldest kept (MM2's `lookupLatestSync`). */
function lookupLatestSync(syncs: readonly StoredSync[], upstreamOffset: number): StoredSync {
  for (let i = 0; i < SYNCS_PER_PARTITION; i++) {
    const sync = syncs[i]!;
    if (sync.upstreamOffset <= upstreamOffset) return sync;
  }
  return syncs[LAST]!;
}

/**
 * Java: `bound = j.upstream + (1L << j) - (1L << i); return i == j || bound < 0 || i.upstream <= bound`.
 * For j = 63 Java's int64 arithmetic always answers true for non-negative offsets (the bound
 * either wraps negative or stays huge); below that nothing overflows and the bound is positive,
 * so comparing the difference (exact for safe integers) with 2^j - 2^i gives the same answer.
 */
function invariantB(iSync: StoredSync, jSync: StoredSync, i: number, j: number): boolean {
  if (iSync === jSync || j === LAST) return true;
  return iSync.upstreamOffset - jSync.upstreamOffset <= POW2[j]! - POW2[i]!;
}

/** Java: `bound = j.upstream + (1L << max(i - 2, 0)); return i == j || (bound >= 0 && i.upstream >= bound)`. */
function invariantC(iSync: StoredSync, jSync: StoredSync, i: number): boolean {
  if (iSync === jSync) return true;
  return iSync.upstreamOffset - jSync.upstreamOffset >= POW2[Math.max(i - 2, 0)]!;
}
