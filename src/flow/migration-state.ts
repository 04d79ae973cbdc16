/**
 * The state of a flow's migration (`mirrorflow migrate`), kept where every process of the pipeline
 * and every run of the command see it: records of the compacted topic `mm2-migration.<source>.internal`
 * on the target (one partition; MM2 and mirrorflow take `mm2….internal` topics for internal ones and
 * never replicate them), keyed by the flow's group and the step.
 *
 * - a group's cutover: `sync-stopped` (the flow no longer syncs the group's offsets to the target;
 *   written before anything is committed for it), then `cut-over` with the offsets committed;
 * - the flow's finish: `stopping` (every process stops the flow, for good: a restart does not start
 *   it again), then `finished` once none runs it any more.
 *
 * The topic is created by the first step that writes to it; a flow whose target has none is not
 * migrating.
 */
import {
  type Observable,
  EMPTY,
  catchError,
  concatMap,
  defer,
  exhaustMap,
  filter,
  firstValueFrom,
  from,
  lastValueFrom,
  take,
  takeUntil,
  timer,
  toArray,
  type SchedulerLike,
} from '#rxjs';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { Logger } from '../core/ports/logger';
import type { TopicReader } from '../core/ports/record-source';
import type { OutboundRecord } from '../core/ports/record-writer';
import type { KafkaRecord } from '../core/record';
import { describeError } from '../core/errors';

/** An offset committed for a group by its cutover, on the target. */
export interface CommittedOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Taken as it is (the partition holds its source's offsets) rather than translated. */
  readonly preserved: boolean;
}

export interface GroupCutover {
  readonly step: 'cutover';
  readonly group: string;
  readonly state: 'sync-stopped' | 'cut-over';
  /** When this state was reached (epoch ms). */
  readonly at: number;
  readonly committed?: readonly CommittedOffset[];
}

export interface FlowFinish {
  readonly step: 'finish';
  readonly state: 'stopping' | 'finished';
  readonly at: number;
  /** `finished` only: the partitions the flow replicated, and the sum of their source end offsets when it stopped. */
  readonly partitions?: number;
  readonly sourceEndOffsets?: number;
}

export type MigrationEntry = GroupCutover | FlowFinish;

export interface MigrationState {
  /** Each group that a cutover began for, by group id. */
  readonly groups: ReadonlyMap<string, GroupCutover>;
  readonly finish?: FlowFinish;
}

export const NOT_MIGRATING: MigrationState = { groups: new Map() };

function entryKey(flowGroup: string, entry: MigrationEntry): string {
  return JSON.stringify(entry.step === 'cutover' ? [flowGroup, 'cutover', entry.group] : [flowGroup, 'finish']);
}

/** The record that stores `entry` for the flow whose group is `flowGroup`. */
export function migrationRecord(topic: string, flowGroup: string, entry: MigrationEntry): OutboundRecord {
  return { topic, partition: 0, timestamp: entry.at, key: Buffer.from(entryKey(flowGroup, entry)), value: Buffer.from(JSON.stringify(entry)), headers: [] };
}

/** The flow's state from the topic's records, in order (later records replace earlier ones); other flows' and unreadable records are passed over. */
export function foldMigration(records: readonly KafkaRecord[], flowGroup: string): MigrationState {
  const groups = new Map<string, GroupCutover>();
  let finish: FlowFinish | undefined;
  for (const record of records) {
    const entry = parseEntry(record);
    if (entry === undefined || record.key?.toString() !== entryKey(flowGroup, entry)) continue;
    if (entry.step === 'cutover') groups.set(entry.group, entry);
    else finish = entry;
  }
  return finish === undefined ? { groups } : { groups, finish };
}

function parseEntry(record: KafkaRecord): MigrationEntry | undefined {
  if (record.value === null) return undefined;
  try {
    const entry = JSON.parse(record.value.toString()) as Partial<MigrationEntry>;
    if (entry.step === 'cutover' && typeof entry.group === 'string' && (entry.state === 'sync-stopped' || entry.state === 'cut-over'))
      return entry as GroupCutover;
    if (entry.step === 'finish' && (entry.state === 'stopping' || entry.state === 'finished')) return entry as FlowFinish;
  } catch {
    // not JSON: not ours
  }
  return undefined;
}

/** Reads the flow's migration state from the target; a target without the topic is not migrating. */
export async function readMigrationState(admin: ClusterAdmin, reader: TopicReader, topic: string, flowGroup: string): Promise<MigrationState> {
  const topics = await firstValueFrom(admin.describeTopics([topic]));
  if (!topics.some((t) => t.name === topic)) return NOT_MIGRATING;
  const batches = await lastValueFrom(reader.readToEnd(topic).pipe(toArray()), { defaultValue: [] });
  return foldMigration(
    batches.flatMap((b) => b.records),
    flowGroup,
  );
}

export interface MigrationWatchParts {
  readonly targetAdmin: ClusterAdmin;
  readonly reader: TopicReader;
  /** `mm2-migration.<source>.internal` on the target. */
  readonly topic: string;
  readonly flowGroup: string;
  /** How often a running flow looks for a finish. */
  readonly pollMs: number;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

/**
 * A flow's view of its migration state while it runs: read at start (a finished flow does not
 * start), before each group offset sync pass (a group being cut over is not synced), and every
 * `pollMs` (a finish stops the flow). The topic is read again only when its end moved.
 */
export class MigrationWatch {
  private state: MigrationState = NOT_MIGRATING;
  private readEnd = -1;

  constructor(private readonly parts: MigrationWatchParts) {}

  get logger(): Logger {
    return this.parts.logger;
  }

  get current(): MigrationState {
    return this.state;
  }

  async refresh(): Promise<MigrationState> {
    const { targetAdmin, reader, topic, flowGroup } = this.parts;
    // Asked about its own topic only: every `pollMs`, in every flow, on a target of any size.
    const topics = await firstValueFrom(targetAdmin.describeTopics([topic]));
    if (!topics.some((t) => t.name === topic)) return (this.state = NOT_MIGRATING);
    const end = (await firstValueFrom(targetAdmin.partitionOffsets(topic))).find((p) => p.partition === 0)?.latest ?? 0;
    if (end === this.readEnd) return this.state;
    this.state = await readMigrationState(targetAdmin, reader, topic, flowGroup);
    this.readEnd = end;
    return this.state;
  }

  /** `refresh` as an observable. */
  refreshed(): Observable<MigrationState> {
    return defer(() => from(this.refresh()));
  }

  /** True when a cutover began for `group`: the flow leaves its offsets on the target alone. */
  syncStopped(group: string): boolean {
    return this.state.groups.has(group);
  }

  /** Emits once, when the flow's finish is found, then completes; completes at `stop$` too. A failed look is logged and tried again. */
  finished(stop$: Observable<unknown>): Observable<FlowFinish> {
    const { pollMs, scheduler, logger, topic } = this.parts;
    return timer(0, pollMs, scheduler).pipe(
      exhaustMap(() =>
        defer(() => from(this.refresh())).pipe(
          catchError((error: unknown) => {
            logger.debug('Reading the migration state failed; trying again later.', { topic, error: describeError(error) });
            return EMPTY;
          }),
        ),
      ),
      concatMap((state) => (state.finish === undefined ? EMPTY : [state.finish])),
      filter((finish): finish is FlowFinish => finish !== undefined),
      take(1),
      takeUntil(stop$),
    );
  }
}
