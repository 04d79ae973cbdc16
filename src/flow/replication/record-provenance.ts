/**
 * `provenance.enabled`: what a flow does with the provenance header (src/formats/provenance-header.ts)
 * of the records it copies, in two steps around the transforms, each once per batch:
 *
 * - `admit`, before: a record whose header names the flow's target has been there already (a loop,
 *   A→B→A, or A→B→C→A) and is dropped; every other record loses the header it came with, so the
 *   transforms see the producer's record.
 * - `stamp`, after: each record gets the header again, its path one cluster longer (a record
 *   produced on the source starts one: source, then target), as its last header; a record another
 *   flow of the pipeline already delivered into the target (a diamond, DiamondWindow) is dropped.
 *
 * Nothing else of a record changes. A header is parsed once per distinct path, topic and
 * partition (the part before the offset), not per record.
 */
import type { MirrorRecord, RecordHeader } from '../../core/record';
import { PROVENANCE_HEADER, lastProvenanceHeader, parseProvenancePrefix, provenancePrefix, provenanceValue, splitProvenance } from '../../formats';
import type { Claims, DiamondClaimer } from './diamond-window';

export interface RecordProvenanceSettings {
  readonly source: string;
  readonly target: string;
}

/** Where a record came from, as the header this flow writes will say. */
interface Origin {
  /** The new header's value before the offset. */
  readonly prefix: string;
  /** Origin cluster, topic and partition: the diamond window's key, with the target topic. */
  readonly key: string;
  readonly offset: number;
}

/** What an incoming header's prefix means to this flow. */
interface Path {
  /** The target is on the path: the record has been there. */
  readonly loop: boolean;
  readonly prefix: string;
  readonly key: string;
}

export interface Admitted {
  /** The records to transform, without the header they came with. */
  readonly records: readonly MirrorRecord[];
  /** Per record of `records`, its origin when it came with a header (undefined: produced on the source). */
  readonly origins: readonly (Origin | undefined)[];
  /** Records dropped because their path holds the target. */
  readonly loops: number;
}

export interface Stamped {
  readonly records: readonly MirrorRecord[];
  /** Records dropped as second copies (diamonds). */
  readonly duplicates: number;
  /** Records older than the diamond window, written unchecked. */
  readonly unchecked: number;
}

/** Distinct incoming prefixes remembered; a producer writing headers of its own could otherwise grow it without end. */
const MAX_PATHS = 10_000;

export class RecordProvenance {
  private readonly paths = new Map<string, Path | null>();

  constructor(
    private readonly settings: RecordProvenanceSettings,
    /** This flow's claims in the window of its target; undefined: no diamond check. */
    private readonly claimer?: DiamondClaimer,
  ) {}

  /** Ranges of the diamond window this flow holds. */
  get windowRanges(): number {
    return this.claimer?.ranges ?? 0;
  }

  admit(records: readonly MirrorRecord[]): Admitted {
    let kept: MirrorRecord[] | undefined;
    let origins: (Origin | undefined)[] | undefined;
    let loops = 0;
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      const header = lastProvenanceHeader(record.headers);
      const split = header === undefined ? undefined : splitProvenance(header.value!);
      const path = split === undefined ? undefined : this.path(split.prefix);
      if (path === undefined || split === undefined) {
        // Produced on the source (or a header that is not ours): as it is.
        if (kept !== undefined) {
          kept.push(record);
          origins!.push(undefined);
        }
        continue;
      }
      if (kept === undefined) {
        kept = records.slice(0, i);
        origins = new Array<Origin | undefined>(i).fill(undefined);
      }
      if (path.loop) {
        loops++;
        continue;
      }
      kept.push({ ...record, headers: record.headers.slice(0, -1) });
      origins!.push({ prefix: path.prefix, key: path.key, offset: split.offset });
    }
    if (kept === undefined) return { records, origins: [], loops: 0 };
    return { records: kept, origins: origins!, loops };
  }

  stamp(admitted: Admitted, transformed: readonly MirrorRecord[]): Stamped {
    const { source, target } = this.settings;
    const { claimer } = this;
    // Transforms keep the records' order and source offsets; find each one's origin by them.
    const originOf = this.originLookup(admitted, transformed);
    const out: MirrorRecord[] = new Array<MirrorRecord>(transformed.length);
    let n = 0;
    let duplicates = 0;
    let unchecked = 0;
    // Records of a batch share their topic and partition, and mostly their origin.
    let nativeFor: MirrorRecord | undefined;
    let nativePrefix = '';
    let nativeKey = '';
    let claimsOrigin = '';
    let claimsTopic = '';
    let claims: Claims | undefined;
    for (let i = 0; i < transformed.length; i++) {
      const record = transformed[i]!;
      let origin = originOf(i, record);
      if (origin === undefined) {
        const { topic, partition } = record.source;
        if (nativeFor === undefined || nativeFor.source.topic !== topic || nativeFor.source.partition !== partition) {
          nativeFor = record;
          nativePrefix = provenancePrefix([source, target], topic, partition);
          nativeKey = `${source}|${topic}|${partition}`;
        }
        origin = { prefix: nativePrefix, key: nativeKey, offset: record.source.offset };
      }
      if (claimer !== undefined) {
        if (claims === undefined || origin.key !== claimsOrigin || record.topic !== claimsTopic) {
          claimsOrigin = origin.key;
          claimsTopic = record.topic;
          claims = claimer.window.claims(`${origin.key}>${record.topic}`);
        }
        const answer = claimer.claim(claims, origin.offset);
        if (answer === 'duplicate') {
          duplicates++;
          continue;
        }
        if (answer === 'outside') unchecked++;
      }
      const headers: RecordHeader[] = record.headers.slice();
      headers.push({ key: PROVENANCE_HEADER, value: provenanceValue(origin.prefix, origin.offset) });
      out[n++] = { ...record, headers };
    }
    out.length = n;
    return { records: out, duplicates, unchecked };
  }

  /** Each transformed record's origin: by index when the transforms returned the records as given, else by source offset. */
  private originLookup(admitted: Admitted, transformed: readonly MirrorRecord[]): (index: number, record: MirrorRecord) => Origin | undefined {
    const { origins } = admitted;
    if (origins.length === 0) return () => undefined;
    if (transformed === admitted.records) return (index) => origins[index];
    const byOffset = new Map<number, Origin>();
    admitted.records.forEach((record, index) => {
      const origin = origins[index];
      if (origin !== undefined) byOffset.set(record.source.offset, origin);
    });
    return (_, record) => byOffset.get(record.source.offset);
  }

  /** What the path of an incoming header means here; null when the prefix is not one of ours. */
  private path(prefix: string): Path | undefined {
    let path = this.paths.get(prefix);
    if (path === undefined) {
      const parsed = parseProvenancePrefix(prefix);
      const { source, target } = this.settings;
      if (parsed === undefined) path = null;
      else {
        const { clusters, topic, partition } = parsed;
        // The source is last on a header a flow wrote; a copy made without provenance keeps the header it had.
        const onward = clusters[clusters.length - 1] === source ? [...clusters, target] : [...clusters, source, target];
        path = { loop: clusters.includes(target), prefix: provenancePrefix(onward, topic, partition), key: `${clusters[0]}|${topic}|${partition}` };
      }
      if (this.paths.size >= MAX_PATHS) this.paths.clear();
      this.paths.set(prefix, path);
    }
    return path ?? undefined;
  }
}
