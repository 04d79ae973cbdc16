/** Where a partition's comparison draws its lines. */
export interface ComparisonBounds {
  /** The flow's stored progress: source records at or past it that the target lacks are `behind` (not copied yet), not missing. */
  readonly progress: number;
  /** Source offsets at or past this one lie beyond the range compared (`--to`): read only to find the target's end of the range. */
  readonly rangeEnd: number;
  /**
   * Target records before the first match taken for copies of source records before the range
   * (the offset sync the target's start came from lies that far before it); past that many they
   * are unexpected.
   */
  readonly leadingSkip: number;
  /** Source records held at once (a power of two): half read ahead of the target, half behind it for duplicates. */
  readonly capacity: number;
}

/** What one partition's comparison found. */
export interface PartitionCounts {
  /** Source records in the range the comparison covers (after the flow's filters). */
  sourceRecords: number;
  /** Source records in the range the flow's filters drop (never copied, by design). */
  filtered: number;
  /** Target records read. */
  targetRecords: number;
  /** Source records found on the target. */
  matched: number;
  /** Source records below the stored progress that the target does not hold. */
  missing: number;
  /** Extra copies of source records on the target. */
  duplicates: number;
  /** Target records that are copies of no source record of the range. */
  unexpected: number;
  /** Source records at or past the stored progress not on the target yet: not copied yet, not an error. */
  behind: number;
  /** Leading target records taken for copies of records before the range. */
  before: number;
  /** Target records that are copies of records past the range (`--to`). */
  after: number;
  /** The first missing source offset, the first duplicate and the first unexpected target offset: where to look. */
  firstMissing?: number;
  firstDuplicate?: number;
  firstUnexpected?: number;
  /** The target offset of the first copy of a source record past the range: what the range's copy is judged up to. */
  firstBeyondCopy?: number;
}

export function emptyCounts(): PartitionCounts {
  return { sourceRecords: 0, filtered: 0, targetRecords: 0, matched: 0, missing: 0, duplicates: 0, unexpected: 0, behind: 0, before: 0, after: 0 };
}

/** What became of a target record; `need-source` when it cannot be told before more source records are read (nothing was counted). */
export type TargetVerdict = 'matched' | 'duplicate' | 'unexpected' | 'before' | 'after' | 'need-source';

const MATCHED = 1;
const BEYOND = 2;
/** How far past the range's last record the target must have gone before the rest of it counts as past the range. */
const PAST_RANGE_MARGIN = 10_000;

/**
 * The comparison of one source partition with its copy, in order and in bounded memory: records
 * are known by their digests only, and at most `capacity` source records are held at once, in a
 * ring with a hash table over their digests (typed arrays, about 60 bytes per record of capacity).
 *
 * The source is read ahead of the target by half the capacity; each target record is matched to
 * the earliest source record with the same content not matched yet (copies come in order; a
 * replay after a crash fills what it finds unmatched first), else it is a duplicate when the
 * content was matched already, else unexpected. A source record leaves the ring, oldest first,
 * when the ring is full or at the end: unmatched, it is missing below the stored progress and
 * behind at or past it. A replay reaching further back than half the capacity, or a hole in the
 * target longer than the capacity, cannot be told apart from unexpected and missing records.
 */
export class PartitionComparison {
  readonly counts = emptyCounts();
  private readonly mask: number;
  private readonly tableMask: number;
  private readonly lookahead: number;
  // The ring of source records, by absolute index k at slot k & mask.
  private readonly offsets: Float64Array;
  private readonly hiOf: Uint32Array;
  private readonly loOf: Uint32Array;
  private readonly nextOf: Int32Array;
  private readonly state: Uint8Array;
  // Open addressing (linear probing) over digests: per bucket the chain of slots holding that
  // content in index order, and the first of them not matched yet.
  private readonly tHi: Uint32Array;
  private readonly tLo: Uint32Array;
  private readonly tHead: Int32Array;
  private readonly tTail: Int32Array;
  private readonly tFirst: Int32Array;
  private lo = 0;
  private hi = 0;
  /** The highest index matched; -1 before the first match. */
  private highest = -1;
  /** The index of the last source record inside the range; -1 before one. */
  private lastInRange = -1;
  private sourceDone = false;
  private sawBeyond = false;
  /** A target record matched a source record past the range: the target's copy of the range has ended. */
  private matchedBeyond = false;

  constructor(private readonly bounds: ComparisonBounds) {
    const capacity = bounds.capacity;
    if (capacity < 2 || (capacity & (capacity - 1)) !== 0) throw new RangeError(`capacity must be a power of two, not ${capacity}`);
    this.mask = capacity - 1;
    this.tableMask = capacity * 2 - 1;
    this.lookahead = capacity / 2;
    this.offsets = new Float64Array(capacity);
    this.hiOf = new Uint32Array(capacity);
    this.loOf = new Uint32Array(capacity);
    this.nextOf = new Int32Array(capacity);
    this.state = new Uint8Array(capacity);
    this.tHi = new Uint32Array(capacity * 2);
    this.tLo = new Uint32Array(capacity * 2);
    this.tHead = new Int32Array(capacity * 2).fill(-1);
    this.tTail = new Int32Array(capacity * 2);
    this.tFirst = new Int32Array(capacity * 2);
  }

  /** True while the source should be read further before the next target record: the ring reads ahead of the last match. */
  wantsSource(): boolean {
    if (this.sourceDone) return false;
    const base = this.highest >= 0 ? this.highest + 1 : this.lo;
    return this.hi < base + this.lookahead;
  }

  /**
   * True once the target went past the range (`--to`) far enough that no copy of a record in it
   * can follow, or matched the last source record read (what follows copies nothing of it).
   */
  pastRange(): boolean {
    if (!this.matchedBeyond) return false;
    return this.highest > this.lastInRange + Math.min(PAST_RANGE_MARGIN, this.lookahead) || (this.sourceDone && this.highest === this.hi - 1);
  }

  /** The next source record in offset order, one the flow's filters drop: never copied, by design. */
  addFiltered(offset: number): void {
    if (offset >= this.bounds.rangeEnd) this.sawBeyond = true;
    else this.counts.filtered++;
  }

  /** The next source record in offset order, with its digest (record-digest.ts). */
  addSource(offset: number, hi: number, lo: number): void {
    const beyond = offset >= this.bounds.rangeEnd;
    if (beyond) this.sawBeyond = true;
    if (this.hi - this.lo > this.mask) this.evict();
    const k = this.hi++;
    const s = k & this.mask;
    this.offsets[s] = offset;
    this.hiOf[s] = hi;
    this.loOf[s] = lo;
    this.nextOf[s] = -1;
    this.state[s] = beyond ? BEYOND : 0;
    if (!beyond) {
      this.counts.sourceRecords++;
      this.lastInRange = k;
    }
    const b = this.find(hi, lo);
    if (b < 0) {
      const at = -b - 1;
      this.tHi[at] = hi;
      this.tLo[at] = lo;
      this.tHead[at] = s;
      this.tTail[at] = s;
      this.tFirst[at] = s;
      return;
    }
    this.nextOf[this.tTail[b]!] = s;
    this.tTail[b] = s;
    if (this.tFirst[b] === -1) this.tFirst[b] = s;
  }

  /** The source has no more records (its range, or its end, was reached). */
  endSource(): void {
    this.sourceDone = true;
  }

  /** The next target record in offset order, with its digest. */
  addTarget(offset: number, hi: number, lo: number): TargetVerdict {
    const b = this.find(hi, lo);
    if (b >= 0) {
      const first = this.tFirst[b]!;
      if (first !== -1) {
        this.counts.targetRecords++;
        this.state[first] = this.state[first]! | MATCHED;
        let next = this.nextOf[first]!;
        while (next !== -1 && (this.state[next]! & MATCHED) !== 0) next = this.nextOf[next]!;
        this.tFirst[b] = next;
        const k = this.lo + ((first - (this.lo & this.mask)) & this.mask);
        if (k > this.highest) this.highest = k;
        if ((this.state[first]! & BEYOND) !== 0) {
          this.matchedBeyond = true;
          this.counts.firstBeyondCopy ??= offset;
          this.counts.after++;
          return 'after';
        }
        this.counts.matched++;
        return 'matched';
      }
      this.counts.targetRecords++;
      if ((this.state[this.tTail[b]!]! & BEYOND) !== 0) {
        this.counts.after++;
        return 'after';
      }
      this.counts.duplicates++;
      this.counts.firstDuplicate ??= offset;
      return 'duplicate';
    }
    // Perhaps further ahead than the ring has read: read on while it has room.
    if (!this.sourceDone && this.hi - this.lo <= this.mask) return 'need-source';
    this.counts.targetRecords++;
    if (this.highest < 0 && this.counts.before < this.bounds.leadingSkip) {
      this.counts.before++;
      return 'before';
    }
    // Past the copy of the range, records of no source record are not the range's to judge.
    if (this.matchedBeyond) {
      this.counts.after++;
      return 'after';
    }
    this.counts.unexpected++;
    this.counts.firstUnexpected ??= offset;
    return 'unexpected';
  }

  /** Ends the comparison: every source record still held is settled. */
  finish(): PartitionCounts {
    while (this.lo < this.hi) this.evict();
    return this.counts;
  }

  /** The oldest source record leaves the ring: unmatched, it is missing or behind. */
  private evict(): void {
    const k = this.lo++;
    const s = k & this.mask;
    const state = this.state[s]!;
    if ((state & (MATCHED | BEYOND)) === 0) {
      const offset = this.offsets[s]!;
      if (offset < this.bounds.progress) {
        this.counts.missing++;
        this.counts.firstMissing ??= offset;
      } else {
        this.counts.behind++;
      }
    }
    const b = this.find(this.hiOf[s]!, this.loOf[s]!);
    // The oldest record of its content heads its chain.
    const next = this.nextOf[s]!;
    if (next === -1) {
      this.remove(b);
      return;
    }
    this.tHead[b] = next;
    if (this.tFirst[b] === s) {
      let first = next;
      while (first !== -1 && (this.state[first]! & MATCHED) !== 0) first = this.nextOf[first]!;
      this.tFirst[b] = first;
    }
  }

  /** The bucket of a digest, or -(where it would go) - 1. */
  private find(hi: number, lo: number): number {
    let i = lo & this.tableMask;
    while (this.tHead[i] !== -1) {
      if (this.tLo[i] === lo && this.tHi[i] === hi) return i;
      i = (i + 1) & this.tableMask;
    }
    return -i - 1;
  }

  /** Removes bucket `i`, shifting back the buckets after it that probed past it (no tombstones). */
  private remove(i: number): void {
    const mask = this.tableMask;
    for (;;) {
      this.tHead[i] = -1;
      let j = i;
      for (;;) {
        j = (j + 1) & mask;
        if (this.tHead[j] === -1) return;
        const home = this.tLo[j]! & mask;
        // Bucket j may move to i unless its home lies cyclically in (i, j].
        const stays = i <= j ? i < home && home <= j : i < home || home <= j;
        if (!stays) break;
      }
      this.tHi[i] = this.tHi[j]!;
      this.tLo[i] = this.tLo[j]!;
      this.tHead[i] = this.tHead[j]!;
      this.tTail[i] = this.tTail[j]!;
      this.tFirst[i] = this.tFirst[j]!;
      i = j;
    }
  }
}
