/**
 * Which flow delivered an origin record into a cluster first, so that a second copy of it,
 * arriving through another path of a diamond (A→B→D and A→C→D), is dropped instead of written
 * twice. One window per target cluster, shared by the flows of the pipeline that write into it;
 * each flow holds its claims through a `DiamondClaimer`.
 *
 * Claims are kept per origin partition and target topic (`key`) as ranges of origin offsets, each
 * owned by the flow that claimed them: a flow that delivers a partition's records in order makes
 * one range grow, and a new range starts only where another flow got in first. A range may span
 * offsets no flow delivered (the origin's log holds other records in between, copies from
 * elsewhere), which is why a flow that delivers an offset inside another flow's range drops it:
 * both paths carry the same records of the origin partition, in order, so the owner delivers it too.
 *
 * The window is bounded by ranges, not time: each flow keeps at most `maxRanges` of them; past
 * that the one it used least recently is forgotten. A forgotten range raises the key's floor: a copy below the floor that no range
 * covers is `outside` the window, written without knowing whether it is a second copy, and
 * counted. A flow's own records are `own`: a flow that reads again what it wrote (a restart, a
 * rebalance) writes them again, at least once, as always.
 */
export type ClaimAnswer =
  /** Nobody delivered it; it is this flow's now. */
  | 'first'
  /** This flow claimed it before (it reads it again): written. */
  | 'own'
  /** Another flow delivered it first: dropped. */
  | 'duplicate'
  /** Older than what the window remembers of its partition: written unchecked. */
  | 'outside';

interface Run {
  from: number;
  to: number;
  readonly owner: DiamondClaimer;
  readonly claims: Claims;
  evicted: boolean;
}

/** The claims on one origin partition in one target topic. */
export interface Claims {
  /** Sorted by `from`, never overlapping. */
  readonly runs: Run[];
  /** Offsets below this are forgotten where no range covers them. */
  floor: number;
}

export class DiamondWindow {
  private readonly byKey = new Map<string, Claims>();
  private readonly claimers = new Map<string, DiamondClaimer>();

  /** The claimer of `flow` (one per flow name, kept across restarts of the flow). */
  claimer(flow: string, maxRanges: number): DiamondClaimer {
    let claimer = this.claimers.get(flow);
    if (claimer === undefined) {
      claimer = new DiamondClaimer(this, maxRanges);
      this.claimers.set(flow, claimer);
    } else claimer.maxRanges = maxRanges;
    return claimer;
  }

  /** The claims of `key` (origin cluster, topic and partition, and the target topic). */
  claims(key: string): Claims {
    let claims = this.byKey.get(key);
    if (claims === undefined) {
      claims = { runs: [], floor: 0 };
      this.byKey.set(key, claims);
    }
    return claims;
  }
}

/** One flow's claims in a DiamondWindow. */
export class DiamondClaimer {
  /** This flow's ranges, least recently used first (a Set keeps insertion order). */
  private readonly lru = new Set<Run>();
  /** The run this flow used last: the common case is the next offset of the same partition. */
  private last: Run | undefined;

  constructor(
    readonly window: DiamondWindow,
    public maxRanges: number,
  ) {}

  /** Ranges this flow holds now (its share of the window's memory). */
  get ranges(): number {
    return this.lru.size;
  }

  claim(claims: Claims, offset: number): ClaimAnswer {
    const { runs } = claims;
    const last = this.last;
    // Steady state: this flow is the only one delivering the partition, in order.
    if (last !== undefined && last.claims === claims && !last.evicted && runs[runs.length - 1] === last && offset > last.to) {
      last.to = offset;
      return 'first';
    }
    // The last run starting at or below the offset.
    let low = 0;
    let high = runs.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (runs[mid]!.from <= offset) low = mid + 1;
      else high = mid - 1;
    }
    const below = high >= 0 ? runs[high] : undefined;
    if (below !== undefined && below.to >= offset) {
      if (below.owner !== this) return 'duplicate';
      this.touch(below);
      return 'own';
    }
    if (offset < claims.floor) return 'outside';
    const above = runs[high + 1];
    if (below !== undefined && below.owner === this) {
      below.to = offset;
      this.touch(below);
    } else if (above !== undefined && above.owner === this) {
      above.from = offset;
      this.touch(above);
    } else {
      const run: Run = { from: offset, to: offset, owner: this, claims, evicted: false };
      runs.splice(high + 1, 0, run);
      this.touch(run);
      while (this.lru.size > this.maxRanges) this.evict(this.lru.values().next().value!);
    }
    return 'first';
  }

  /** Moves a run to the back of the LRU order; nothing to do while the same run is used again and again. */
  private touch(run: Run): void {
    if (this.last === run) return;
    this.lru.delete(run);
    this.lru.add(run);
    this.last = run;
  }

  private evict(run: Run): void {
    this.lru.delete(run);
    run.evicted = true;
    const { runs } = run.claims;
    const at = runs.indexOf(run);
    if (at >= 0) runs.splice(at, 1);
    run.claims.floor = Math.max(run.claims.floor, run.to + 1);
  }
}

/** The diamond windows of one pipeline, one per target cluster; kept while the pipeline runs, across reloads. */
export class DiamondWindows {
  private readonly byTarget = new Map<string, DiamondWindow>();

  of(target: string): DiamondWindow {
    let window = this.byTarget.get(target);
    if (window === undefined) {
      window = new DiamondWindow();
      this.byTarget.set(target, window);
    }
    return window;
  }
}
