import type { DigestPage, RangeReader } from '../../core/ports/range-reader';
import type { KafkaRecord } from '../../core/record';
import { PartitionComparison, type ComparisonBounds, type PartitionCounts } from './partition-comparison';

/** One side of a comparison: a stretch of one partition. */
export interface PartitionSide {
  readonly reader: RangeReader;
  readonly topic: string;
  readonly partition: number;
  readonly from: number;
  /** Exclusive; the side's end as it was when the comparison began. */
  readonly to: number;
  readonly isolationLevel: 'read_committed' | 'read_uncommitted';
}

export interface PartitionCompare {
  readonly source: PartitionSide;
  readonly target: PartitionSide;
  readonly bounds: ComparisonBounds;
  /**
   * A source record as its copy should be: its digest after the flow's transforms, false when they
   * drop it. Without one, source records are digested as they are, from the fetched bytes.
   */
  readonly expected?: (record: KafkaRecord, out: Uint32Array, at: number) => boolean;
  /** `count`: every record the same, only how many are compared (the target's, and the source's without `expected`). */
  readonly mode?: 'content' | 'count';
  /** Bytes a fetch brings at most, on each side. */
  readonly maxBytes?: number;
  /** After each page read: the source and target offsets reached. */
  readonly progress?: (read: { readonly source: number; readonly target: number }) => void;
  /** Stops reading: the comparison rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface ComparedPartition {
  readonly counts: PartitionCounts;
  /** Offsets the source log no longer held while reading (its start moved past them). */
  readonly sourceSkipped: number;
  /** Offsets the target log no longer held while reading. */
  readonly targetSkipped: number;
  /** Where each side's read stopped (the next offset). */
  readonly sourceReached: number;
  readonly targetReached: number;
}

/**
 * Compares a stretch of a source partition with the stretch of its copy (partition-comparison.ts),
 * pulling a page (one fetch) of either side at a time: the target in order, the source as far
 * ahead as the comparison asks. Memory stays the comparison's ring plus one page per side.
 */
export async function comparePartition(c: PartitionCompare): Promise<ComparedPartition> {
  const comparison = new PartitionComparison(c.bounds);
  const mode = c.mode ?? 'content';
  const size = c.maxBytes === undefined ? {} : { maxBytes: c.maxBytes };
  const digests = (side: PartitionSide): AsyncIterator<DigestPage> =>
    side.reader.readDigests(side.topic, side.partition, side.from, side.to, { isolationLevel: side.isolationLevel, mode, ...size })[Symbol.asyncIterator]();
  const source = c.expected === undefined ? digests(c.source) : transformed(c.source, c.expected, size);
  const target = digests(c.target);
  let sourceSkipped = 0;
  let targetSkipped = 0;
  let sourceReached = c.source.from;
  let targetReached = c.target.from;
  const report = (): void => c.progress?.({ source: sourceReached, target: targetReached });

  /** Reads one source page into the comparison; false at the source's end. */
  const pullSource = async (): Promise<boolean> => {
    const next: IteratorResult<SourcePage> = await source.next();
    if (next.done === true) {
      comparison.endSource();
      return false;
    }
    sourceSkipped += next.value.skipped;
    const page = next.value;
    for (let i = 0; i < page.count; i++) {
      if (page.kept === undefined || page.kept[i] === 1) comparison.addSource(page.offsets[i]!, page.digests[2 * i]!, page.digests[2 * i + 1]!);
      else comparison.addFiltered(page.offsets[i]!);
    }
    sourceReached = next.value.nextOffset;
    report();
    return true;
  };

  try {
    let sourceOpen = true;
    reading: for (;;) {
      c.signal?.throwIfAborted();
      if (comparison.pastRange()) break;
      const page: IteratorResult<DigestPage> = await target.next();
      if (page.done === true) break;
      targetSkipped += page.value.skipped;
      const copies = page.value;
      const nextOffset = copies.nextOffset;
      for (let i = 0; i < copies.count; i++) {
        while (sourceOpen && comparison.wantsSource()) sourceOpen = await pullSource();
        const [offset, hi, lo] = [copies.offsets[i]!, copies.digests[2 * i]!, copies.digests[2 * i + 1]!];
        while (comparison.addTarget(offset, hi, lo) === 'need-source') sourceOpen = await pullSource();
        if (comparison.pastRange()) {
          targetReached = offset + 1;
          break reading;
        }
      }
      targetReached = nextOffset;
      report();
    }
    // The rest of the range on the source settles as missing or behind.
    while (sourceOpen && sourceReached < c.bounds.rangeEnd && !comparison.pastRange()) {
      c.signal?.throwIfAborted();
      sourceOpen = await pullSource();
    }
  } finally {
    await Promise.allSettled([source.return?.(), target.return?.()]);
  }
  return { counts: comparison.finish(), sourceSkipped, targetSkipped, sourceReached, targetReached };
}

/** A source page: digests, and where the flow's transforms run, which records they keep. */
interface SourcePage extends DigestPage {
  /** 1 where the record has a copy to compare, 0 where the flow drops it; absent when all have. */
  readonly kept?: Uint8Array;
}

/** The source as the flow's transforms leave it: records decoded, each digested as its copy should be, and dropped at once. */
async function* transformed(
  side: PartitionSide,
  expected: (record: KafkaRecord, out: Uint32Array, at: number) => boolean,
  size: { readonly maxBytes?: number },
): AsyncGenerator<SourcePage> {
  for await (const page of side.reader.read(side.topic, side.partition, side.from, side.to, { isolationLevel: side.isolationLevel, ...size })) {
    const count = page.records.length;
    const offsets = new Float64Array(count);
    const digests = new Uint32Array(count * 2);
    const kept = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      const record = page.records[i]!;
      offsets[i] = record.offset;
      kept[i] = expected(record, digests, i) ? 1 : 0;
    }
    yield { count, offsets, digests, kept, nextOffset: page.nextOffset, skipped: page.skipped };
  }
}
