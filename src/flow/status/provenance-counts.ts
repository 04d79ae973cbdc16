import type { ProvenanceSkips } from '../../core/record';

/** What a flow with `provenance.enabled` kept off its target, counted as its batches commit. */
export class ProvenanceCounts {
  /** Records whose provenance header says the target had them already (loops). */
  loops = 0;
  /** Second copies of origin records another flow of the pipeline delivered into the target first (diamonds). */
  duplicates = 0;
  /** Records older than the diamond window, written without knowing whether another flow had delivered them. */
  unchecked = 0;

  /** @param windowRanges ranges of origin offsets the flow holds in its target's diamond window now */
  constructor(readonly windowRanges: () => number = () => 0) {}

  add(skips: ProvenanceSkips): void {
    this.loops += skips.loops;
    this.duplicates += skips.duplicates;
    this.unchecked += skips.unchecked;
  }
}
