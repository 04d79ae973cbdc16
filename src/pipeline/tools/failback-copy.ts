/**
 * The copies failback makes, over the ports: records of one cluster's partition appended to
 * another's, in order, through the tools' idempotent writer, with where each landed; offsets kept
 * on an empty (or exactly aligned) partition, with filler records where the source has offsets
 * without records; and the probes that find where a partition's history diverged.
 */
import { firstValueFrom } from '#rxjs';
import { MirrorflowError } from '../../core/errors';
import type { KafkaRecord } from '../../core/record';
import type { OutboundRecord } from '../../core/ports/record-writer';
import { FILLER_HEADER, recordDigest } from '../../flow/replication/offset-preservation';
import type { PipelineTools } from './pipeline-tools';

/** Fillers written per produce request. */
const FILLER_CHUNK = 10_000;

/** Records of one partition copied, as runs of consecutive offsets: `from` (source offsets) landed at `at` (target offsets), `count` of them. */
export interface CopiedRun {
  readonly from: number;
  readonly at: number;
  readonly count: number;
}

export interface CopyResult {
  readonly records: number;
  readonly fillers: number;
  /** Where source offsets landed on the target, as runs. */
  readonly runs: readonly CopiedRun[];
}

/** Header of a record saved aside by failback: its offset in the partition it was cut from. */
export const SAVED_OFFSET_HEADER = 'mirrorflow.failback.offset';

/**
 * Copies offsets `from` … `to` of `fromCluster`'s `fromTopic` partitions to `toCluster`'s
 * `toTopic`, same partition, appended in order. With `keepOffsets`, each record must land at its
 * own offset: the target partition must end at `from`, a gap in the source is filled with filler
 * records (tombstones with the filler header), and a record that lands elsewhere fails the copy.
 * `savedOffsets` adds the source offset as a header (records saved aside).
 */
export async function copyPartitions(
  tools: PipelineTools,
  copy: {
    readonly fromCluster: string;
    readonly fromTopic: string;
    readonly toCluster: string;
    readonly toTopic: string;
    readonly ranges: ReadonlyMap<number, { readonly from: number; readonly to: number }>;
    readonly keepOffsets: boolean;
    readonly savedOffsets?: boolean;
  },
): Promise<Map<number, CopyResult>> {
  const writer = tools.writer(copy.toCluster);
  const results = new Map<number, { records: number; fillers: number; runs: CopiedRun[]; next: number }>();
  for (const [partition, range] of copy.ranges) results.set(partition, { records: 0, fillers: 0, runs: [], next: range.from });
  const write = async (records: OutboundRecord[]): Promise<Float64Array> => firstValueFrom(writer.write(records));
  await tools.groupReader(copy.fromCluster).readRanges(copy.fromTopic, copy.ranges, async (partition, records) => {
    const result = results.get(partition)!;
    if (copy.keepOffsets && records[0]!.offset > result.next) {
      result.fillers += await fill(write, copy.toTopic, partition, result.next, records[0]!.offset);
    }
    const offsets = await write(
      records.map((r) => ({
        topic: copy.toTopic,
        partition,
        timestamp: r.timestamp,
        key: r.key,
        value: r.value,
        headers: copy.savedOffsets === true ? [...r.headers, { key: SAVED_OFFSET_HEADER, value: Buffer.from(String(r.offset)) }] : r.headers,
      })),
    );
    records.forEach((r, i) => {
      const at = offsets[i]!;
      if (copy.keepOffsets && at !== r.offset)
        throw new MirrorflowError(
          `Cluster "${copy.toCluster}": the record of ${copy.fromTopic}-${partition} at offset ${r.offset} landed at ${at} in ${copy.toTopic}-${partition}; something else writes to that partition. Stop it and run failback again.`,
        );
      const last = result.runs[result.runs.length - 1];
      if (last !== undefined && last.from + last.count === r.offset && last.at + last.count === at)
        result.runs[result.runs.length - 1] = { ...last, count: last.count + 1 };
      else result.runs.push({ from: r.offset, at, count: 1 });
    });
    result.records += records.length;
    result.next = records[records.length - 1]!.offset + 1;
  });
  // Offsets without records at the end of a kept range (transaction markers) are filled too.
  if (copy.keepOffsets)
    for (const [partition, range] of copy.ranges) {
      const result = results.get(partition)!;
      const end = (await firstValueFrom(tools.admin(copy.fromCluster).partitionOffsets(copy.fromTopic))).find((p) => p.partition === partition)?.latest ?? 0;
      const upTo = Math.min(range.to, end);
      if (result.next < upTo) result.fillers += await fill(write, copy.toTopic, partition, result.next, upTo);
    }
  return new Map([...results].map(([p, r]) => [p, { records: r.records, fillers: r.fillers, runs: r.runs }]));
}

/** Writes filler tombstones for offsets `from` … `upTo`; returns how many. */
async function fill(
  write: (records: OutboundRecord[]) => Promise<Float64Array>,
  topic: string,
  partition: number,
  from: number,
  upTo: number,
): Promise<number> {
  const key = Buffer.from(FILLER_HEADER);
  const headers = [{ key: FILLER_HEADER, value: Buffer.from('1') }];
  for (let next = from; next < upTo;) {
    const count = Math.min(FILLER_CHUNK, upTo - next);
    const offsets = await write(Array.from({ length: count }, () => ({ topic, partition, timestamp: Date.now(), key, value: null, headers })));
    if (offsets[0] !== next)
      throw new MirrorflowError(
        `Filler records for ${topic}-${partition} landed at offset ${offsets[0]}, not ${next}; something else writes to the partition.`,
      );
    next += count;
  }
  return upTo - from;
}

/**
 * A new, empty partition made to start at `start`: fillers up to it, then deleted (DeleteRecords),
 * so its log starts where the partition it restores starts, and the next record lands at `start`.
 */
export async function startPartitionAt(tools: PipelineTools, cluster: string, topic: string, partition: number, start: number): Promise<void> {
  if (start === 0) return;
  const writer = tools.writer(cluster);
  await fill((records) => firstValueFrom(writer.write(records)), topic, partition, 0, start);
  await firstValueFrom(tools.admin(cluster).deleteRecords(topic, partition, start), { defaultValue: undefined });
}

/** The record at exactly `offset`, or undefined (none there: before the log start, past its end, compacted away, a marker). */
export async function recordAtExactly(
  tools: PipelineTools,
  cluster: string,
  topic: string,
  partition: number,
  offset: number,
): Promise<KafkaRecord | undefined> {
  const record = await tools.reader(cluster).recordAt(topic, partition, offset);
  return record?.offset === offset ? record : undefined;
}

/**
 * The first offset in `lo` … `hi` for which `same` is false, given that it is true up to some
 * offset and false from there on (a prefix property); `hi` when it holds throughout.
 */
export async function firstWhereNot(lo: number, hi: number, same: (offset: number) => Promise<boolean>): Promise<number> {
  let low = lo;
  let high = hi;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (await same(mid)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Digests of the records of `topic`-`partition` in `from` … `to`, read once. */
export async function digestsOf(tools: PipelineTools, cluster: string, topic: string, partition: number, from: number, to: number): Promise<Set<string>> {
  const digests = new Set<string>();
  await tools.groupReader(cluster).readRanges(topic, new Map([[partition, { from, to }]]), (_, records) => {
    for (const r of records) digests.add(recordDigest(r));
    return Promise.resolve();
  });
  return digests;
}

/** Where `offset` of the source lands on the target, by the runs of a copy; undefined before the first. */
export function landedAt(runs: readonly CopiedRun[], offset: number): number | undefined {
  for (const run of runs) {
    if (offset < run.from) return run.at;
    if (offset < run.from + run.count) return run.at + (offset - run.from);
  }
  const last = runs[runs.length - 1];
  return last === undefined ? undefined : last.at + last.count;
}
