/**
 * `mirrorflow verify FILE`: proves, partition by partition, that each flow's target holds what its
 * source holds (verify-plan.ts says what is compared, ../../flow/verify how). Read-only; memory is
 * bounded by the comparison window, not by the partitions' sizes.
 */
import type { PipelineConfig } from '../../config';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import type { RangeReader } from '../../core/ports/range-reader';
import type { PluginRegistry } from '../../plugins';
import { comparePartition } from '../../flow/verify/compare-partition';
import type { PartitionCounts } from '../../flow/verify/partition-comparison';
import type { ComparedBy } from '../../flow/verify/expected-copy';
import { planVerification, type PartitionPlan, type VerifySelection } from './verify-plan';

/** Source records held at once per partition by default: about 64 MiB. */
export const DEFAULT_VERIFY_WINDOW = 1 << 20;

export interface VerifyRequest extends VerifySelection {
  /** Source records held at once (rounded up to a power of two). */
  readonly window?: number;
  /** Bytes a fetch brings at most, on each side. */
  readonly fetchBytes?: number;
  /** Called as partitions are read. */
  readonly progress?: (progress: VerifyProgress) => void;
}

export interface VerifyProgress {
  /** Partitions done, and in all. */
  readonly done: number;
  readonly partitions: number;
  /** The partition being compared, and how far into its source range the comparison is (0–1). */
  readonly current?: { readonly flow: string; readonly topic: string; readonly partition: number; readonly fraction: number };
  /** Source offsets compared so far, and in all the ranges. */
  readonly offsets: number;
  readonly totalOffsets: number;
}

/** One partition's verdict; the keys of `--json`. */
export interface PartitionVerdict {
  readonly flow: string;
  readonly topic: string;
  readonly partition: number;
  readonly remote_topic: string;
  /** Source records below the stored progress that the target does not hold. */
  readonly missing: number;
  /** Extra copies of source records on the target. */
  readonly duplicates: number;
  /** Target records that copy no source record of the range. */
  readonly unexpected: number;
  /** Source records past the stored progress not on the target yet: not copied yet, not an error. */
  readonly behind: number;
  readonly matched: number;
  /** Source records the flow's transforms drop (or route to another topic, or fail on). */
  readonly filtered: number;
  readonly compared_by: ComparedBy;
  readonly offsets_preserved: boolean;
  /** The source range compared, [from, to). */
  readonly from_offset: number;
  readonly to_offset: number;
  /** The flow's stored progress (the next source offset to copy). */
  readonly progress: number;
  /**
   * Source offsets the flow had not copied when the source's retention removed them: its
   * progress is below the log's start, so they will never reach the target.
   */
  readonly expired: number;
  readonly source_records: number;
  readonly target_records: number;
  readonly first_missing_offset?: number;
  readonly first_duplicate_target_offset?: number;
  readonly first_unexpected_target_offset?: number;
  readonly note?: string;
}

export interface VerifyReport {
  readonly partitions: readonly PartitionVerdict[];
  readonly totals: {
    readonly missing: number;
    readonly duplicates: number;
    readonly unexpected: number;
    readonly behind: number;
    readonly matched: number;
    readonly expired: number;
  };
}

/** True when the report found no missing, duplicate or unexpected record. */
export function verified(report: VerifyReport): boolean {
  return report.totals.missing === 0 && report.totals.duplicates === 0 && report.totals.unexpected === 0;
}

/** The window as the comparison takes it: a power of two of at least 1024. */
export function windowCapacity(window: number | undefined): number {
  const wanted = Math.max(1024, window ?? DEFAULT_VERIFY_WINDOW);
  return 2 ** Math.ceil(Math.log2(wanted));
}

export async function verifyPipeline(config: PipelineConfig, registry: PluginRegistry, clients: KafkaClients, request: VerifyRequest): Promise<VerifyReport> {
  const readers = new Map<string, RangeReader>();
  const rangeReader = (cluster: string): RangeReader => {
    let reader = readers.get(cluster);
    if (reader === undefined) {
      if (clients.rangeReader === undefined) throw new Error('These Kafka clients cannot read ranges of partitions.');
      reader = clients.rangeReader(cluster, 'verify');
      readers.set(cluster, reader);
    }
    return reader;
  };
  const plans = await planVerification(config, registry, { clients, rangeReader }, request);
  const capacity = windowCapacity(request.window);
  const totalOffsets = plans.reduce((n, p) => n + (p.rangeEnd - p.from), 0);
  let offsets = 0;
  const partitions: PartitionVerdict[] = [];
  for (const [i, plan] of plans.entries()) {
    const span = Math.max(1, plan.rangeEnd - plan.from);
    const compared = await comparePartition({
      source: {
        reader: rangeReader(plan.sourceCluster),
        topic: plan.topic,
        partition: plan.partition,
        from: plan.from,
        to: plan.sourceTo,
        isolationLevel: plan.isolationLevel,
      },
      target: {
        reader: rangeReader(plan.targetCluster),
        topic: plan.remoteTopic,
        partition: plan.partition,
        from: plan.targetFrom,
        to: plan.targetTo,
        isolationLevel: plan.targetIsolationLevel,
      },
      bounds: { progress: plan.progress, rangeEnd: plan.rangeEnd, leadingSkip: plan.leadingSkip, capacity },
      ...(plan.expected === undefined ? {} : { expected: plan.expected }),
      mode: plan.comparedBy,
      ...(request.fetchBytes === undefined ? {} : { maxBytes: request.fetchBytes }),
      progress: ({ source }) =>
        request.progress?.({
          done: i,
          partitions: plans.length,
          current: { flow: plan.flow, topic: plan.topic, partition: plan.partition, fraction: Math.min(1, (source - plan.from) / span) },
          offsets: offsets + Math.min(span, Math.max(0, source - plan.from)),
          totalOffsets,
        }),
    });
    offsets += plan.rangeEnd - plan.from;
    partitions.push(verdict(plan, compared.counts));
    request.progress?.({ done: i + 1, partitions: plans.length, offsets, totalOffsets });
  }
  const sum = (key: 'missing' | 'duplicates' | 'unexpected' | 'behind' | 'matched' | 'expired') => partitions.reduce((n, p) => n + p[key], 0);
  return {
    partitions,
    totals: {
      missing: sum('missing'),
      duplicates: sum('duplicates'),
      unexpected: sum('unexpected'),
      behind: sum('behind'),
      matched: sum('matched'),
      expired: sum('expired'),
    },
  };
}

function verdict(plan: PartitionPlan, counts: PartitionCounts): PartitionVerdict {
  return {
    flow: plan.flow,
    topic: plan.topic,
    partition: plan.partition,
    remote_topic: plan.remoteTopic,
    missing: counts.missing,
    duplicates: counts.duplicates,
    unexpected: counts.unexpected,
    behind: counts.behind,
    matched: counts.matched,
    filtered: counts.filtered,
    compared_by: plan.comparedBy,
    offsets_preserved: plan.preserved,
    from_offset: plan.from,
    to_offset: plan.rangeEnd,
    progress: plan.progress,
    expired: Math.max(0, plan.logStart - plan.progress),
    source_records: counts.sourceRecords,
    target_records: counts.targetRecords,
    ...(counts.firstMissing === undefined ? {} : { first_missing_offset: counts.firstMissing }),
    ...(counts.firstDuplicate === undefined ? {} : { first_duplicate_target_offset: counts.firstDuplicate }),
    ...(counts.firstUnexpected === undefined ? {} : { first_unexpected_target_offset: counts.firstUnexpected }),
    ...(plan.note === undefined ? {} : { note: plan.note }),
  };
}
